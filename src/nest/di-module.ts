import { type Constructor, type ToolBuildOptions } from 'agenttool';
import {
  CallAuth,
  CallElicitor,
  CallRecorder,
  CallSession,
  describeApp,
  type InjectionDescription,
  type ModuleDescription,
  type ScopeChange,
  tokenName,
} from 'agenttool/di';
import {
  type DynamicModule,
  type FactoryProvider,
  type InjectionToken,
  type OptionalFactoryDependency,
  type Provider,
  Scope,
  type Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { type AppProvider, NestDiApp } from './di-app';
import { sessionTokens } from './sessions';
import { perInjection, type PlannedProvider, planResolution } from './resolution';
import { checkStartLimits } from './start-bound';

/** What `asNestModule` is told besides the root module. */
export interface AsNestModuleOptions {
  /**
   * Bounds each part of the start the app hands to NestJS (each async factory of its
   * providers, tools and guards, and each `onModuleInit` and `onApplicationBootstrap` of
   * its instances and module classes) to this many milliseconds: one that has not
   * settled by then fails the start with `TIMEOUT`, naming every part still under way
   * and how long it had been waited for, once what the app built is closed. Unbounded by
   * default.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Stops the start when it aborts: the part under way (or the next) fails with
   * `CANCELLED`, naming what was under way, once what the app built is closed; aborted
   * already, the app builds nothing. Ignored once the app has started.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Receives, once, when `asNestModule` is called, the app-scoped providers and tools
   * built per session because they need a session-scoped provider (NestJS's scope
   * bubbling), as `ToolApp.create`'s `onScopeReport` does. Without it, those whose app
   * scope was stated are written as one process warning, `AgentToolScopeWarning`.
   */
  readonly onScopeReport?: ((changes: readonly ScopeChange[]) => void) | undefined;
}

/**
 * The served class (`@Tool`, `@Prompt`, `@McpResource` or `@McpResourceTemplate`) each
 * factory of a translated tool, prompt or resource makes, and how its app serves it.
 */
export interface TranslatedClass {
  /** What the module lists it as: a tool, a prompt, or an MCP resource. */
  readonly kind: 'tool' | 'prompt' | 'resource';
  readonly cls: Constructor;
  readonly app: NestDiApp;
  /** Where its instances live: the app's one, or one per session. */
  readonly home: 'app' | 'session';
  /** Its guards, once NestJS has built the app. */
  readonly options: () => ToolBuildOptions;
}

/** Each factory of a translated tool, prompt or resource, with its class. */
export const servedFactories = new WeakMap<object, TranslatedClass>();

/** What ToolApp does with the scope report: `onScopeReport`, or a warning for stated scopes. */
function report(root: string, changes: readonly ScopeChange[], options: AsNestModuleOptions): void {
  if (options.onScopeReport !== undefined) {
    if (changes.length > 0) options.onScopeReport(changes);
    return;
  }
  const stated = changes.filter((change) => change.stated);
  if (stated.length === 0) return;
  process.emitWarning(
    `asNestModule(${root}): ${stated.map((change) => change.message).join('\n')}`,
    { type: 'AgentToolScopeWarning', code: 'AGENTTOOL_SCOPE_CHANGED' },
  );
}

/**
 * Warns of what the app declares that NestJS's container does not serve (yet): a
 * session-scoped provider's `handle` (its tools take no handle argument, so a 2026-07-28
 * client without agenttool's session extension gets a new instance at each call) and a
 * module's `liveTools` (their tools are not served). Said at the start, where the app
 * would otherwise lose them without a word.
 */
function warnNotCarried(root: string, modules: readonly ModuleDescription[]): void {
  const lost = modules.flatMap((module) => [
    ...module.providers.flatMap((provider) =>
      provider.handle === undefined
        ? []
        : [
            `${provider.label} in ${module.module.name}: its handle (${provider.handle.argument}) is not carried over: its tools take no ${provider.handle.argument} argument, and a 2026-07-28 client without agenttool's session extension gets a new ${provider.handle.holds} at each call`,
          ],
    ),
    ...(module.liveTools.length === 0
      ? []
      : [
          `${module.module.name}'s liveTools (${module.liveTools.map(tokenName).join(', ')}) are not served`,
        ]),
  ]);
  if (lost.length === 0) return;
  process.emitWarning(
    `asNestModule(${root}): under NestJS, ${lost.join('; ')}. Serve such an app with ToolApp and serveTools (agenttool/mcp) instead, or leave them out.`,
    { type: 'AgentToolWarning', code: 'AGENTTOOL_NEST_NOT_CARRIED' },
  );
}

function nestInject(
  inject: readonly InjectionDescription[],
): (InjectionToken | OptionalFactoryDependency)[] {
  return inject.map(({ token, optional }) => {
    // agenttool's InjectionToken is an object, which NestJS keys its providers by as well.
    const nestToken = token as InjectionToken;
    return optional ? { token: nestToken, optional: true } : nestToken;
  });
}

/**
 * A provider of agenttool/di as a NestJS provider, built by NestJS as ToolApp builds it:
 * app-scoped as a singleton, transient as `Scope.TRANSIENT`, session-scoped as a durable
 * request-scoped provider (one instance per session's context id, see `attachSession`);
 * what needs a session-scoped provider NestJS makes per session itself (scope bubbling).
 */
function nestProvider(at: AppProvider, app: NestDiApp, module: ModuleDescription): Provider {
  const perCall = (at.provider as PlannedProvider).perCall === true;
  const { provider } = at;
  const provide = provider.token as InjectionToken;
  if (provider.home === 'session') sessionTokens.add(provide);
  switch (provider.kind) {
    case 'value': {
      const value = provider.make();
      app.keepValue(value, at);
      return { provide, useValue: value };
    }
    case 'alias':
      return { provide, useExisting: provider.inject[0]!.token as InjectionToken };
    default: {
      const useFactory = (...deps: unknown[]): Promise<unknown> => app.make(at, deps);
      Object.defineProperty(useFactory, 'name', { value: provider.label });
      const kind = provider.tool ? 'tool' : provider.primitive;
      if (kind !== undefined) {
        servedFactories.set(useFactory, {
          kind,
          cls: provider.token as Constructor,
          app,
          home: provider.home,
          options: () => app.toolOptions(module),
        });
      }
      const factory: FactoryProvider = { provide, useFactory, inject: nestInject(provider.inject) };
      if (perCall) return { ...factory, scope: Scope.REQUEST };
      if (provider.scope === 'transient' || provider.scope === 'resolution') {
        return { ...factory, scope: Scope.TRANSIENT };
      }
      if (provider.scope === 'session') return { ...factory, scope: Scope.REQUEST, durable: true };
      return factory;
    }
  }
}

/**
 * Providers of the root module whose last one ends the app's sessions in its
 * `onModuleDestroy`, before any instance of the app gets its own, as `ToolApp` closes
 * its sessions first: NestJS calls `onModuleDestroy` from the module nearest the root
 * down, and inside a module from the highest hierarchy level down, so the closer needs
 * (through the ones before it) everything of the root module NestJS hooks (its
 * app-scoped providers, and what its transient ones need, one more link for each
 * transient one between), which puts it a level above them all. None has another
 * hook; when `AgentToolModule` closes first, the sessions have ended already.
 */
function sessionCloser(root: ModuleDescription, app: NestDiApp): FactoryProvider[] {
  const tokens = new Map<InjectionToken, boolean>();
  let depth = 0;
  // A provider built per injection is hooked a level above what it needs, in turn.
  const needs = (inject: readonly InjectionDescription[], at: number): void => {
    depth = Math.max(depth, at);
    for (const { token, optional, provider } of inject) {
      if (provider === undefined || provider.home !== 'app') continue;
      if (perInjection(provider)) needs(provider.inject, at + 1);
      else
        tokens.set(
          token as InjectionToken,
          (tokens.get(token as InjectionToken) ?? true) && optional,
        );
    }
  };
  for (const provider of root.providers) {
    if (provider.home !== 'app' || provider.kind === 'alias') continue;
    if (perInjection(provider)) needs(provider.inject, 1);
    else tokens.set(provider.token as InjectionToken, false);
  }
  const name = root.module.name;
  const chain: FactoryProvider[] = [
    {
      provide: Symbol(`agenttool/nest: above ${name}'s providers`),
      useFactory: () => ({}),
      inject: [...tokens].map(([token, optional]) => (optional ? { token, optional } : token)),
    },
  ];
  for (let i = 0; i < depth; i++) {
    chain.push({
      provide: Symbol(`agenttool/nest: above ${name}'s providers (${i + 2})`),
      useFactory: () => ({}),
      inject: [chain.at(-1)!.provide],
    });
  }
  chain.push({
    provide: Symbol(`agenttool/nest: ${name}'s session closer`),
    useFactory: () => ({ onModuleDestroy: (): Promise<void> => app.closeSessions() }),
    inject: [chain.at(-1)!.provide],
  });
  return chain;
}

/**
 * What a module exports, as NestJS can say it: its own providers and the modules it
 * imports, but not a token it imports, which agenttool lets a module re-export by name:
 * for that one, the import it comes from is re-exported (which makes that import's
 * other exports visible too, where agenttool would not; nothing of a checked app
 * depends on their being hidden).
 */
function nestExport(
  module: ModuleDescription,
  entry: unknown,
  byClass: ReadonlyMap<Constructor, ModuleDescription>,
): unknown {
  if (byClass.has(entry as Constructor)) return entry;
  if (module.providers.some((provider) => provider.token === entry)) return entry;
  const from = module.imports.find((imported) =>
    exportsToken(byClass.get(imported), entry, byClass, new Set()),
  );
  return from ?? entry;
}

/** True when `module` exports `token`: its own, or one of its imports' it re-exports. */
function exportsToken(
  module: ModuleDescription | undefined,
  token: unknown,
  byClass: ReadonlyMap<Constructor, ModuleDescription>,
  seen: Set<ModuleDescription>,
): boolean {
  if (module === undefined || seen.has(module)) return false;
  seen.add(module);
  return module.exports.some((entry) => {
    if (byClass.has(entry as Constructor)) {
      return exportsToken(byClass.get(entry as Constructor), token, byClass, seen);
    }
    if (entry !== token) return false;
    if (module.providers.some((provider) => provider.token === token)) return true;
    return module.imports.some((imported) =>
      exportsToken(byClass.get(imported), token, byClass, seen),
    );
  });
}

/**
 * The module class's constructor parameters as NestJS reads them (its own `@Inject`
 * metadata, `self:paramtypes` and `optional:paramtypes`), for tokens TypeScript's
 * emitted types cannot name.
 */
function describeModuleClass(module: ModuleDescription): void {
  if (module.inject.length === 0) return;
  Reflect.defineMetadata(
    'self:paramtypes',
    module.inject.map(({ token }, index) => ({ index, param: token })),
    module.module,
  );
  const optional = module.inject.flatMap(({ optional }, index) => (optional ? [index] : []));
  if (optional.length > 0) Reflect.defineMetadata('optional:paramtypes', optional, module.module);
}

/**
 * An agenttool/di app, its root `@Module` and every module it imports, as one NestJS
 * dynamic module, so that NestJS's own container builds it, with the semantics
 * `ToolApp.create` gives it:
 * - each module is a NestJS module of the same class (its hooks are called last in its
 *   module, as NestJS calls a module class's), with the same imports and exports, and
 *   its guard classes, its providers, then its tools as providers (a class listed twice
 *   is one);
 * - every provider is built by NestJS from what agenttool reads of it (`@Inject` tokens,
 *   ours or tsyringe's, inherited constructors, factories): app-scoped as a singleton,
 *   transient as `Scope.TRANSIENT`, session-scoped as a durable request-scoped provider
 *   that `AgentToolModule` resolves in a context id of each MCP session's own, so that a
 *   session has one instance, made on its first call, started (`onModuleInit`,
 *   `onApplicationBootstrap`) as it is made, and given the closing hooks and closed when
 *   the session ends; what needs a session-scoped provider is built per session too
 *   (NestJS's scope bubbling), reported as `ToolApp` reports it (`onScopeReport`);
 *   resolution-scoped (tsyringe's `Lifecycle.ResolutionScoped`) as copies of its own
 *   for each instance whose resolution holds one, which NestJS's container has no
 *   scope for (see docs/modules-and-di.md);
 * - NestJS calls the lifecycle hooks of the app's instances, in the order `ToolApp`
 *   calls them;
 * - what the app built that has `close()`, `dispose()` or a dispose symbol is closed
 *   once, newest first, after every module's `beforeApplicationShutdown` and before
 *   `onApplicationShutdown` (from a global module of its own, which NestJS calls last;
 *   another global module imported after it comes after it), as `ToolApp` closes; a
 *   transient tool built for one call, with what was built for it, when its call ends;
 * - a module's `guards` are asked before its tools (and those of the modules it
 *   imports) run, as under `ToolApp`, guard classes built by NestJS in their module;
 * - `options.timeoutMs` and `options.signal` bound each factory and starting hook the
 *   app hands to NestJS (NestJS has no bound of its own): a start that fails so, or by
 *   a factory or hook of the app that throws, closes what the app built before the
 *   error reaches NestJS (which, unless created with `abortOnError: false`, then ends
 *   the process);
 * - `CallRecorder`, `CallElicitor`, `CallSession` and `CallAuth` are provided to every
 *   module.
 * Import it beside `AgentToolModule.forRoot()`, which serves the tools, once per NestJS
 * application. What `ToolApp.create` would refuse is refused (`ModuleError`); bad
 * options are `INVALID_OPTIONS`.
 */
export function asNestModule(
  rootModule: Constructor,
  options: AsNestModuleOptions = {},
): DynamicModule {
  const root = typeof rootModule === 'function' ? rootModule.name : String(rootModule);
  checkStartLimits(root, options);
  const described = describeApp(rootModule);
  const modules = planResolution(described.modules);
  report(root, described.scopeReport, options);
  warnNotCarried(root, described.modules);
  const app = new NestDiApp(root, modules, {
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  const host = {
    onModuleInit: (): void => app.beginHooks(),
    onModuleDestroy: (): Promise<void> => app.closeSessions(),
    beforeApplicationShutdown: (): Promise<void> => app.closeAll(),
  };
  const facades = [CallRecorder, CallElicitor, CallSession, CallAuth];
  // A class of its own per app: NestJS tells modules apart by class and metadata.
  class AgentToolDiHost {}
  const hostModule: DynamicModule = {
    module: AgentToolDiHost,
    global: true,
    providers: [
      ...facades.map((cls) => ({ provide: cls, useValue: new cls() })),
      { provide: Symbol('agenttool/nest: host'), useValue: host },
    ],
    exports: facades,
  };
  const dynamic = new Map<Constructor, DynamicModule>();
  for (const module of modules) {
    describeModuleClass(module);
    const name = module.module.name;
    // Captures the module's ModuleRef (for its module class and its guards); no hooks.
    const ref: FactoryProvider = {
      provide: Symbol(`agenttool/nest: ${name}'s ModuleRef`),
      useFactory: (moduleRef: ModuleRef) => {
        app.moduleRefs.set(module.module, moduleRef);
        return moduleRef;
      },
      inject: [ModuleRef],
    };
    dynamic.set(module.module, {
      // A @Module class is a concrete class, which Constructor's type does not say.
      module: module.module as Type,
      providers: [
        ...module.providers.map((provider) =>
          nestProvider({ provider, module: name }, app, module),
        ),
        ref,
        ...(module.module === rootModule ? sessionCloser(module, app) : []),
      ],
    });
  }
  const byClass = new Map(modules.map((module) => [module.module, module]));
  for (const module of modules) {
    const own = dynamic.get(module.module)!;
    const imports = module.imports.map((imported) => dynamic.get(imported)!);
    own.imports = module.module === rootModule ? [hostModule, ...imports] : imports;
    own.exports = [
      ...new Set(module.exports.map((entry) => nestExport(module, entry, byClass))),
    ].map((entry) => dynamic.get(entry as Constructor) ?? entry) as (
      InjectionToken | DynamicModule
    )[];
  }
  return dynamic.get(rootModule)!;
}
