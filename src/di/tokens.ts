import 'reflect-metadata';

/** Any class that can be constructed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- constructors of any arity
export type Constructor<T = unknown> = new (...args: any[]) => T;

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
 * What a provider is registered under and a dependency asks for: a class, a string, a
 * symbol, or an {@link InjectionToken}.
 */
export type Token<T = unknown> =
  Constructor<T> | AbstractConstructor<T> | InjectionToken<T> | string | symbol;

/** An abstract class, usable as a token for its concrete provider. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- constructors of any arity
export type AbstractConstructor<T = unknown> = abstract new (...args: any[]) => T;

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

const INJECT_KEY = 'io.github.christopherdavenport.agenttool/di:inject';
const SCOPE_KEY = 'io.github.christopherdavenport.agenttool/di:scope';
// tsyringe's own key for @inject(): honoured so tsyringe-decorated classes work as they are.
const TSYRINGE_INJECT_KEY = 'injectionTokens';

/**
 * Where a provider's instance lives: one per app (the default), or one per client
 * session (created on first use in the session, closed when it ends).
 */
export type Scope = 'app' | 'session';

/**
 * `@Inject(token)` on a constructor parameter: inject the provider of `token` there,
 * where the parameter's type cannot name it (an interface, a string or symbol token).
 */
export function Inject(token: Token): ParameterDecorator {
  return (target, _key, index) => {
    const existing = (Reflect.getOwnMetadata(INJECT_KEY, target) ?? {}) as Record<number, Token>;
    Reflect.defineMetadata(INJECT_KEY, { ...existing, [index]: token }, target);
  };
}

/**
 * `@Injectable()` on a provider class: makes TypeScript emit its constructor's
 * parameter types, and optionally sets its scope (`{ scope: 'session' }`).
 */
export function Injectable(options: { scope?: Scope } = {}): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(SCOPE_KEY, options.scope ?? 'app', target);
  };
}

/** The scope a class declared with `@Injectable`, if any. */
export function declaredScope(cls: object): Scope | undefined {
  return Reflect.getOwnMetadata(SCOPE_KEY, cls) as Scope | undefined;
}

/** One constructor parameter: the token to inject, or undefined when nothing names one. */
export interface ParameterToken {
  readonly index: number;
  readonly token: Token | undefined;
  /**
   * True when TypeScript emitted no parameter types for the class at all: compiled
   * without `emitDecoratorMetadata` (or by a tool that never emits them), or a class
   * without a decorator. Tells that cause apart from a type that names no token.
   */
  readonly typesMissing?: boolean;
}

/**
 * The tokens of a class's constructor parameters: `@Inject` (ours or tsyringe's) wins,
 * else the emitted parameter type when it is a class other than `Object` (which is what
 * TypeScript emits for interfaces, unions and primitives' wrappers it cannot name).
 */
export function constructorTokens(cls: Constructor): ParameterToken[] {
  const emitted = Reflect.getMetadata('design:paramtypes', cls) as unknown[] | undefined;
  const types = emitted ?? [];
  const ours = (Reflect.getOwnMetadata(INJECT_KEY, cls) ?? {}) as Record<number, Token>;
  const theirs = (Reflect.getOwnMetadata(TSYRINGE_INJECT_KEY, cls) ?? {}) as Record<
    number,
    unknown
  >;
  const count = Math.max(types.length, cls.length, ...Object.keys(ours).map((k) => Number(k) + 1));
  const tokens: ParameterToken[] = [];
  for (let index = 0; index < count; index++) {
    const explicit = ours[index] ?? tsyringeToken(theirs[index]);
    if (explicit !== undefined) {
      tokens.push({ index, token: explicit });
      continue;
    }
    const type = types[index];
    const usable =
      typeof type === 'function' &&
      type !== Object &&
      type !== String &&
      type !== Number &&
      type !== Boolean &&
      type !== Array &&
      type !== Function &&
      type !== Promise;
    if (usable) tokens.push({ index, token: type as Constructor });
    else tokens.push({ index, token: undefined, typesMissing: emitted === undefined });
  }
  return tokens;
}

function tsyringeToken(entry: unknown): Token | undefined {
  if (entry === undefined) return undefined;
  if (isToken(entry)) return entry;
  if (typeof entry === 'object' && entry !== null && 'token' in entry) {
    const token = entry.token;
    return isToken(token) ? token : undefined;
  }
  return undefined;
}
