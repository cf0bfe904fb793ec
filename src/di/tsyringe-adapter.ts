import {
  container as globalContainer,
  type DependencyContainer,
  type InjectionToken as TsyringeToken,
  Lifecycle,
} from 'tsyringe';
import { AgentToolError, type Constructor } from '../core';
import { type Scope } from './tokens';

/*
 * Everything agenttool relies on in tsyringe beyond its documented API lives in this
 * file, and test/di/tsyringe-adapter.test.ts fails when tsyringe changes under it:
 *
 * - what tsyringe's parameter decorators record (`@inject`, `@injectAll`, ...), read
 *   from the metadata key tsyringe writes them under, since tsyringe has no reader;
 * - the lifecycle tsyringe's class decorators (`@singleton()`, `@scoped(...)`,
 *   `@registry(...)`) registered a class under in its global container, read from the
 *   container's registration of the class (tsyringe has no public reader);
 * - that tsyringe builds a class it has no type information for, and that takes no
 *   parameters, with a plain `new`, so a registration can build from what the app
 *   resolved for it.
 */

/** tsyringe's metadata key for what `@inject(token)` and its kin record on a class. */
const INJECTION_TOKENS_KEY = 'injectionTokens';

/** What one of tsyringe's parameter decorators recorded for a constructor parameter. */
export interface TsyringeParameter {
  readonly token: unknown;
  /** `@inject(token, { isOptional: true })`. */
  readonly optional: boolean;
  /** The decorator, when it asks for what a module cannot give (several, or transformed). */
  readonly unsupported: '@injectAll' | '@injectWithTransform' | undefined;
}

/** The parameters tsyringe's decorators describe on `cls`, by position. */
export function tsyringeParameters(cls: Constructor): ReadonlyMap<number, TsyringeParameter> {
  const recorded = Reflect.getOwnMetadata(INJECTION_TOKENS_KEY, cls) as
    Record<string, unknown> | undefined;
  const parameters = new Map<number, TsyringeParameter>();
  if (recorded === undefined) return parameters;
  for (const [key, entry] of Object.entries(recorded)) {
    parameters.set(Number(key), readEntry(entry));
  }
  return parameters;
}

function readEntry(entry: unknown): TsyringeParameter {
  if (typeof entry !== 'object' || entry === null || !('token' in entry)) {
    return { token: entry, optional: false, unsupported: undefined };
  }
  const descriptor = entry as {
    token: unknown;
    multiple?: unknown;
    isOptional?: unknown;
    transform?: unknown;
  };
  const unsupported =
    descriptor.transform !== undefined
      ? '@injectWithTransform'
      : descriptor.multiple === true
        ? '@injectAll'
        : undefined;
  // @injectWithTransform keeps the token itself under `token`; @injectAllWithTransform a
  // descriptor of its own.
  const inner = descriptor.token;
  const token =
    typeof inner === 'object' && inner !== null && 'token' in inner ? inner.token : inner;
  return { token, optional: descriptor.isOptional === true, unsupported };
}

/** One registration in a tsyringe container, as tsyringe keeps it. */
interface TsyringeRegistration {
  readonly provider?: { readonly useClass?: unknown };
  readonly options?: { readonly lifecycle?: unknown };
}

/** The part of tsyringe's container class that holds registrations (not in its typings). */
interface RegistrationLookup {
  getRegistration?(token: unknown): TsyringeRegistration | null;
}

const LIFECYCLE_SCOPES: ReadonlyMap<unknown, Scope> = new Map<unknown, Scope>([
  [Lifecycle.Singleton, 'app'],
  [Lifecycle.ContainerScoped, 'session'],
  [Lifecycle.ResolutionScoped, 'resolution'],
  [Lifecycle.Transient, 'transient'],
]);

/**
 * The scope tsyringe's decorators gave `cls` by registering it under itself in the
 * global container: `@singleton()` app, `@scoped(Lifecycle.ContainerScoped)` session,
 * `@scoped(Lifecycle.ResolutionScoped)` resolution, a `Lifecycle.Transient`
 * registration (`@registry`) transient; undefined when it is not registered (a plain
 * `@injectable()`).
 */
export function tsyringeScope(cls: Constructor): Scope | undefined {
  const lookup = globalContainer as unknown as RegistrationLookup;
  if (typeof lookup.getRegistration !== 'function') {
    throw new AgentToolError(
      'INTERNAL',
      'agenttool/di: this version of tsyringe does not keep registrations where agenttool reads them; use tsyringe 4.10',
    );
  }
  const registration = lookup.getRegistration.call(globalContainer, cls as TsyringeToken);
  if (registration === null || registration.provider?.useClass !== cls) return undefined;
  return LIFECYCLE_SCOPES.get(registration.options?.lifecycle ?? Lifecycle.Transient);
}

/** The key a provider is registered under in the app's container: its own, never a user token. */
export type NodeKey = symbol;

/** What the build under way resolved for the class tsyringe is about to build. */
let handoff: readonly unknown[] | undefined;

/**
 * Resolves `key` in `container`, handing `args` (what the app resolved for the class's
 * parameters, in order) to the registration if tsyringe builds it now: a singleton or
 * container-scoped registration already built answers its instance.
 */
export function resolveIn(
  container: DependencyContainer,
  key: NodeKey,
  args: readonly unknown[] = [],
): unknown {
  const outer = handoff;
  handoff = args;
  try {
    return container.resolve(key);
  } finally {
    handoff = outer;
  }
}

const LIFECYCLES: Readonly<Record<Scope, Lifecycle>> = {
  app: Lifecycle.Singleton,
  session: Lifecycle.ContainerScoped,
  transient: Lifecycle.Transient,
  // Each build of the app is a resolution of its own, so tsyringe's resolution scope
  // would be transient here: the app shares a resolution-scoped instance itself.
  resolution: Lifecycle.Transient,
};

/**
 * Registers a class provider under `key`: tsyringe builds it, one instance per app
 * (`Lifecycle.Singleton` in the app's container), one per session
 * (`Lifecycle.ContainerScoped`: each session's child container builds its own), or a new
 * one each time (`Lifecycle.Transient`). `build` makes the instance from the arguments
 * handed to {@link resolveIn}.
 */
export function registerClass(
  container: DependencyContainer,
  key: NodeKey,
  scope: Scope,
  build: (args: readonly unknown[]) => object,
): void {
  // A constructor without parameters or type information, which tsyringe builds with a
  // plain `new`; what it returns is the instance, built from what the app resolved.
  const Build = function (): object {
    const args = handoff;
    if (args === undefined) {
      // The app builds everything it serves when it is created; what is asked of its
      // container later was built already, unless the app has closed since.
      throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed; it builds nothing more');
    }
    handoff = undefined;
    return build(args);
  } as unknown as new () => object;
  container.register(key, { useClass: Build }, { lifecycle: LIFECYCLES[scope] });
}

/** Registers a ready value under `key` (a `useValue` provider, or a factory's result). */
export function registerValue(container: DependencyContainer, key: NodeKey, value: unknown): void {
  container.register(key, { useValue: value });
}

/** Registers `key` as another name of `target`, resolved where `key` is resolved. */
export function registerAlias(container: DependencyContainer, key: unknown, target: NodeKey): void {
  // tsyringe keys its registry by identity, so any token of ours (an InjectionToken
  // object too) works as a key.
  container.register(key as TsyringeToken, { useToken: target });
}

/** A new container for an app: a child of tsyringe's global container, never the global one. */
export function appContainer(): DependencyContainer {
  return globalContainer.createChildContainer();
}
