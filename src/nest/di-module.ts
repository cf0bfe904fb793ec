import { AsyncLocalStorage } from 'node:async_hooks';
import { AgentToolError, type Constructor, errorMessage } from 'agenttool';
import {
  CallAuth,
  CallElicitor,
  CallRecorder,
  CallSession,
  describeModules,
  type InjectionDescription,
  type ModuleDescription,
  type ProviderDescription,
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

/** The `@Tool` class each factory of a translated tool makes, for the discovery. */
export const toolFactories = new WeakMap<object, Constructor>();

/**
 * The instances the translated providers made, whichever app they belong to: theirs to
 * close, so the server does not close them too.
 */
export const madeHere = new WeakSet<object>();

/** Where the translated factories put what they make while one call resolves its tool. */
export const perCallBuilds = new AsyncLocalStorage<object[]>();

/** What one translated app made, to close between the two last shutdown hooks. */
class Owned {
  readonly made: object[] = [];
  readonly given = new WeakSet<object>();
  readonly #closed = new WeakSet<object>();

  /** Keeps what a factory made, unless it passes on one of its arguments or a known value. */
  keep(value: unknown, deps: readonly unknown[]): void {
    if (typeof value !== 'object' || value === null) return;
    if (deps.includes(value) || this.given.has(value) || madeHere.has(value)) return;
    madeHere.add(value);
    const call = perCallBuilds.getStore();
    (call ?? this.made).push(value);
  }

  /**
   * Closes what the app made (`close()`, `dispose()`, the dispose symbols), newest first,
   * each once, and joins the failures: run from `beforeApplicationShutdown` of a global
   * module of its own, which NestJS calls after every other module's.
   */
  async closeAll(): Promise<void> {
    const errors = await closeEach(this.made.splice(0).reverse(), this.#closed);
    if (errors.length > 0) {
      throw new AggregateError(errors, `agenttool/nest: ${errors.length} failed to close`);
    }
  }
}

/** Closes each of `instances` not closed yet, in order, and gives back the failures. */
export async function closeEach(
  instances: readonly object[],
  closed: WeakSet<object> = new WeakSet(),
): Promise<unknown[]> {
  const errors: unknown[] = [];
  for (const instance of instances) {
    if (closed.has(instance)) continue;
    closed.add(instance);
    const target = instance as Record<string | symbol, unknown>;
    const key = ['close', 'dispose', Symbol.asyncDispose, Symbol.dispose].find(
      (k) => typeof target[k] === 'function',
    );
    if (key === undefined) continue;
    try {
      await (target[key] as () => unknown).call(instance);
    } catch (error) {
      errors.push(
        new AgentToolError(
          'CLOSE_FAILED',
          `closing ${instance.constructor.name}: ${errorMessage(error)}`,
          { cause: error },
        ),
      );
    }
  }
  return errors;
}

/** What NestJS cannot do as agenttool/di does, said before anything is built. */
function refuse(modules: readonly ModuleDescription[]): void {
  const problems: string[] = [];
  for (const module of modules) {
    if (module.guards.length > 0) {
      problems.push(
        `${module.module.name} has guards, which NestJS does not run around tools; use NestJS guards (APP_GUARD, @UseGuards on the tool class) instead`,
      );
    }
    for (const provider of module.providers) {
      if (provider.scope === 'session' || provider.scope === 'resolution') {
        problems.push(
          `${module.module.name}: ${provider.label} is ${provider.scope}-scoped, which NestJS has no scope for; make it app-scoped or transient, or serve the module with ToolApp (agenttool/di)`,
        );
      }
    }
  }
  if (problems.length > 0) {
    throw new AgentToolError(
      'INVALID_MODULE',
      `agenttool/nest: asNestModule(${modules[0]?.module.name ?? '?'}): ${problems.join('; ')}`,
    );
  }
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

/** A provider of agenttool/di as a NestJS provider, built by NestJS as ToolApp builds it. */
function nestProvider(provider: ProviderDescription, owned: Owned): Provider {
  const provide = provider.token as InjectionToken;
  switch (provider.kind) {
    case 'value': {
      const value = provider.make();
      if (typeof value === 'object' && value !== null) owned.given.add(value);
      return { provide, useValue: value };
    }
    case 'alias':
      return { provide, useExisting: provider.inject[0]!.token as InjectionToken };
    default: {
      const useFactory = async (...deps: unknown[]): Promise<unknown> => {
        const value = await provider.make(...deps);
        owned.keep(value, deps);
        return value;
      };
      Object.defineProperty(useFactory, 'name', { value: provider.label });
      if (provider.tool) toolFactories.set(useFactory, provider.token as Constructor);
      const factory: FactoryProvider = { provide, useFactory, inject: nestInject(provider.inject) };
      return provider.scope === 'transient' ? { ...factory, scope: Scope.TRANSIENT } : factory;
    }
  }
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
 *   its providers then its tools as providers (a class listed in both is one);
 * - every provider is built by NestJS from what agenttool reads of it (`@Inject` tokens,
 *   ours or tsyringe's, inherited constructors, factories), app-scoped as a singleton
 *   and transient as `Scope.TRANSIENT`;
 * - NestJS calls the lifecycle hooks, in the order `ToolApp` calls them;
 * - what the app built that has `close()`, `dispose()` or a dispose symbol is closed
 *   once, newest first, after every module's `beforeApplicationShutdown` and before
 *   `onApplicationShutdown` (from a global module of its own, which NestJS calls last;
 *   another global module imported after it comes after it), as `ToolApp` closes; a
 *   transient tool built for one call, with what was built for it, when its call ends;
 * - `CallRecorder`, `CallElicitor`, `CallSession` and `CallAuth` are provided to every
 *   module.
 * Import it beside `AgentToolModule.forRoot()`, which serves the tools. Session- and
 * resolution-scoped providers and module `guards` have no NestJS counterpart: they are
 * refused (`INVALID_MODULE`), as everything `ToolApp.create` would refuse is
 * (`ModuleError`).
 */
export function asNestModule(rootModule: Constructor): DynamicModule {
  const modules = describeModules(rootModule);
  refuse(modules);
  const owned = new Owned();
  const closer = {
    beforeApplicationShutdown: (): Promise<void> => owned.closeAll(),
  };
  const facades = [CallRecorder, CallElicitor, CallSession, CallAuth];
  // A class of its own per app: NestJS tells modules apart by class and metadata.
  class AgentToolDiHost {}
  const host: DynamicModule = {
    module: AgentToolDiHost,
    global: true,
    providers: [
      ...facades.map((cls) => ({ provide: cls, useValue: new cls() })),
      { provide: Symbol('agenttool/nest: closer'), useValue: closer },
    ],
    exports: facades,
  };
  const dynamic = new Map<Constructor, DynamicModule>();
  for (const module of modules) {
    describeModuleClass(module);
    dynamic.set(module.module, {
      // A @Module class is a concrete class, which Constructor's type does not say.
      module: module.module as Type,
      providers: module.providers.map((provider) => nestProvider(provider, owned)),
    });
  }
  for (const module of modules) {
    const own = dynamic.get(module.module)!;
    const imports = module.imports.map((imported) => dynamic.get(imported)!);
    own.imports = module.module === rootModule ? [host, ...imports] : imports;
    own.exports = module.exports.map((entry) => dynamic.get(entry as Constructor) ?? entry) as (
      InjectionToken | DynamicModule
    )[];
  }
  return dynamic.get(rootModule)!;
}
