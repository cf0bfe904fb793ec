import {
  type AccessRequest,
  type Constructor,
  type Interceptor,
  type ProviderResolver,
  type ToolGuard,
} from '../core';
import { constructWithoutArguments } from './construct';
import { type InterceptorResolver } from './interceptors';

/**
 * A guard as NestJS writes one: an object (or an injectable class of it) whose
 * `canActivate` decides whether the caller may use a tool. Only `true` allows.
 */
export interface CanActivate {
  /** True (or a promise of true) lets the caller use the tool; anything else refuses. */
  canActivate(request: AccessRequest): boolean | Promise<boolean>;
}

/**
 * What `@Guard` and a module's `guards` take: a function, an object with
 * `canActivate`, or a class of such objects (built once; a `ToolApp` injects its
 * constructor's parameters).
 */
export type GuardLike = ToolGuard | CanActivate | Constructor<CanActivate>;

/** Makes the instance of a guard class (a `ToolApp` resolves it from its container). */
export type GuardResolver = (guard: Constructor<CanActivate>) => CanActivate;

/** How a tool is built from a class besides the class itself. */
export interface ToolBuildOptions {
  /**
   * The instance of each guard class the tool's `@Guard` names. Default: the class built
   * with `new` and no arguments, once per tool (a class whose constructor takes
   * parameters needs a `ToolApp`, which injects them).
   */
  readonly resolveGuard?: GuardResolver | undefined;
  /** Guards asked before the class's own (a module's `guards`). */
  readonly guards?: readonly ToolGuard[] | undefined;
  /**
   * Interceptors run around each call before the class's own `@UseInterceptors` (an
   * app's, then its modules'), the first outermost.
   */
  readonly interceptors?: readonly Interceptor[] | undefined;
  /**
   * The instance of each interceptor class the tool's `@UseInterceptors` names. Default:
   * the class built with `new` and no arguments, once per tool.
   */
  readonly resolveInterceptor?: InterceptorResolver | undefined;
  /**
   * How the interceptors of the class find providers (`context.resolve`); without it they
   * find none. (Those of `interceptors` bring their own, see `withResolver`.)
   */
  readonly resolveProvider?: ProviderResolver | undefined;
  /**
   * False when the host runs the interceptors itself (around the tool's `execute`, with
   * `toolInterceptors` and `runInterceptors`): the tool then runs none. Default true.
   */
  readonly intercept?: boolean | undefined;
}

/** The OAuth scope-token grammar (RFC 6749 §3.3): printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** True for a scope name OAuth can carry. */
export function isScopeToken(scope: unknown): scope is string {
  return typeof scope === 'string' && SCOPE_TOKEN.test(scope);
}

/** True for a guard class: a class whose instances have `canActivate`. */
export function isGuardClass(guard: unknown): guard is Constructor<CanActivate> {
  return (
    typeof guard === 'function' &&
    typeof (guard.prototype as Partial<CanActivate> | undefined)?.canActivate === 'function'
  );
}

/** Why `guard` is not one, or undefined when it is. */
export function guardProblem(guard: unknown): string | undefined {
  if (isGuardClass(guard)) return undefined;
  if (typeof guard === 'function') {
    return isClass(guard)
      ? `${guard.name || 'the class'} has no canActivate(request) method`
      : undefined;
  }
  if (typeof (guard as Partial<CanActivate> | null)?.canActivate === 'function') return undefined;
  return `${describe(guard)} is not a guard; give a function (request) => boolean, an object with canActivate(request), or a class of one`;
}

/**
 * The guards as functions, in order: a function as it is, an object's `canActivate`,
 * a class through `resolve` (by default built with `new`, which a class whose
 * constructor takes parameters cannot be: that is a `DecoratorError` naming the
 * tool class).
 */
export function guardFunctions(
  guards: readonly GuardLike[],
  owner: string,
  resolve: GuardResolver | undefined,
): ToolGuard[] {
  return guards.map((guard) => {
    let target: CanActivate;
    if (isGuardClass(guard)) {
      target = (resolve ?? construct(owner))(guard);
    } else if (typeof guard === 'function') {
      return guard;
    } else {
      target = guard;
    }
    return (request) => target.canActivate(request);
  });
}

function construct(owner: string): GuardResolver {
  return (guard) => constructWithoutArguments<CanActivate>(guard, owner, 'guard', '@Guard');
}

function isClass(fn: object): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return 'an object without canActivate';
  return typeof value === 'symbol' ? value.toString() : `${value as string | number}`;
}
