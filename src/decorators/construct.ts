import { type Constructor } from '../core';
import { DecoratorError } from './errors';

/**
 * An instance of `cls` built with `new` and no arguments, as a tool class outside an app
 * has its guard and interceptor classes built; a class whose constructor takes
 * parameters is a {@link DecoratorError} naming the tool class `owner`.
 */
export function constructWithoutArguments<T>(
  cls: Constructor<T>,
  owner: string,
  kind: string,
  decorator: string,
): T {
  if (cls.length > 0) {
    throw new DecoratorError('tool class', owner, [
      `${owner}: ${kind} ${cls.name}'s constructor takes parameters; serve the tool from a ToolApp (it injects them), or give ${decorator} an instance`,
    ]);
  }
  return Reflect.construct(cls, []) as T;
}
