import {
  type Constructor,
  type Interceptor,
  type InterceptorFunction,
  interceptorName,
} from '../core';
import { requireExperimentalDecorators } from './experimental-only';
import { constructWithoutArguments } from './construct';
import { recordClass } from './metadata';

/**
 * What `@UseInterceptors`, a module's `interceptors` and an app's take: an object with
 * `intercept(context, next)`, a function of the two, or a class of such objects (built
 * once; a `ToolApp` injects its constructor's parameters, as NestJS does).
 */
export type InterceptorLike = Interceptor | InterceptorFunction | Constructor<Interceptor>;

/** Makes the instance of an interceptor class (a `ToolApp` resolves it from its container). */
export type InterceptorResolver = (interceptor: Constructor<Interceptor>) => Interceptor;

/** True for an interceptor class: a class whose instances have `intercept`. */
export function isInterceptorClass(value: unknown): value is Constructor<Interceptor> {
  return (
    typeof value === 'function' &&
    typeof (value.prototype as Partial<Interceptor> | undefined)?.intercept === 'function'
  );
}

/** Why `value` is not an interceptor, or undefined when it is one. */
export function interceptorProblem(value: unknown): string | undefined {
  if (isInterceptorClass(value)) return undefined;
  if (typeof value === 'function') {
    return /^class[\s{]/.test(Function.prototype.toString.call(value))
      ? `${value.name || 'the class'} has no intercept(context, next) method`
      : undefined;
  }
  if (typeof (value as Partial<Interceptor> | null)?.intercept === 'function') return undefined;
  return `${describe(value)} is not an interceptor; give an object with intercept(context, next), a function (context, next) => result, or a class of one`;
}

/**
 * `@UseInterceptors(...)` runs interceptors around each call of the tool class, after
 * the interceptors of its app and its modules, in the order given (the first outermost):
 * objects with `intercept(context, next)`, functions, or classes of them (a `ToolApp`
 * builds a class with its injected dependencies, once). They run once the call is let
 * through: after its guards, and after its arguments are validated.
 */
export function UseInterceptors(...interceptors: InterceptorLike[]): ClassDecorator {
  return (target: object, ...rest: unknown[]) => {
    requireExperimentalDecorators('UseInterceptors', rest[0]);
    recordClass(target, 'interceptors', [...interceptors]);
  };
}

/** The declared interceptors of a tool class, checked: every problem in `problems`. */
export function interceptorsOf(
  declared: unknown,
  where: string,
  problems: string[],
): readonly InterceptorLike[] {
  if (declared === undefined) return Object.freeze([]);
  const list = declared as readonly unknown[];
  if (list.length === 0) problems.push(`${where}: @UseInterceptors needs at least one interceptor`);
  list.forEach((value, i) => {
    const problem = interceptorProblem(value);
    if (problem !== undefined) {
      problems.push(`${where}: @UseInterceptors' interceptor #${i}: ${problem}`);
    }
  });
  return Object.freeze([...(list as InterceptorLike[])]);
}

/**
 * The interceptors as objects, in order: an object as it is, a function as the object of
 * its `intercept`, a class through `resolve` (by default built with `new`, which a class
 * whose constructor takes parameters cannot be: that is a {@link DecoratorError} naming
 * `owner`).
 */
export function interceptorObjects(
  interceptors: readonly InterceptorLike[],
  owner: string,
  resolve: InterceptorResolver | undefined,
): Interceptor[] {
  return interceptors.map((interceptor) => {
    if (isInterceptorClass(interceptor)) return (resolve ?? construct(owner))(interceptor);
    if (typeof interceptor !== 'function') return interceptor;
    const intercept: InterceptorFunction = (context, next) => interceptor(context, next);
    Object.defineProperty(intercept, 'name', { value: interceptorName(interceptor) });
    return { intercept };
  });
}

function construct(owner: string): InterceptorResolver {
  return (interceptor) =>
    constructWithoutArguments<Interceptor>(interceptor, owner, 'interceptor', '@UseInterceptors');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return 'an object without intercept';
  return typeof value === 'symbol' ? value.toString() : `${value as string | number}`;
}
