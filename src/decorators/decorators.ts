import {
  type Annotations as AnnotationsInit,
  type Replay as ReplayValue,
  type TaskMode,
} from '../core';
import { type GuardLike } from './guards';
import {
  type ConfinedFn,
  type ParamOptions,
  type ReplayFn,
  type ToolOptions,
  recordClass,
  recordParam,
} from './metadata';
import { requireExperimentalDecorators } from './experimental-only';

/** A class decorator that refuses to be applied as a standard (TC39) decorator. */
function classDecorator(name: string, record: (target: object) => void): ClassDecorator {
  return (target: object, ...rest: unknown[]) => {
    requireExperimentalDecorators(name, rest[0]);
    record(target);
  };
}

/**
 * Marks a field of an arguments class as an argument. The JSON name is the property
 * name; the type comes from `design:type` where that is enough (string, number,
 * boolean, Date, Uint8Array/Buffer, a nested arguments class) and from `options`
 * where it is not (arrays need `items`, maps need `values`, unions and `unknown` need
 * `type`). Problems are reported when the class is read, naming the class and field.
 */
export function Param(description?: string, options: ParamOptions = {}): PropertyDecorator {
  return (target: object, key: string | symbol, descriptor?: PropertyDescriptor) => {
    requireExperimentalDecorators('Param', key);
    // A static member's target is the class, an instance member's its prototype; an
    // accessor or a method comes with its descriptor. Each is recorded with the class's
    // fields, so that reading the class reports it instead of losing it.
    const isStatic = typeof target === 'function';
    const misplaced = isStatic
      ? 'static'
      : descriptor === undefined
        ? undefined
        : descriptor.get !== undefined || descriptor.set !== undefined
          ? 'accessor'
          : 'method';
    recordParam(isStatic ? (target as { prototype: object }).prototype : target, {
      key,
      description: description ?? '',
      options: { ...options },
      designType: Reflect.getMetadata('design:type', target, key) as unknown,
      ...(misplaced === undefined ? {} : { misplaced }),
    });
  };
}

/**
 * Marks a class as a tool: its name and description, its arguments class (absent for
 * a tool without arguments), and whether its schema is strict. The class needs an
 * `execute(args, ctx)` method; a `close()` method makes the tool a closer.
 */
export function Tool(options: ToolOptions): ClassDecorator {
  return classDecorator('Tool', (target) => recordClass(target, 'tool', { ...options }));
}

/** The tool's calls run alone, one at a time, in the model's order. */
export function Sequential(): ClassDecorator {
  return classDecorator('Sequential', (target) => recordClass(target, 'sequential', true));
}

/** Calls of tools naming the same resource run in the model's order ("" means none). */
export function Resource(name: string): ClassDecorator {
  return classDecorator('Resource', (target) => recordClass(target, 'resource', name));
}

/**
 * Per call, whether the tool runs confined and by what: a function of the call's
 * arguments (built and checked against the schema; class-validator does not run
 * here) answering `{confined, by}` or a boolean, or a constant sandbox name. When the
 * arguments are invalid the call is reported as not confined.
 */
export function Confined<A = never>(fn: ConfinedFn<A> | string): ClassDecorator {
  return classDecorator('Confined', (target) => recordClass(target, 'confined', fn));
}

/** MCP's behaviour hints; what is not stated reads as false through `annotationsOf`. */
export function Annotations(annotations: AnnotationsInit): ClassDecorator {
  return classDecorator('Annotations', (target) =>
    recordClass(target, 'annotations', { ...annotations }),
  );
}

/** Generate and serve a strict schema: every field required, unknown properties rejected. */
export function Strict(): ClassDecorator {
  return classDecorator('Strict', (target) => recordClass(target, 'strict', true));
}

/**
 * Whether re-running a call is safe: `'safe'`, `'keyed'` (dedups on the idempotency
 * key), or per call a function of the arguments. Unstated or invalid arguments read
 * as `'unknown'`.
 */
export function Replay<A = never>(
  replay: Exclude<ReplayValue, 'unknown'> | ReplayFn<A>,
): ClassDecorator {
  return classDecorator('Replay', (target) => recordClass(target, 'replay', replay));
}

/**
 * Whether the tool's calls run as tasks where the host can (an MCP client that takes the
 * tasks extension): `'optional'`, `'required'` or `'never'` (the default). With
 * `questionsFirst`, what the tool asks at its very start goes back with the call, before
 * the task begins.
 */
export function TaskSupport(
  mode: TaskMode,
  options: { readonly questionsFirst?: boolean } = {},
): ClassDecorator {
  return (target) =>
    recordClass(target, 'taskSupport', { mode, questionsFirst: options.questionsFirst === true });
}

/**
 * The OAuth scopes a caller's token must all carry to use the tool. A caller without
 * them does not see the tool in its list, and calling it is refused as if it did not
 * exist. A caller without credentials (stdio, a server without authorization) holds no
 * scopes. Annotations never stand in for a scope.
 */
export function Scopes(...scopes: string[]): ClassDecorator {
  return classDecorator('Scopes', (target) => recordClass(target, 'scopes', [...scopes]));
}

/**
 * Guards that must all allow the caller, asked in order after `@Scopes`: functions
 * `(request) => boolean`, objects with `canActivate(request)`, or classes of them (a
 * `ToolApp` builds a guard class with its injected dependencies, as NestJS does). A
 * tool a guard refuses is left out of the caller's list and refused when called.
 */
export function Guard(...guards: GuardLike[]): ClassDecorator {
  return classDecorator('Guard', (target) => recordClass(target, 'guards', [...guards]));
}
