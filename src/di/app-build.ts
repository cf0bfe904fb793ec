import { type DependencyContainer } from 'tsyringe';
import {
  AgentToolError,
  type Constructor,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  resourceOf,
  type Tool,
  type ToolContext,
  wrap,
} from '../core';
import {
  type CanActivate,
  classMcpResource,
  classPrompt,
  classTool,
  type InstanceFor,
  type ToolBuildOptions,
  toolFromInstance,
} from '../decorators';
import { type CheckedApp } from './checked-app';
import { type AppGraph, type ProviderNode } from './graph';
import { type HandleTable } from './handle-table';
import { type HandleOptions, handleTool } from './handles';
import { queuedTool, Turns } from './turns';
import { hookOrder } from './hook-order';
import { allNodes, dependencyOrder, type Home, sharingOf } from './link';
import { ModuleGuards } from './module-guards';
import { moduleInterceptors } from './module-interceptors';
import { register } from './registration';
import { type AppPlan, InstanceScope } from './scope';
import { type ScopeChange, scopeChanges, warnOfStatedChanges } from './scope-report';
import { appContainer } from './tsyringe-adapter';

// The steps of building an app, in the order `ToolApp.create` takes them once the
// modules are read and checked (checked-app.ts): plan the scopes, register the
// providers, resolve the app's instances, start them (InstanceScope.start), build the
// tools on what was resolved.

/**
 * Where every provider's instances live and in which order their hooks run; the scope
 * changes (app-scoped providers made per session because they need a session-scoped
 * one) go to `onScopeReport`, or are warned of when the code did not state them.
 */
export function planScopes(
  rootName: string,
  checked: CheckedApp,
  onScopeReport: ((changes: readonly ScopeChange[]) => void) | undefined,
): { readonly plan: AppPlan; readonly scopeReport: readonly ScopeChange[] } {
  const { graph, homes } = checked;
  const scopeReport = scopeChanges(graph, homes);
  if (onScopeReport === undefined) warnOfStatedChanges(rootName, scopeReport);
  else if (scopeReport.length > 0) onScopeReport(scopeReport);
  const plan: AppPlan = {
    homes,
    closedObjects: new WeakSet(),
    givenValues: givenValues(graph),
    ...hookOrder(graph),
  };
  return { plan, scopeReport };
}

/** A container of the app's own with every provider registered under its node's key. */
export function registerProviders(checked: CheckedApp): DependencyContainer {
  const container = appContainer();
  register(container, checked.graph, checked.homes);
  return container;
}

/**
 * Builds every app-scoped provider, tool, guard and module class, in dependency order
 * (an async factory awaited before what needs it), as NestJS does before any hook.
 */
export async function resolveAppInstances(
  checked: CheckedApp,
  appScope: InstanceScope,
): Promise<void> {
  for (const node of dependencyOrder(allNodes(checked.graph))) {
    if (checked.homes.get(node) === 'app' && sharingOf(node) === 'shared') {
      await appScope.resolve(node);
    }
  }
}

/**
 * The app's tools, module by module, each bound to where its instances come from: the
 * app's instance, a session's (`scopeOf` the call), or one per call; guarded by its
 * module's guards and intercepted by the app's and its modules' interceptors, resolved
 * from the app.
 */
export async function buildTools(
  checked: CheckedApp,
  appScope: InstanceScope,
  scopeOf: (ctx: ToolContext) => InstanceScope,
  calls: SessionCalls,
): Promise<Tool[]> {
  const { graph, homes } = checked;
  const guarding = await moduleGuards(checked, appScope);
  const intercepting = await moduleInterceptors({ graph, homes, appScope, scopeOf });
  const tools: Tool[] = [];
  for (const module of graph.modules) {
    const build = { ...guarding.buildOptions(module), ...intercepting.buildOptions(module) };
    for (const node of module.tools) {
      const cls = node.token as Constructor;
      if (homes.get(node) === 'app') {
        const tool =
          sharingOf(node) === 'shared'
            ? appTool(node, cls, await appScope.resolve(node), build)
            : perCallTool(node, cls, () => appScope, build);
        // A session's tool finds the app closed through its scope; the app's own would
        // run on, with the providers it holds already closed.
        tools.push(
          wrap(tool, (call, ctx) => {
            calls.open();
            return tool.execute(call, ctx);
          }),
        );
      } else {
        const tool =
          sharingOf(node) === 'shared'
            ? sessionTool(node, cls, scopeOf, build)
            : perCallTool(node, cls, scopeOf, build);
        tools.push(sessionCalls(tool, node, homes, scopeOf, calls));
      }
    }
  }
  // The tool set was validated with the modules (checkTools): same classes, same names.
  return tools;
}

/** The app's prompts and MCP resources, built on its instances as its tools are. */
export interface BuiltPrimitives {
  readonly prompts: Prompt[];
  readonly resources: (McpResource | McpResourceTemplate)[];
}

/**
 * The app's prompts and MCP resources, module by module, each bound to where its
 * instances come from as a tool is (the app's instance, a session's, or one per
 * request, closed when the request's method returns), guarded by its module's guards.
 */
export async function buildPrimitives(
  checked: CheckedApp,
  appScope: InstanceScope,
  scopeOf: (ctx: ToolContext) => InstanceScope,
): Promise<BuiltPrimitives> {
  const { graph, homes } = checked;
  const guarding = await moduleGuards(checked, appScope);
  const prompts: Prompt[] = [];
  const resources: (McpResource | McpResourceTemplate)[] = [];
  for (const module of graph.modules) {
    const build = guarding.buildOptions(module);
    const instanceFor = async (node: ProviderNode): Promise<InstanceFor> => {
      const base = homes.get(node) === 'app' ? () => appScope : scopeOf;
      if (sharingOf(node) !== 'shared') return (ctx) => perRequestInstance(node, base(ctx));
      if (homes.get(node) === 'app') {
        const instance = (await appScope.resolve(node)) as object;
        return () => instance;
      }
      return async (ctx) => (await scopeOf(ctx).resolve(node)) as object;
    };
    for (const node of module.prompts) {
      prompts.push(classPrompt(node.token as Constructor, await instanceFor(node), build));
    }
    for (const node of module.resources) {
      resources.push(classMcpResource(node.token as Constructor, await instanceFor(node), build));
    }
  }
  return { prompts, resources };
}

/**
 * An instance for one request, built in a scope of its own under `base`; what that
 * scope built is closed once the method the request calls on it settles.
 */
async function perRequestInstance(node: ProviderNode, base: InstanceScope): Promise<object> {
  const call = new InstanceScope('call', base.container.createChildContainer(), base.plan, base);
  let instance: object;
  try {
    instance = (await call.resolve(node)) as object;
  } catch (error) {
    await call.close().catch(() => undefined);
    throw error;
  }
  return new Proxy(instance, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]): Promise<unknown> => {
        try {
          return await (value as (...a: unknown[]) => unknown).apply(target, args);
        } finally {
          await call.close();
        }
      };
    },
  });
}

/** The app's module guards, each guard class resolved from the app. */
export async function moduleGuards(
  checked: CheckedApp,
  appScope: InstanceScope,
): Promise<ModuleGuards> {
  const guards = new Map<ProviderNode, CanActivate>();
  for (const module of checked.graph.modules) {
    for (const node of module.guards.values()) {
      guards.set(node, (await appScope.resolve(node)) as CanActivate);
    }
  }
  return new ModuleGuards(checked.graph, guards);
}

/** How the calls of tools built per session run: their turns, their handles. */
export interface SessionCalls {
  /** The handles the app has minted. */
  readonly handles: HandleTable;
  /** How many calls may wait for one session's resource (see `ToolAppOptions.maxQueuedCalls`). */
  readonly maxQueued: number;
  /** Throws `CLOSED` once the app is closing: an app's tool then runs no more. */
  readonly open: () => void;
}

/** Each session's (or handle's) turns, made on first use. */
const turnsOfScope = new WeakMap<InstanceScope, Turns>();

function turnsOf(scope: InstanceScope): Turns {
  let turns = turnsOfScope.get(scope);
  if (turns === undefined) {
    turns = new Turns();
    turnsOfScope.set(scope, turns);
  }
  return turns;
}

/**
 * A tool built per session, with its calls on a resource taking turns in the session
 * (or the handle) they run in, and the handle of what it injects, if any, in its
 * arguments (see {@link HandleOptions}).
 */
function sessionCalls(
  tool: Tool,
  node: ProviderNode,
  homes: ReadonlyMap<ProviderNode, Home>,
  scopeOf: (ctx: ToolContext) => InstanceScope,
  calls: SessionCalls,
): Tool {
  const resource = resourceOf(tool);
  const queued =
    resource === ''
      ? tool
      : queuedTool(tool, resource, (ctx) => turnsOf(scopeOf(ctx)), calls.maxQueued);
  const handles = handlesInjected(node, homes);
  if (handles.length > 1) {
    throw new AgentToolError(
      'INVALID_MODULE',
      `${node.module?.name ?? 'app'}: ${node.label} injects providers reached by two handles (${handles.map((h) => h.argument).join(', ')}); a tool's calls run under one handle, so split the tool`,
    );
  }
  const [handle] = handles;
  return handle === undefined ? queued : handleTool(queued, handle, calls.handles);
}

/** The handles of the session-scoped providers `node` injects, directly or not, each once. */
function handlesInjected(
  node: ProviderNode,
  homes: ReadonlyMap<ProviderNode, Home>,
): HandleOptions[] {
  const found = new Map<string, HandleOptions>();
  const seen = new Set<ProviderNode>();
  const visit = (current: ProviderNode): void => {
    if (seen.has(current) || homes.get(current) !== 'session') return;
    seen.add(current);
    if (current.handle !== undefined && !found.has(current.handle.argument)) {
      found.set(current.handle.argument, current.handle);
    }
    for (const dep of current.deps) if (dep !== undefined) visit(dep);
  };
  visit(node);
  return [...found.values()];
}

/** The objects given with `useValue` anywhere in the app. */
function givenValues(graph: AppGraph): WeakSet<object> {
  const values = new WeakSet<object>();
  for (const node of allNodes(graph)) {
    if (node.kind !== 'value') continue;
    const value = node.build([]);
    if (typeof value === 'object' && value !== null) values.add(value);
  }
  return values;
}

/**
 * The instance a module's provider of a tool class made, checked to be one (a factory
 * or a value may make anything).
 */
function toolInstance(node: ProviderNode, cls: Constructor, instance: unknown): object {
  if (instance instanceof cls) return instance as object;
  throw new AgentToolError(
    'PROVIDER_FAILED',
    `${node.module?.name ?? 'app'}: ${cls.name} is listed in tools, but ${node.label} ${node.kind === 'value' ? 'is' : 'made'} ${describe(instance)}, not an instance of ${cls.name}; provide the class itself (or make the factory return an instance of it)`,
  );
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null)
    return `an instance of ${value.constructor.name}`;
  return value === undefined ? 'undefined' : typeof value;
}

/** A tool of one instance for the app. */
function appTool(
  node: ProviderNode,
  cls: Constructor,
  instance: unknown,
  options: ToolBuildOptions,
): Tool {
  const checked = toolInstance(node, cls, instance);
  // A factory's or a value's tool is the app's (or the giver's) to close, not the tool set's.
  return checked.constructor === cls
    ? toolFromInstance(checked, options)
    : classTool(cls, () => checked, options);
}

/**
 * A tool whose class needs a session-scoped provider: one instance per session, made on
 * the session's first call. Its definition and properties come from the class; execute
 * goes to the session's instance.
 */
function sessionTool(
  node: ProviderNode,
  cls: Constructor,
  scopeOf: (ctx: ToolContext) => InstanceScope,
  options: ToolBuildOptions,
): Tool {
  return classTool(
    cls,
    async (ctx) => toolInstance(node, cls, await scopeOf(ctx).resolve(node)),
    options,
  );
}

interface Executable {
  execute(args: object, ctx: ToolContext): unknown;
}

/**
 * A transient or resolution-scoped tool: an instance for each call (NestJS resolves a
 * transient tool per call too), built in a scope of the call's own under the app's or
 * the session's, with what it needs; no lifecycle hooks run on it (NestJS calls none on
 * what it resolves per request), and what the call's scope built is closed when the
 * call ends. A failure to close fails a call that succeeded.
 */
function perCallTool(
  node: ProviderNode,
  cls: Constructor,
  scopeOf: (ctx: ToolContext) => InstanceScope,
  options: ToolBuildOptions,
): Tool {
  return classTool(
    cls,
    async (ctx) => {
      const base = scopeOf(ctx);
      const call = new InstanceScope(
        'call',
        base.container.createChildContainer(),
        base.plan,
        base,
      );
      let instance: Executable;
      try {
        instance = toolInstance(node, cls, await call.resolve(node)) as Executable;
      } catch (error) {
        await call.close().catch(() => undefined);
        throw error;
      }
      return {
        execute: async (args: object, context: ToolContext): Promise<unknown> => {
          let result: unknown;
          try {
            result = await instance.execute(args, context);
          } catch (error) {
            await call.close().catch(() => undefined);
            throw error;
          }
          await call.close();
          return result;
        },
      };
    },
    options,
  );
}
