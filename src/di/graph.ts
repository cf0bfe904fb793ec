import { type Constructor, type Interceptor } from '../core';
import {
  type CanActivate,
  declaredGuards,
  guardProblem,
  isGuardClass,
  isMcpResourceClass,
  isPromptClass,
  toolDescriptorOf,
} from '../decorators';
import { type ModuleProblem } from './errors';
import { type HandleOptions, handleOptionsProblem } from './handles';
import { CallAuth, CallElicitor, CallRecorder, CallSession } from './facades';
import { isModuleClass, moduleOptionsOf, type ModuleRecord, type Provider } from './module';
import { constructorTokens, type ParameterToken } from './constructor-tokens';
import {
  declaredScope,
  isInjectableClass,
  isToken,
  type Scope,
  type Token,
  tokenName,
} from './tokens';
import { type NodeKey, tsyringeScope } from './tsyringe-adapter';

/** A module of the app, once: its own providers and what it imports. */
export interface ModuleNode {
  readonly cls: Constructor;
  readonly name: string;
  readonly options: ModuleRecord;
  readonly imports: ModuleNode[];
  /** Own providers by token; a later entry for the same token replaces an earlier one. */
  readonly own: Map<Token, ProviderNode>;
  /**
   * Its tools, each once: the node of its own provider of the class when it lists the
   * class in `providers` too (one instance), else a node of the tool's own.
   */
  readonly tools: ProviderNode[];
  /** Its prompt classes, each once, as {@link ModuleNode.tools}. */
  readonly prompts: ProviderNode[];
  /** Its MCP resource and template classes, each once, as {@link ModuleNode.tools}. */
  readonly resources: ProviderNode[];
  /**
   * The guard classes its `guards` and its tools' `@Guard`s name, one node each: its own
   * provider of the class when it lists one, else an instance of its own.
   */
  readonly guards: Map<Constructor<CanActivate>, ProviderNode>;
  /**
   * The interceptor classes its `interceptors` (and the app's, for the root module) and
   * its tools' `@UseInterceptors` name, one node each, as {@link ModuleNode.guards}.
   */
  readonly interceptors: Map<Constructor<Interceptor>, ProviderNode>;
  /** The module class itself, built with its constructor's dependencies, hooked last. */
  self: ProviderNode | undefined;
  /**
   * The longest import path from the root module (1 for the root), as NestJS 12.5
   * measures it (`TopologyTree`: an import that closes a cycle is left out).
   */
  distance: number;
}

export type ProviderKind = 'class' | 'value' | 'factory' | 'alias' | 'builtin' | 'tool' | 'module';

/** One thing the app can build: a provider, a tool class, or a built-in facade. */
export interface ProviderNode {
  readonly module: ModuleNode | undefined;
  readonly token: Token;
  readonly kind: ProviderKind;
  /** What errors call it: `ReadFileTool` or `the factory of "CONFIG"`. */
  readonly label: string;
  /** The scope it declares, or `app` when it declares none. */
  readonly declaredScope: Scope;
  /** True when the scope was stated (a `scope` option, `@Injectable({ scope })`, `@singleton()`). */
  readonly scopeStated?: boolean;
  /** The handle its session-scoped instances are reachable by, when it declares one. */
  readonly handle?: HandleOptions | undefined;
  readonly parameters: readonly ParameterToken[];
  /** Builds the instance (or the factory's value) from the dependencies, in order. */
  readonly build: (args: unknown[]) => unknown;
  /** The key it is registered under in the app's container: its own, never a user token. */
  readonly key: NodeKey;
  /**
   * A provider class with no decorator of ours (`@Injectable`, `@Tool`): TypeScript
   * emits no parameter types for such a class, so errors suggest `@Injectable()`.
   */
  readonly undecorated?: boolean;
  /**
   * The nodes the parameters resolve to (same order), undefined for an optional
   * parameter nothing provides; filled by `linkGraph`.
   */
  deps: (ProviderNode | undefined)[];
}

const BUILTINS: ReadonlyMap<Token, ProviderNode> = new Map(
  [CallRecorder, CallElicitor, CallSession, CallAuth].map((cls): [Token, ProviderNode] => {
    const instance = new cls();
    return [
      cls,
      {
        module: undefined,
        token: cls,
        kind: 'builtin',
        label: cls.name,
        declaredScope: 'app',
        parameters: [],
        build: () => instance,
        key: Symbol(cls.name),
        deps: [],
      },
    ];
  }),
);

/**
 * The built-in facades every module sees (`CallRecorder`, `CallElicitor`, `CallSession`,
 * `CallAuth`).
 */
export function builtinFor(token: Token): ProviderNode | undefined {
  return BUILTINS.get(token);
}

/** Everything found in the modules reachable from the root, and the problems on the way. */
export interface AppGraph {
  readonly root: ModuleNode;
  readonly modules: ModuleNode[];
  readonly problems: ModuleProblem[];
}

/**
 * Reads the module tree from `rootCls`: one node per module class however often it is
 * imported. Tool classes are checked with `isToolClass`.
 */
export function readModules(
  rootCls: Constructor,
  isToolClass: (cls: unknown) => boolean,
): AppGraph {
  const problems: ModuleProblem[] = [];
  const nodes = new Map<Constructor, ModuleNode>();
  const modules: ModuleNode[] = [];

  const visit = (cls: Constructor): ModuleNode => {
    const known = nodes.get(cls);
    if (known !== undefined) return known;
    const options = moduleOptionsOf(cls)!;
    const node: ModuleNode = {
      cls,
      name: cls.name,
      options,
      imports: [],
      own: new Map(),
      tools: [],
      prompts: [],
      resources: [],
      guards: new Map(),
      interceptors: new Map(),
      self: undefined,
      distance: 0,
    };
    nodes.set(cls, node);
    modules.push(node);
    options.imports.forEach((imported, i) => {
      if (!isModuleClass(imported)) {
        problems.push({
          code: 'INVALID_MODULE',
          message: `${node.name} imports ${describeEntry(imported)} at imports[${i}], which has no @Module decorator; decorate it with @Module({ ... }) or remove it from the imports`,
        });
        return;
      }
      node.imports.push(visit(imported));
    });
    options.providers.forEach((provider, i) => {
      const built = providerNode(node, provider, i, problems);
      if (built !== undefined) node.own.set(built.token, built);
    });
    options.tools.forEach((tool, i) => {
      if (typeof tool !== 'function' || !isToolClass(tool)) {
        problems.push({
          code: 'INVALID_DECORATOR',
          message: `${node.name} lists ${describeEntry(tool)} at tools[${i}], but it has no @Tool decorator; add @Tool({ name, description }) to the class`,
        });
        return;
      }
      // Listed in `providers` too, or twice: one provider, one instance.
      const provided = node.own.get(tool) ?? node.tools.find((t) => t.token === tool);
      if (provided !== undefined) {
        if (!node.tools.includes(provided)) node.tools.push(provided);
        return;
      }
      node.tools.push(classNode(node, tool, tool, 'tool', tool.name));
    });
    const served = (
      list: readonly Constructor[],
      into: ProviderNode[],
      option: 'prompts' | 'resources',
      is: (cls: unknown) => boolean,
      fix: string,
    ): void => {
      list.forEach((cls, i) => {
        if (typeof cls !== 'function' || !is(cls)) {
          problems.push({
            code: 'INVALID_DECORATOR',
            message: `${node.name} lists ${describeEntry(cls)} at ${option}[${i}], but it has no ${fix}`,
          });
          return;
        }
        const provided = node.own.get(cls) ?? into.find((n) => n.token === cls);
        if (provided !== undefined) {
          if (!into.includes(provided)) into.push(provided);
          return;
        }
        into.push(classNode(node, cls, cls, 'tool', cls.name));
      });
    };
    served(
      options.prompts ?? [],
      node.prompts,
      'prompts',
      isPromptClass,
      '@Prompt decorator; add @Prompt({ name, description, args }) to the class',
    );
    served(
      options.resources ?? [],
      node.resources,
      'resources',
      isMcpResourceClass,
      "@McpResource or @McpResourceTemplate decorator; add @McpResource({ uri, name }) or @McpResourceTemplate({ uriTemplate, name }) to the class (the executor's @Resource is a lock, not an MCP resource)",
    );
    node.self = classNode(node, cls, cls, 'module', cls.name);
    return node;
  };

  if (!isModuleClass(rootCls)) {
    problems.push({
      code: 'INVALID_MODULE',
      message: `${describeEntry(rootCls)} has no @Module decorator; decorate the root class with @Module({ tools, providers, imports })`,
    });
    const empty: ModuleNode = {
      cls: rootCls,
      name: describeEntry(rootCls),
      options: {
        imports: [],
        tools: [],
        prompts: [],
        resources: [],
        providers: [],
        exports: [],
        guards: [],
        interceptors: [],
        liveTools: [],
      },
      imports: [],
      own: new Map(),
      tools: [],
      prompts: [],
      resources: [],
      guards: new Map(),
      interceptors: new Map(),
      self: undefined,
      distance: 0,
    };
    return { root: empty, modules: [], problems };
  }
  const root = visit(rootCls);
  measureDistances(root);
  return { root, modules, problems };
}

/**
 * Adds a node for each guard class a module's `guards` or its tools' `@Guard`s name, and
 * reports a module guard that is not one. A tool class that cannot be read is left to
 * the tool checks.
 */
export function addGuardNodes(graph: AppGraph): void {
  for (const module of graph.modules) {
    const classes: Constructor<CanActivate>[] = [];
    module.options.guards.forEach((guard, i) => {
      const problem = guardProblem(guard);
      if (problem !== undefined) {
        graph.problems.push({
          code: 'INVALID_MODULE',
          message: `${module.name} guards[${i}]: ${problem}`,
        });
      } else if (isGuardClass(guard)) classes.push(guard);
    });
    for (const tool of module.tools) {
      let guards: readonly unknown[];
      try {
        guards = toolDescriptorOf(tool.token as Constructor).properties.guards;
      } catch {
        continue;
      }
      for (const guard of guards) if (isGuardClass(guard)) classes.push(guard);
    }
    for (const served of [...module.prompts, ...module.resources]) {
      for (const guard of declaredGuards(served.token as Constructor)) {
        if (isGuardClass(guard)) classes.push(guard);
      }
    }
    for (const cls of classes) {
      if (module.guards.has(cls)) continue;
      const own = module.own.get(cls);
      module.guards.set(cls, own ?? classNode(module, cls, cls, 'class', `guard ${cls.name}`));
    }
  }
}

/**
 * Each module's depth, as NestJS 12.5 computes it (`TopologyTree` in
 * @nestjs/core/injector/topology-tree): the modules in the reverse post-order of a
 * depth-first walk of the imports from the root (depth 1), each import one deeper than
 * its deepest importer; an import back to a module earlier in that order (a cycle) is
 * left out.
 */
function measureDistances(root: ModuleNode): void {
  const visited = new Set<ModuleNode>();
  const order: ModuleNode[] = [];
  const visit = (module: ModuleNode): void => {
    visited.add(module);
    for (const imported of module.imports) if (!visited.has(imported)) visit(imported);
    order.push(module);
  };
  visit(root);
  order.reverse();
  const positions = new Map(order.map((module, i) => [module, i]));
  root.distance = 1;
  for (const [position, module] of order.entries()) {
    for (const imported of module.imports) {
      if (positions.get(imported)! <= position) continue;
      imported.distance = Math.max(imported.distance, module.distance + 1);
    }
  }
}

function describeEntry(entry: unknown): string {
  if (typeof entry === 'function') return entry.name || '<anonymous class>';
  if (entry === undefined) return 'undefined (a circular import of files?)';
  if (typeof entry === 'string') return JSON.stringify(entry);
  return typeof entry === 'object' && entry !== null ? 'an object' : typeof entry;
}

/**
 * A class's scope, if stated: by `useClass`'s `scope`, by `@Injectable({ scope })`, or by
 * how tsyringe's decorators registered the class (`@singleton()`, `@scoped(...)`).
 */
function statedClassScope(cls: Constructor, stated: Scope | undefined): Scope | undefined {
  return stated ?? declaredScope(cls) ?? tsyringeScope(cls);
}

/** A node that builds `cls` with its constructor's dependencies, in `module`. */
export function classNode(
  module: ModuleNode,
  token: Token,
  cls: Constructor,
  kind: 'class' | 'tool' | 'module',
  label: string,
  scope?: Scope,
): ProviderNode {
  // A module class is built once for the app, whatever its decorators say.
  const stated = kind === 'module' ? undefined : statedClassScope(cls, scope);
  return {
    module,
    token,
    kind,
    label,
    declaredScope: stated ?? 'app',
    scopeStated: stated !== undefined,
    parameters: constructorTokens(cls),
    build: (args) => Reflect.construct(cls, args) as unknown,
    key: Symbol(label),
    undecorated: kind === 'class' && !isInjectableClass(cls),
    deps: [],
  };
}

function providerNode(
  module: ModuleNode,
  provider: Provider,
  i: number,
  problems: ModuleProblem[],
): ProviderNode | undefined {
  const where = `${module.name} providers[${i}]`;
  if (typeof provider === 'function') {
    return classNode(module, provider, provider, 'class', provider.name);
  }
  if (typeof provider !== 'object' || provider === null || !('provide' in provider)) {
    problems.push({
      code: 'INVALID_MODULE',
      message: `${where} ${provider === undefined ? `is ${describeEntry(provider)}` : 'is not a provider'}; give a class, or { provide, useClass | useValue | useFactory | useExisting }`,
    });
    return undefined;
  }
  const token = provider.provide;
  if (!isToken(token)) {
    problems.push({
      code: 'INVALID_MODULE',
      message: `${where} provides ${String(token)}, which is not a token; use a class, a string, a symbol or an InjectionToken`,
    });
    return undefined;
  }
  const name = tokenName(token);
  const handle = 'handle' in provider ? provider.handle : undefined;
  if (handle !== undefined) {
    const scope = 'scope' in provider ? provider.scope : undefined;
    const problem =
      scope === 'session'
        ? handleOptionsProblem(handle)
        : `handle needs scope: 'session' (a handle reaches a session's instances), got ${scope === undefined ? 'no scope' : `'${scope}'`}`;
    if (problem !== undefined) {
      problems.push({ code: 'INVALID_MODULE', message: `${where} (${name}): ${problem}` });
      return undefined;
    }
  }
  const withHandle = (node: ProviderNode): ProviderNode =>
    handle === undefined ? node : { ...node, handle };
  if ('useClass' in provider && typeof provider.useClass === 'function') {
    return withHandle(
      classNode(module, token, provider.useClass, 'class', provider.useClass.name, provider.scope),
    );
  }
  if ('useValue' in provider) {
    const value = provider.useValue;
    return {
      module,
      token,
      kind: 'value',
      label: `the value of ${name}`,
      declaredScope: 'app',
      parameters: [],
      build: () => value,
      key: Symbol(`the value of ${name}`),
      deps: [],
    };
  }
  if ('useFactory' in provider && typeof provider.useFactory === 'function') {
    const factory = provider.useFactory as (...deps: unknown[]) => unknown;
    return withHandle({
      module,
      token,
      kind: 'factory',
      label: `the factory of ${name}`,
      declaredScope: provider.scope ?? 'app',
      scopeStated: provider.scope !== undefined,
      parameters: (provider.inject ?? []).map((dep, index): ParameterToken =>
        dep === undefined
          ? { index, token: undefined, undefinedAt: 'inject' }
          : { index, token: isToken(dep) ? dep : undefined },
      ),
      build: (args) => factory(...args),
      key: Symbol(`the factory of ${name}`),
      deps: [],
    });
  }
  if ('useExisting' in provider && isToken(provider.useExisting)) {
    return {
      module,
      token,
      kind: 'alias',
      label: `the alias ${name}`,
      declaredScope: 'app',
      parameters: [{ index: 0, token: provider.useExisting }],
      build: (args) => args[0],
      key: Symbol(`the alias ${name}`),
      deps: [],
    };
  }
  problems.push({ code: 'INVALID_MODULE', message: `${where} (${name}) ${lacking(provider)}` });
  return undefined;
}

/** What is wrong with a provider object none of whose `use*` could be used. */
function lacking(provider: object): string {
  if ('useClass' in provider) {
    return `has useClass ${describeEntry(provider.useClass)}, which is not a class; give the class to build`;
  }
  if ('useFactory' in provider) {
    return `has useFactory ${describeEntry(provider.useFactory)}, which is not a function; give the function that makes the value`;
  }
  if ('useExisting' in provider) {
    return `has useExisting ${describeEntry(provider.useExisting)}, which is not a token; give the token it stands for`;
  }
  return 'has none of useClass, useValue, useFactory or useExisting; give one of them';
}
