import { AgentToolError, type Constructor } from '../core';
import { type GuardLike, type InterceptorLike } from '../decorators';
import { checkedApp } from './checked-app';
import { type AppGraph, type ModuleNode, type ProviderNode } from './graph';
import { hookOrder } from './hook-order';
import { type HookOrder } from './lifecycle';
import { type HandleOptions } from './handles';
import { type Home, importPath, moduleNodes } from './link';
import { guardChain } from './module-guards';
import { type ScopeChange, scopeChanges } from './scope-report';
import { type Scope, type Token } from './tokens';

/** One dependency of a provider or of a module class, as another container injects it. */
export interface InjectionDescription {
  /** The token to inject. */
  readonly token: Token;
  /** Inject `undefined` when nothing provides it (tsyringe's `@inject(token, { isOptional: true })`). */
  readonly optional: boolean;
  /**
   * The provider it resolves to in the injecting module; undefined for a built-in
   * facade (`CallSession`, ...) and for an optional token nothing provides.
   */
  readonly provider: ProviderDescription | undefined;
  /**
   * The modules it comes through: empty when the injecting module provides it, else
   * from the module it imports it from, through each that re-exports it, to the module
   * that provides it.
   */
  readonly through: readonly Constructor[];
}

/**
 * Where an instance's lifecycle hooks come in NestJS 12.5's order, as `ToolApp` calls
 * them: by `moduleRank` (the starting hooks go up the ranks, the closing hooks down),
 * then by `level` (likewise), the instances of one level at once, in `position` order.
 */
export interface HookPlace {
  /** Its module's rank: the modules farthest from the root first, those at one distance in the order they were found. */
  readonly moduleRank: number;
  /** Its hierarchy level, as NestJS counts it: 0 for a value, else one more than its deepest dependency's. */
  readonly level: number;
  /** Its place in its module's lists: guard and interceptor classes first, then providers, then the other tools. */
  readonly position: number;
}

/**
 * One provider or tool of a module, as agenttool reads it: enough for another
 * container to build it as {@link ToolApp} does.
 */
export interface ProviderDescription {
  /** What it is provided under (for a tool, its class). */
  readonly token: Token;
  /** A class (a tool's or a guard's included), a `useValue`, a `useFactory`, or a `useExisting`. */
  readonly kind: 'class' | 'value' | 'factory' | 'alias';
  /** What errors call it: `ReadFileTool`, `the factory of "CONFIG"`, `guard AdminOnly`. */
  readonly label: string;
  /** Its scope: stated, or `'app'`. */
  readonly scope: Scope;
  /**
   * Where its instances live: `'session'` when it is session-scoped or needs a
   * session-scoped provider, directly or not (NestJS's scope bubbling), else `'app'`.
   * A transient or resolution-scoped provider lives where what it is injected into does;
   * this says where it would live on its own.
   */
  readonly home: 'app' | 'session';
  /** What it injects, in order (an alias: the token it names). */
  readonly inject: readonly InjectionDescription[];
  /**
   * Makes its value from what `inject` resolved, in order: builds the class, calls the
   * factory (whose promise the caller awaits), returns the value or the named instance.
   */
  readonly make: (...deps: unknown[]) => unknown;
  /** True when the module lists it in `tools`: its value is a `@Tool` instance. */
  readonly tool: boolean;
  /**
   * What MCP primitive it serves when the module lists it in `prompts` (a `@Prompt`
   * instance) or `resources` (an `@McpResource` or `@McpResourceTemplate` instance);
   * undefined otherwise.
   */
  readonly primitive: 'prompt' | 'resource' | undefined;
  /**
   * True for a guard class its module builds for its tools (a class in its `guards`, or
   * named by a tool's `@Guard`) without listing it in `providers`.
   */
  readonly guard: boolean;
  /** Where its lifecycle hooks come, in NestJS's order. */
  readonly hookPlace: HookPlace;
  /**
   * The handle its session-scoped instances are reachable by (`handle` beside `scope:
   * 'session'` in the module's providers), when it declares one.
   */
  readonly handle: HandleOptions | undefined;
}

/** One guard a module's tools pass, with the module whose instance of a guard class is used. */
export interface GuardDescription {
  /** A function, an object with `canActivate`, or a guard class. */
  readonly guard: GuardLike;
  /** The module that lists it in its `guards` (and builds it, when it is a class). */
  readonly module: Constructor;
}

/** One interceptor a module's tools run, with the module whose instance of an interceptor class is used. */
export interface InterceptorDescription {
  /** An object with `intercept`, a function, or an interceptor class. */
  readonly interceptor: InterceptorLike;
  /** The module that lists it in its `interceptors` (and builds it, when it is a class). */
  readonly module: Constructor;
}

/** One module, as agenttool reads it. */
export interface ModuleDescription {
  /** The `@Module` class. */
  readonly module: Constructor;
  /** The modules it imports, each once. */
  readonly imports: readonly Constructor[];
  /**
   * What it builds, each once, in the order a NestJS module listing them would hold
   * them: the guard classes it builds for its tools without listing them as providers,
   * then its providers, then the tools it does not also list in `providers`.
   */
  readonly providers: readonly ProviderDescription[];
  /** What it exports: tokens, and imported modules it re-exports. */
  readonly exports: readonly Token[];
  /** What its class's constructor injects, in order. */
  readonly inject: readonly InjectionDescription[];
  /** Its `guards`. */
  readonly guards: readonly GuardLike[];
  /**
   * Every guard its tools pass before their own `@Guard`s, in the order they are asked:
   * the `guards` of each module that imports it, directly or not (the nearest to the
   * root first), then its own.
   */
  readonly toolGuards: readonly GuardDescription[];
  /** Its `interceptors`. */
  readonly interceptors: readonly InterceptorLike[];
  /**
   * Every interceptor its tools run before their own `@UseInterceptors`, in order: the
   * `interceptors` of each module that imports it, directly or not (the nearest to the
   * root first), then its own, as {@link ModuleDescription.toolGuards}.
   */
  readonly toolInterceptors: readonly InterceptorDescription[];
  /** Where the hooks of its class come: last in its module, in both directions. */
  readonly moduleRank: number;
  /** Its `liveTools`: the providers whose tools it serves as they change. */
  readonly liveTools: readonly Token[];
}

/** An app as agenttool reads it: its modules, and the scope changes it would report. */
export interface AppDescription {
  /** The modules, the root first, then in the order they were found (depth first). */
  readonly modules: readonly ModuleDescription[];
  /**
   * The app-scoped providers and tools built per session because they need a
   * session-scoped provider, as `ToolApp.create` reports them (`onScopeReport`,
   * `app.scopeReport`).
   */
  readonly scopeReport: readonly ScopeChange[];
}

/**
 * The app of `rootModule`, read and checked as `ToolApp.create` checks it (one
 * `ModuleError` with every problem): its modules, for adapters that build the same app
 * in another container, as `agenttool/nest` does in NestJS's, and its scope report.
 */
export function describeApp(rootModule: Constructor): AppDescription {
  const { graph, homes } = checkedApp(rootModule);
  const order = hookOrder(graph);
  const described = new Map<ProviderNode, Described>();
  const modules = graph.modules.map((module) =>
    describeModule(graph, module, { homes, order, described }),
  );
  // Each injection names the provider it resolves to, once every provider is described.
  for (const [node, description] of described) {
    description.inject = injections(node, described);
  }
  for (const [i, module] of graph.modules.entries()) {
    const self = module.self;
    if (self !== undefined)
      (modules[i] as Mutable<ModuleDescription>).inject = injections(self, described);
  }
  return { modules, scopeReport: scopeChanges(graph, homes) };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** A provider's description, its injections filled in once every provider is described. */
type Described = Mutable<ProviderDescription>;

interface Context {
  readonly homes: ReadonlyMap<ProviderNode, Home>;
  readonly order: HookOrder;
  readonly described: Map<ProviderNode, Described>;
}

/**
 * The modules of the app of `rootModule`, read and checked as `ToolApp.create` checks
 * them (one `ModuleError` with every problem), the root first, then in the order they
 * were found (depth first): {@link describeApp}'s modules.
 */
export function describeModules(rootModule: Constructor): ModuleDescription[] {
  return [...describeApp(rootModule).modules];
}

function describeModule(graph: AppGraph, module: ModuleNode, context: Context): ModuleDescription {
  const { homes, order, described } = context;
  const providers = moduleNodes(module).filter(
    (node) => node.kind !== 'module' && node.module === module,
  );
  const guardOnly = new Set(
    [...module.guards.values()].filter((node) => !module.own.has(node.token)),
  );
  return {
    module: module.cls,
    imports: [...new Set(module.imports.map((imported) => imported.cls))],
    providers: providers.map((node) => {
      const description = describeProvider(node, {
        tool: module.tools.includes(node),
        primitive: module.prompts.includes(node)
          ? 'prompt'
          : module.resources.includes(node)
            ? 'resource'
            : undefined,
        guard: guardOnly.has(node),
        home: homes.get(node) ?? 'app',
        order,
      });
      described.set(node, description);
      return description;
    }),
    exports: module.options.exports,
    inject: [],
    guards: module.options.guards,
    toolGuards: guardChain(graph, module).flatMap((m) =>
      m.options.guards.map((guard) => ({ guard, module: m.cls })),
    ),
    interceptors: module.options.interceptors,
    toolInterceptors: guardChain(graph, module).flatMap((m) =>
      m.options.interceptors.map((interceptor) => ({ interceptor, module: m.cls })),
    ),
    moduleRank: module.self === undefined ? 0 : order.moduleRankOf(module.self),
    liveTools: module.options.liveTools,
  };
}

function describeProvider(
  node: ProviderNode,
  how: {
    tool: boolean;
    primitive: 'prompt' | 'resource' | undefined;
    guard: boolean;
    home: Home;
    order: HookOrder;
  },
): Described {
  const kind = node.kind === 'tool' ? 'class' : node.kind;
  if (kind === 'builtin' || kind === 'module') {
    throw new AgentToolError(
      'INTERNAL',
      `agenttool/di: ${node.label} is not a provider of a module`,
    );
  }
  return {
    token: node.token,
    kind,
    label: node.label,
    scope: node.declaredScope,
    home: how.home,
    inject: [],
    make: (...deps) => node.build(deps),
    tool: how.tool,
    primitive: how.primitive,
    guard: how.guard,
    hookPlace: {
      moduleRank: how.order.moduleRankOf(node),
      level: how.order.levelOf(node),
      position: how.order.positionOf(node),
    },
    handle: 'handle' in node ? node.handle : undefined,
  };
}

function injections(
  node: ProviderNode,
  described: ReadonlyMap<ProviderNode, ProviderDescription>,
): InjectionDescription[] {
  // A linked graph without problems has a token for every parameter, and a node (or
  // undefined, for an optional one nothing provides) for each.
  return node.parameters.map((parameter, i) => {
    const token = parameter.token!;
    const dep = node.deps[i];
    return {
      token,
      optional: parameter.optional === true,
      provider: dep === undefined ? undefined : described.get(dep),
      through: node.module === undefined ? [] : importPath(node.module, token).map((m) => m.cls),
    };
  });
}
