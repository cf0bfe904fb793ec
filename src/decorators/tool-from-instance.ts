import {
  type Call,
  type Confinement,
  currentContext,
  type Replay,
  type Result,
  runWithContext,
  type Tool as CoreTool,
  type ToolContext,
  toolFailure,
  toResult,
} from '../core';
import { parametersPipeline, pipelineOf } from './arguments';
import { DecoratorError } from './errors';
import { type Constructor } from './metadata';
import { type ToolMetadata, toolPlan } from './tool-reader';

interface ToolInstance {
  execute(args: object, ctx: ToolContext): unknown;
  close?(): unknown;
}

/**
 * Everything the decorators say about a tool class: name, description, arguments
 * class, argument fields and optional properties. Throws a {@link DecoratorError}
 * (code `INVALID_DECORATOR`) naming the class and listing every problem.
 */
export function toolMetadataOf(cls: Constructor): ToolMetadata {
  const plan = toolPlan(cls);
  if (plan.problems.length > 0 || plan.metadata === undefined) {
    throw new DecoratorError('tool class', cls.name, plan.problems);
  }
  return plan.metadata;
}

/**
 * A core `Tool` around an instance of a `@Tool` class. Its parameters are the
 * generated schema (the no-arguments schema without an arguments class), or the
 * `parameters` its `@Tool` gives, verbatim. `execute` runs the argument pipeline
 * (validation skipped for `validate: false` and for given `parameters`), then `instance.execute(args, ctx)` with the current call
 * context installed, and converts what it returns with `toResult`; invalid arguments
 * throw the contract's `ValidationError`, a tool's own error propagates as is, and a
 * programming fault becomes a `PanicError`. The per-call readers (`@Confined`,
 * `@Replay`) receive the arguments checked against the schema (class-validator does not
 * run there) and answer the defaults when they are invalid. A `close()` method makes
 * the tool a closer. Every problem of the class is thrown at once, here, never at
 * call time.
 */
export function toolFromInstance(instance: object): CoreTool {
  if (typeof instance !== 'object' || instance === null) {
    throw new DecoratorError('tool instance', String(instance), [
      'toolFromInstance takes an instance of a @Tool class; construct the class first',
    ]);
  }
  const cls = instance.constructor as Constructor;
  const metadata = toolMetadataOf(cls);
  const target = instance as ToolInstance;
  const { name, properties } = metadata;
  const argsClass = metadata.args as Constructor<object> | undefined;
  const pipeline =
    metadata.parameters !== undefined
      ? parametersPipeline(argsClass, metadata.parameters)
      : pipelineOf(argsClass, properties.strict, metadata.validate ? 'validated' : 'unvalidated');
  const { decode, decodeValue, check } = pipeline;

  const run = async (call: Call, ctx: ToolContext): Promise<Result> => {
    try {
      // A harness that has the arguments decoded hands them over; nothing to parse then.
      const args = call.value === undefined ? decode(call.args) : decodeValue(call.value);
      if (check !== undefined) await check(args);
      const returned = target.execute(args, ctx);
      // Most tools return at once; awaiting a plain value would cost a promise and a turn.
      return toResult(isThenable(returned) ? await returned : returned);
    } catch (error) {
      throw toolFailure(name, error);
    }
  };

  const tool: { -readonly [K in keyof CoreTool]: CoreTool[K] } = {
    name,
    description: metadata.description,
    parameters: structuredClone(pipeline.parameters),
    execute: (call, ctx) =>
      currentContext() === ctx ? run(call, ctx) : runWithContext(ctx, () => run(call, ctx)),
  };
  if (properties.strict) tool.strict = true;
  if (properties.sequential) tool.sequential = true;
  if (properties.resource !== undefined) tool.resource = properties.resource;
  if (properties.annotations !== undefined) tool.annotations = { ...properties.annotations };
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
  if (typeof target.close === 'function') {
    tool.close = async () => {
      await target.close?.();
    };
  }
  return tool;
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
