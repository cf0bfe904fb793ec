import {
  accessOf,
  type Call,
  currentContext,
  describeValue,
  type Interceptor,
  isJsonObject,
  type McpResource,
  type McpResourceTemplate,
  parseArguments,
  type Prompt,
  type ProviderResolver,
  type Result,
  runInterceptors,
  runWithContext,
  type Tool,
  type ToolAccess,
  type ToolContext,
  type ToolGuard,
  toolFailure,
  ValidationError,
  wrap,
} from '../core';
import { moduleGuards } from './app-build';
import { type CheckedApp } from './checked-app';
import { type LiveSource } from './live-tools';
import { moduleInterceptors } from './module-interceptors';
import { type InstanceScope } from './scope';

// The live tools of an app (`@Module({ liveTools })`, the remote tools of
// `McpServersModule`) pass the guards and run the interceptors a class tool of the module
// that lists their source would: the module chain's guards (`guardChain`), then the app's
// interceptors and the chain's. They have no class of their own, so nothing follows.

/** The guards and interceptors the tools of one live source go through. */
export interface LiveChain {
  /** Asked before listing or calling a tool, after its own scopes and before its own guards. */
  readonly guards: readonly ToolGuard[];
  /** Run around each call, the first outermost. */
  readonly interceptors: readonly Interceptor[];
  /** How the interceptors' `context.resolve` finds providers (the listing module's view). */
  readonly resolve: ProviderResolver | undefined;
}

/**
 * The live sources of an app, each with the chain of the module that lists it (the first
 * module to list it, when several do): their tools are wrapped as `AppTools` reads them.
 */
export async function chainLiveSources(
  checked: CheckedApp,
  appScope: InstanceScope,
  scopeOf: (ctx: ToolContext) => InstanceScope,
  sources: readonly LiveSource[],
): Promise<LiveSource[]> {
  if (sources.length === 0) return [];
  const { graph, homes } = checked;
  const guarding = await moduleGuards(checked, appScope);
  const intercepting = await moduleInterceptors({ graph, homes, appScope, scopeOf });
  return sources.map((source) => {
    const guards = guarding.buildOptions(source.module).guards ?? [];
    const build = intercepting.buildOptions(source.module);
    const wrapTool = liveToolWrapper({
      guards,
      interceptors: build.interceptors ?? [],
      resolve: build.resolveProvider,
    });
    return { ...source, wrap: wrapTool, guard: livePrimitiveGuard(guards) };
  });
}

/**
 * What a live source's tool becomes: itself when the chain is empty; else a wrapper
 * (core's `wrap`: every other member read through) made once per tool object, so a tool
 * a source announces again is the same wrapper, and one announced anew (a remote that
 * restarted) gets one of its own.
 */
export function liveToolWrapper(chain: LiveChain): (tool: Tool) => Tool {
  if (chain.guards.length === 0 && chain.interceptors.length === 0) return (tool) => tool;
  const made = new WeakMap<Tool, Tool>();
  return (tool) => {
    let wrapper = made.get(tool);
    if (wrapper === undefined) {
      wrapper = chainedTool(tool, chain);
      made.set(tool, wrapper);
    }
    return wrapper;
  };
}

/**
 * `tool` behind `chain`: its access is the chain's guards before its own (its scopes
 * kept), and each call runs through the interceptors, which see the arguments as the
 * model wrote them, decoded (the tool, a remote's, validates them itself) and no
 * `toolClass`. Arguments that are not a JSON object fail the call before the
 * interceptors, as the tool would fail it. What an interceptor throws fails the call
 * as the tool's own error would.
 */
function chainedTool(tool: Tool, chain: LiveChain): Tool {
  const interceptors = chain.interceptors.length === 0 ? undefined : chain.interceptors;
  const run = async (call: Call, ctx: ToolContext): Promise<Result> => {
    try {
      if (interceptors === undefined) return await tool.execute(call, ctx);
      const args = call.value ?? parseArguments(call.args);
      if (!isJsonObject(args)) {
        throw new ValidationError('', `expected object, got ${describeValue(args)}`);
      }
      const parts = {
        tool: wrapper,
        toolClass: undefined,
        call,
        args,
        ctx,
        resolve: chain.resolve,
      };
      return await runInterceptors(interceptors, parts, (current) => tool.execute(call, current));
    } catch (error) {
      throw toolFailure(tool.name, error);
    }
  };
  const wrapper = wrap(tool, (call, ctx) =>
    currentContext() === ctx ? run(call, ctx) : runWithContext(ctx, () => run(call, ctx)),
  );
  const access = chainedAccess(accessOf(tool), chain.guards);
  if (access !== undefined) Object.defineProperty(wrapper, 'access', { get: () => access });
  return wrapper;
}

function chainedAccess(
  own: ToolAccess | undefined,
  guards: readonly ToolGuard[],
): ToolAccess | undefined {
  if (guards.length === 0) return own;
  return Object.freeze({
    scopes: Object.freeze([...(own?.scopes ?? [])]),
    guards: Object.freeze([...guards, ...(own?.guards ?? [])]),
  });
}

/**
 * What a live source's prompt or resource becomes: itself without guards; else one whose
 * access asks `guards` first (its own scopes and guards after them), made once per
 * object, so that one a source lists again is the same.
 */
function livePrimitiveGuard(
  guards: readonly ToolGuard[],
): (<T extends Prompt | McpResource | McpResourceTemplate>(item: T) => T) | undefined {
  if (guards.length === 0) return undefined;
  const made = new WeakMap<object, object>();
  return <T extends Prompt | McpResource | McpResourceTemplate>(item: T): T => {
    let guarded = made.get(item) as T | undefined;
    if (guarded === undefined) {
      guarded = behindGuards(item, chainedAccess(item.access, guards));
      made.set(item, guarded);
    }
    return guarded;
  };
}

/** The members of core's `Prompt`, `McpResource` and `McpResourceTemplate`, read through. */
const PRIMITIVE_MEMBERS = [
  'name',
  'title',
  'description',
  'arguments',
  'completions',
  'uri',
  'uriTemplate',
  'size',
  'mimeType',
  'annotations',
] as const;
const PRIMITIVE_METHODS = ['get', 'read', 'list', 'follow'] as const;

/**
 * `item` with `access` in place of its own: every other member read through, its
 * methods called on `item` (a class instance keeps its private state).
 */
function behindGuards<T extends object>(item: T, access: ToolAccess | undefined): T {
  const source = item as Record<string, unknown>;
  const guarded: Record<string, unknown> = {};
  for (const key of PRIMITIVE_MEMBERS) {
    if (source[key] !== undefined) {
      Object.defineProperty(guarded, key, { enumerable: true, get: () => source[key] });
    }
  }
  for (const key of PRIMITIVE_METHODS) {
    const method = source[key];
    if (typeof method === 'function') {
      guarded[key] = (...args: unknown[]): unknown =>
        (method as (...a: unknown[]) => unknown).apply(item, args);
    }
  }
  if (access !== undefined) guarded['access'] = access;
  return Object.freeze(guarded) as T;
}
