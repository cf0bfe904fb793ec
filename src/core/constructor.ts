/**
 * Any class, concrete or abstract: what the decorators are applied to and read from,
 * what a module lists as a tool or provider, and what a class token is. A constructor
 * of any arity is one (a parameter list of `never` accepts every list), so no `any`
 * is needed; code that builds an instance does so with `Reflect.construct`.
 */
export type Constructor<T = unknown> = abstract new (...args: never[]) => T;
