import {
  type Call,
  type Confinement,
  type Constructor,
  copyJson,
  currentContext,
  type Interceptor,
  type Replay,
  type Result,
  isResult,
  runInterceptors,
  runWithContext,
  structuredResult,
  type Tool,
  type ToolContext,
  toolFailure,
  toResult,
} from '../core';
import { type ToolDescriptor, toolDescriptorOf } from './descriptor';
import { DecoratorError } from './errors';
import { guardFunctions, type ToolBuildOptions } from './guards';
import { interceptorObjects } from './interceptors';

interface ToolInstance {
  execute(args: object, ctx: ToolContext): unknown;
  close?(): unknown;
}

/**
 * A core `Tool` around an instance of a `@Tool` class. Its parameters are the
 * generated schema (the no-arguments schema without an arguments class), or the
 * `parameters` its `@Tool` gives, verbatim. `execute` runs the argument pipeline
 * (validation skipped for `validate: false` and for given `parameters`), then
 * `instance.execute(args, ctx)` with the current call context installed, and converts
 * what it returns with `toResult` (for a tool with an output class, an object it
 * returns is a structured result, made by `structuredResult`, and the tool declares the
 * class's `outputSchema`); invalid arguments throw the contract's
 * `ValidationError`, a tool's own error propagates as is, and a programming fault
 * becomes a `PanicError`. A tool whose arguments are validated this way says so
 * (`validatesArguments: true`), so a host need not check them again. The per-call
 * readers (`@Confined`, `@Replay`) receive the arguments checked against the schema
 * (class-validator does not run there) and answer the defaults when they are invalid.
 * A `close()` method makes the tool a closer. `@Scopes` and `@Guard` become the tool's
 * `access` (a guard class built as `options.resolveGuard` says, after `options.guards`).
 * Interceptors (`options.interceptors`, then `@UseInterceptors`) run around each call
 * once its arguments are validated, inside the one conversion of its failures: what they
 * throw fails the call as the tool's own error would.
 * Every problem of the class is thrown at once, here, never at call time.
 */
export function toolFromInstance(instance: object, options: ToolBuildOptions = {}): Tool {
  if (typeof instance !== 'object' || instance === null) {
    throw new DecoratorError('tool instance', String(instance), [
      'toolFromInstance takes an instance of a @Tool class; construct the class first',
    ]);
  }
  const target = instance as ToolInstance;
  const descriptor = toolDescriptorOf(instance.constructor as Constructor);
  const tool = toolOf(descriptor, (args, ctx) => target.execute(args, ctx), options);
  if (typeof target.close === 'function') {
    tool.close = async () => {
      await target.close?.();
    };
  }
  return tool;
}

/**
 * A core `Tool` of a `@Tool` class whose instance is found per call: `instanceFor(ctx)`
 * gives (or resolves to) the instance that serves the call, so one tool can serve
 * each session with an instance of its own. It is never a closer: whoever makes the
 * instances closes them. Otherwise as {@link toolFromInstance}.
 */
export function classTool(
  cls: Constructor,
  instanceFor: (ctx: ToolContext) => object | Promise<object>,
  options: ToolBuildOptions = {},
): Tool {
  return toolOf(
    toolDescriptorOf(cls),
    async (args, ctx) => {
      const instance = (await instanceFor(ctx)) as ToolInstance;
      return instance.execute(args, ctx);
    },
    options,
  );
}

/**
 * The interceptors a tool of `cls` runs around each call, in order: `options.interceptors`
 * (an app's, then its modules'), then the class's own `@UseInterceptors`, a class among them
 * built as `options.resolveInterceptor` says. For a host that runs them itself (see
 * `ToolBuildOptions.intercept`) with `runInterceptors`.
 */
export function toolInterceptors(cls: Constructor, options: ToolBuildOptions = {}): Interceptor[] {
  const descriptor = toolDescriptorOf(cls);
  return [
    ...(options.interceptors ?? []),
    ...interceptorObjects(descriptor.properties.interceptors, cls.name, options.resolveInterceptor),
  ];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function toolOf(
  descriptor: ToolDescriptor,
  invoke: (args: object, ctx: ToolContext) => unknown,
  options: ToolBuildOptions,
): Mutable<Tool> {
  const { name, properties, output } = descriptor;
  const { decode, decodeValue, check } = descriptor.arguments;
  const convert = output === undefined ? toResult : (value: unknown) => structured(value, output);

  const interceptors = options.intercept === false ? [] : toolInterceptors(descriptor.cls, options);
  const chain = interceptors.length === 0 ? undefined : interceptors;
  const resolveProvider = options.resolveProvider;

  const run = async (call: Call, ctx: ToolContext): Promise<Result> => {
    try {
      // A harness that has the arguments decoded hands them over; nothing to parse then.
      const args = call.value === undefined ? decode(call.args) : decodeValue(call.value);
      if (check !== undefined) await check(args);
      if (chain !== undefined) {
        // Guards were asked and the arguments checked: the interceptors come after both.
        const parts = {
          tool,
          toolClass: descriptor.cls,
          call,
          args,
          ctx,
          resolve: resolveProvider,
        };
        return await runInterceptors(chain, parts, async (current) =>
          convert(await invoke(args, current)),
        );
      }
      const returned = invoke(args, ctx);
      // Most tools return at once; awaiting a plain value would cost a promise and a turn.
      return convert(isThenable(returned) ? await returned : returned);
    } catch (error) {
      throw toolFailure(name, error);
    }
  };

  const tool: Mutable<Tool> = {
    name,
    description: descriptor.description,
    // The descriptor's schemas are plain JSON this package made or copied already.
    parameters: copyJson(descriptor.parameters),
    execute: (call, ctx) =>
      currentContext() === ctx ? run(call, ctx) : runWithContext(ctx, () => run(call, ctx)),
  };
  if (descriptor.validatesArguments) tool.validatesArguments = true;
  if (descriptor.outputSchema !== undefined) {
    tool.outputSchema = copyJson(descriptor.outputSchema);
  }
  if (properties.strict) tool.strict = true;
  if (properties.sequential) tool.sequential = true;
  if (properties.resource !== undefined) tool.resource = properties.resource;
  if (properties.annotations !== undefined) tool.annotations = { ...properties.annotations };
  if (properties.taskSupport !== undefined) tool.taskSupport = properties.taskSupport;
  const guards = [
    ...(options.guards ?? []),
    ...guardFunctions(properties.guards, descriptor.cls.name, options.resolveGuard),
  ];
  if (properties.scopes.length > 0 || guards.length > 0) {
    tool.access = Object.freeze({
      scopes: properties.scopes,
      guards: Object.freeze(guards),
    });
  }
  const { confined, replay } = properties;
  if (confined !== undefined) {
    tool.confined = (raw, ctx): Confinement => {
      const args = tryDecode(decode, raw);
      return args === undefined ? { confined: false, by: '' } : confined(args as never, ctx);
    };
  }
  if (replay !== undefined) {
    tool.replay = (raw, ctx): Replay => {
      const args = tryDecode(decode, raw);
      return args === undefined ? 'unknown' : replay(args as never, ctx);
    };
  }
  return tool;
}

/**
 * What a tool with an output class returned, as its result: an instance of the class,
 * or any other object that is not a `Result`, is a structured result (its JSON the
 * output); a `Result`, a string, content parts and nothing convert as for any tool.
 */
function structured(value: unknown, output: Constructor): Result {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    if (value instanceof output || !isResult(value)) return structuredResult(value);
  }
  return toResult(value);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function tryDecode(decode: (raw: string) => object, raw: string): object | undefined {
  try {
    return decode(raw);
  } catch {
    return undefined;
  }
}
