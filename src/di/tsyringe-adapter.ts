import {
  container as globalContainer,
  type DependencyContainer,
  type InjectionToken as TsyringeToken,
  Lifecycle,
} from 'tsyringe';
import { AgentToolError, type Constructor } from '../core';

/*
 * Everything agenttool relies on in tsyringe beyond its documented API lives in this
 * file, and test/di/tsyringe-adapter.test.ts fails when tsyringe changes under it:
 *
 * - what tsyringe's parameter decorators record (`@inject`, `@injectAll`, ...), read
 *   from the metadata key tsyringe writes them under, since tsyringe has no reader;
 * - that a child container starts with its own copy of the parent's container-scoped
 *   registrations, which tells a `@scoped(Lifecycle.ContainerScoped)` class apart;
 * - that tsyringe builds a class it has no type information for, and that takes no
 *   parameters, with a plain `new`, so a registration can build from the container
 *   resolving it.
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

/**
 * True when `cls` is registered in tsyringe's global container as container-scoped
 * (`@scoped(Lifecycle.ContainerScoped)`): a fresh child container holds its own copy of
 * exactly those registrations.
 */
export function isContainerScoped(cls: Constructor): boolean {
  return globalContainer.createChildContainer().isRegistered(cls as TsyringeToken);
}

/** The key a provider is registered under in the app's container: its own, never a user token. */
export type NodeKey = symbol;

/** The container that is resolving right now, for the registrations that build from it. */
let resolving: DependencyContainer | undefined;

/**
 * Resolves `key` in `container`. Every build goes through here, so a class
 * registration reads its dependencies from the container resolving it: the app's for
 * an app-scoped provider, a session's for a session-scoped one.
 */
export function resolveIn(container: DependencyContainer, key: NodeKey): unknown {
  const outer = resolving;
  resolving = container;
  try {
    return container.resolve(key);
  } finally {
    resolving = outer;
  }
}

/**
 * Registers a class provider under `key`: tsyringe builds it, one instance per app
 * (`Lifecycle.Singleton` in the app's container) or one per session
 * (`Lifecycle.ContainerScoped`: each session's child container builds its own).
 * `build` makes the instance from its dependencies, each resolved by its key.
 */
export function registerClass(
  container: DependencyContainer,
  key: NodeKey,
  scope: 'app' | 'session',
  build: (resolve: (dependency: NodeKey) => unknown) => object,
): void {
  // A constructor without parameters or type information, which tsyringe builds with a
  // plain `new`; what it returns is the instance, built from the resolving container.
  const Build = function (): object {
    const from = resolving;
    if (from === undefined) {
      // The app builds everything it serves when it is created; what is asked of its
      // container later was built already, unless the app has closed since.
      throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed; it builds nothing more');
    }
    return build((dependency) => from.resolve(dependency));
  } as unknown as new () => object;
  container.register(
    key,
    { useClass: Build },
    { lifecycle: scope === 'app' ? Lifecycle.Singleton : Lifecycle.ContainerScoped },
  );
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
