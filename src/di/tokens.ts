import 'reflect-metadata';
import { type Constructor } from '../core';
import { requireExperimentalDecorators } from '../decorators';

/**
 * A token for a value that has no class of its own (a configuration object, a
 * function). Compared by identity; the description names it in errors.
 */
export class InjectionToken<T = unknown> {
  /** Phantom member that carries `T`; never set. */
  declare readonly __type?: T;

  constructor(readonly description: string) {}

  toString(): string {
    return `InjectionToken(${this.description})`;
  }
}

/**
 * What a provider is registered under and a dependency asks for: a class (abstract
 * classes included), a string, a symbol, or an {@link InjectionToken}.
 */
export type Token<T = unknown> = Constructor<T> | InjectionToken<T> | string | symbol;

/** A token as errors name it: the class name, the string quoted, the symbol's description. */
export function tokenName(token: unknown): string {
  if (typeof token === 'function') return token.name === '' ? '<anonymous class>' : token.name;
  if (typeof token === 'string') return JSON.stringify(token);
  if (typeof token === 'symbol') return token.toString();
  if (token instanceof InjectionToken) return token.toString();
  return String(token);
}

/** True for a value usable as a token. */
export function isToken(value: unknown): value is Token {
  return (
    typeof value === 'function' ||
    typeof value === 'string' ||
    typeof value === 'symbol' ||
    value instanceof InjectionToken
  );
}

/** Where `@Inject` records its tokens on a class: read by `constructorTokens`. */
export const INJECT_KEY = 'io.github.christopherdavenport.agenttool/di:inject';
const SCOPE_KEY = 'io.github.christopherdavenport.agenttool/di:scope';

/**
 * How long a provider's instances live, and how many there are:
 * - `'app'` (the default): one per app, built when the app starts;
 * - `'session'`: one per client session, built on its first use in the session and
 *   closed when the session ends;
 * - `'transient'`: a new one for each injection (each constructor parameter or factory
 *   argument that names it), living as long as what it was injected into;
 * - `'resolution'`: one per resolution, as tsyringe's `Lifecycle.ResolutionScoped`:
 *   shared by everything built for one app- or session-scoped instance (or for one call
 *   of a tool built per call), a new one for the next.
 * A provider that injects a shorter-lived one is itself made as short-lived, as NestJS
 * bubbles request scope up: an app-scoped provider that needs a session-scoped one is
 * built per session (and reported when the app starts; see `ToolAppOptions.onScopeReport`).
 */
export type Scope = 'app' | 'session' | 'transient' | 'resolution';

/**
 * `@Inject(token)` on a constructor parameter: inject the provider of `token` there,
 * where the parameter's type cannot name it (an interface, a string or symbol token).
 * tsyringe's own `@inject(token)` works the same. It wins over the parameter's type; a
 * token that is `undefined` here (imported from a file still loading, in a circular
 * import) is a creation error, never a fallback to the type.
 */
export function Inject(token: Token): ParameterDecorator {
  return (target, _key, index) => {
    const existing = (Reflect.getOwnMetadata(INJECT_KEY, target) ?? {}) as Record<number, Token>;
    Reflect.defineMetadata(INJECT_KEY, { ...existing, [index]: token }, target);
  };
}

/** What `@Injectable` takes. */
export interface InjectableOptions {
  /**
   * `'session'`: one instance per client session; `'transient'`: one per injection;
   * `'resolution'`: one per resolution; default `'app'`, one per app. See {@link Scope}.
   */
  readonly scope?: Scope | undefined;
}

/**
 * `@Injectable()` on a provider class: makes TypeScript emit its constructor's
 * parameter types (any class decorator does; a class without one has none, so its
 * class dependencies cannot be found), and optionally sets its scope
 * (`{ scope: 'session' }`, `'transient'`, `'resolution'`). tsyringe's `@injectable()`,
 * `@singleton()` (app), `@scoped(Lifecycle.ContainerScoped)` (session) and
 * `@scoped(Lifecycle.ResolutionScoped)` (resolution) work as well, as does a class
 * tsyringe registered with `Lifecycle.Transient` (transient).
 */
export function Injectable(options: InjectableOptions = {}): ClassDecorator {
  return (target, ...rest: unknown[]) => {
    requireExperimentalDecorators('Injectable', rest[0]);
    const record: InjectableRecord = { scope: options.scope };
    Reflect.defineMetadata(SCOPE_KEY, record, target);
  };
}

interface InjectableRecord {
  readonly scope: Scope | undefined;
}

/** The scope a class stated with `@Injectable({ scope })`, if any. */
export function declaredScope(cls: object): Scope | undefined {
  return (Reflect.getOwnMetadata(SCOPE_KEY, cls) as InjectableRecord | undefined)?.scope;
}

/** True when the class carries `@Injectable` (its own, not an ancestor's). */
export function isInjectableClass(cls: object): boolean {
  return Reflect.hasOwnMetadata(SCOPE_KEY, cls);
}
