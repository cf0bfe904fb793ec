import { type Constructor } from '../core';
import { INJECT_KEY, isToken, type Token } from './tokens';
import { tsyringeParameters } from './tsyringe-adapter';

// What a constructor takes, read from our `@Inject`, tsyringe's decorators and the types
// TypeScript emitted: apart from tokens.ts, which the tsyringe adapter builds on.

/** One constructor parameter: the token to inject, or undefined when nothing names one. */
export interface ParameterToken {
  readonly index: number;
  readonly token: Token | undefined;
  /** tsyringe's `@inject(token, { isOptional: true })`: inject undefined when nothing provides it. */
  readonly optional?: boolean;
  /** A tsyringe decorator modules cannot honour (`@injectAll`, `@injectWithTransform`). */
  readonly unsupported?: string | undefined;
  /**
   * True when TypeScript emitted no parameter types for the class at all: compiled
   * without `emitDecoratorMetadata` (or by a tool that never emits them), or a class
   * without a decorator. Tells that cause apart from a type that names no token.
   */
  readonly typesMissing?: boolean;
  /**
   * Where `undefined` stood for the token, which is what a class or token imported from
   * a file still loading is (a circular import of files): given to `@Inject` (or
   * tsyringe's `@inject`, or a factory's `inject`), or emitted as the parameter's type.
   */
  readonly undefinedAt?: 'inject' | 'type';
  /** The ancestor that declared the constructor, when the class inherits it. */
  readonly declaredBy?: string;
}

const NOT_A_TOKEN: ReadonlySet<unknown> = new Set<unknown>([
  Object,
  String,
  Number,
  Boolean,
  Array,
  Function,
  Promise,
]);

/**
 * The class whose constructor `cls` runs, as far as its metadata tells (a class that
 * declares no constructor runs its nearest ancestor's, and its own `length` is 0): the
 * nearest of `cls` and its ancestors with emitted parameter types; without any (compiled
 * without `emitDecoratorMetadata`), the nearest that records parameter tokens (`@Inject`,
 * tsyringe's) or takes parameters; `cls` itself when none does.
 */
function constructorOwner(cls: Constructor): Constructor {
  const chain: Constructor[] = [];
  for (let at: unknown = cls; typeof at === 'function' && at !== Function.prototype;) {
    chain.push(at as Constructor);
    at = Object.getPrototypeOf(at);
  }
  const typed = chain.find((at) => Reflect.hasOwnMetadata('design:paramtypes', at));
  if (typed !== undefined) return typed;
  const declaring = chain.find(
    (at) =>
      Reflect.hasOwnMetadata(INJECT_KEY, at) || tsyringeParameters(at).size > 0 || at.length > 0,
  );
  return declaring ?? cls;
}

/**
 * The tokens of a class's constructor parameters (those of the constructor it inherits,
 * when it declares none): `@Inject` (ours or tsyringe's) wins,
 * else the emitted parameter type when it is a class other than `Object` (which is what
 * TypeScript emits for interfaces, unions and primitives' wrappers it cannot name). How
 * many there are comes from the emitted types of the class that declared the
 * constructor, found through the prototype chain, or from that constructor's `length`
 * when no types were emitted.
 */
export function constructorTokens(cls: Constructor): ParameterToken[] {
  const declaring = constructorOwner(cls);
  const emitted = Reflect.getOwnMetadata('design:paramtypes', declaring) as unknown[] | undefined;
  const types = emitted ?? [];
  const ours = (Reflect.getOwnMetadata(INJECT_KEY, declaring) ?? {}) as Record<number, Token>;
  const theirs = tsyringeParameters(declaring);
  const count = Math.max(
    emitted === undefined ? declaring.length : emitted.length,
    ...Object.keys(ours).map((k) => Number(k) + 1),
    ...[...theirs.keys()].map((k) => k + 1),
  );
  const inherited = declaring === cls ? {} : { declaredBy: declaring.name };
  const tokens: ParameterToken[] = [];
  const push = (parameter: ParameterToken): void =>
    void tokens.push({ ...parameter, ...inherited });
  for (let index = 0; index < count; index++) {
    // `in`, not `!== undefined`: @Inject(undefined) is a token imported too early.
    if (index in ours) {
      const own = ours[index];
      push(
        own === undefined ? { index, token: own, undefinedAt: 'inject' } : { index, token: own },
      );
      continue;
    }
    const tsyringe = theirs.get(index);
    if (tsyringe !== undefined) {
      const token = isToken(tsyringe.token) ? tsyringe.token : undefined;
      push({
        index,
        token,
        optional: tsyringe.optional,
        unsupported: tsyringe.unsupported,
        ...(tsyringe.token === undefined ? { undefinedAt: 'inject' as const } : {}),
      });
      continue;
    }
    const type = types[index];
    if (typeof type === 'function' && !NOT_A_TOKEN.has(type)) {
      push({ index, token: type as Constructor });
    } else if (emitted !== undefined && index < emitted.length && type === undefined) {
      push({ index, token: undefined, undefinedAt: 'type' });
    } else {
      push({ index, token: undefined, typesMissing: emitted === undefined });
    }
  }
  return tokens;
}
