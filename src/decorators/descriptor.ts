import {
  type Annotations,
  type Confinement,
  type Constructor,
  definitionHash,
  isJsonObject,
  type JsonObject,
  type Replay,
  type TaskMode,
  type TaskSupport,
  type ToolContext,
  toolNameProblem,
} from '../core';
import { type ArgumentsPipeline, argumentsOf, parametersPipeline } from './arguments';
import { notAClass } from './built-in-types';
import { type FieldPlan } from './class-plan';
import { DecoratorError } from './errors';
import { type GuardLike, guardProblem, isScopeToken } from './guards';
import { type InterceptorLike, interceptorsOf } from './interceptors';
import { ownDuplicates, readClass } from './metadata';
import { buildOutputSchema } from './output';

/** What a per-call reader of the tool's class answers from. */
export type PerCall<T> = (args: never, ctx: ToolContext) => T;

/** A tool class's optional properties as its decorators declare them (absent: unstated). */
export interface ToolProperties {
  readonly strict: boolean;
  readonly sequential: boolean;
  readonly resource: string | undefined;
  readonly annotations: Annotations | undefined;
  readonly confined: PerCall<Confinement> | undefined;
  readonly replay: PerCall<Replay> | undefined;
  /** The scopes `@Scopes` requires of a caller (empty: none). */
  readonly scopes: readonly string[];
  /** The guards `@Guard` names, in order (empty: none). */
  readonly guards: readonly GuardLike[];
  /** The interceptors `@UseInterceptors` names, in order (empty: none). */
  readonly interceptors: readonly InterceptorLike[];
  /** What `@TaskSupport` declares (absent: never). */
  readonly taskSupport: TaskSupport | undefined;
}

/**
 * Everything a `@Tool` class is, read and built once per class: what its decorators
 * say, its served schema, and the pipeline its calls' arguments go through. Every tool
 * made from the class (one per instance, or per session) shares it. Immutable; the
 * validator and the instantiator inside `arguments` are compiled on the first call.
 */
export interface ToolDescriptor {
  /** The tool class. */
  readonly cls: Constructor;
  readonly name: string;
  readonly description: string;
  /** The arguments class; undefined for a tool without arguments. */
  readonly args: Constructor | undefined;
  /** The argument fields, ancestors first (empty without an arguments class). */
  readonly fields: readonly FieldPlan[];
  /**
   * The parameters schema as served, deep-frozen: generated from the arguments class
   * (the no-arguments schema without one), or given verbatim by `@Tool({ parameters })`
   * or a static `jsonSchema()`.
   */
  readonly parameters: JsonObject;
  /**
   * The definition hash (RFC 0001: `sha256:` over the canonical name, description,
   * parameters and strict) of every tool made from the class; computed on first read.
   */
  readonly definitionHash: string;
  /**
   * True when a call's arguments are validated against `parameters` before `execute`
   * runs (the tools made from the class then say `validatesArguments`); false with
   * `@Tool({ validate: false })`, `@Tool({ parameters })` and a supplied schema, where
   * the arguments are only decoded.
   */
  readonly validatesArguments: boolean;
  /** Raw arguments → the instance `execute` receives: validated, built, class-validator run. */
  readonly arguments: ArgumentsPipeline;
  /** The optional properties the decorators declare. */
  readonly properties: ToolProperties;
  /** The class of the structured result (`@Tool({ output })`); undefined without one. */
  readonly output: Constructor | undefined;
  /**
   * The output schema generated from the output class, deep-frozen (non-strict, outside
   * the definition and its hash); undefined for a tool without an output class.
   */
  readonly outputSchema: JsonObject | undefined;
}

/** A class's descriptor, or every problem found reading it. */
type Read =
  | { readonly descriptor: ToolDescriptor; readonly problems: readonly [] }
  | { readonly descriptor: undefined; readonly problems: readonly string[] };

// The one memo of tool classes: each read and built once.
const descriptors = new WeakMap<Constructor, Read>();

/** True when the class (or an ancestor) carries `@Tool`. */
export function isToolClass(cls: unknown): cls is Constructor {
  return typeof cls === 'function' && readClass(cls as Constructor, 'tool') !== undefined;
}

/**
 * The descriptor of a `@Tool` class, built on first use. Throws a {@link
 * DecoratorError} (code `INVALID_DECORATOR`) naming the class and listing every problem
 * of it and of its arguments classes.
 */
export function toolDescriptorOf(cls: Constructor): ToolDescriptor {
  let read = descriptors.get(cls);
  if (read === undefined) {
    read = readTool(cls);
    descriptors.set(cls, read);
  }
  if (read.descriptor === undefined)
    throw new DecoratorError('tool class', cls.name, read.problems);
  return read.descriptor;
}

function readTool(cls: Constructor): Read {
  const problems: string[] = [];
  const where = cls.name;
  for (const kind of ownDuplicates(cls)) {
    problems.push(`${where}: @${decoratorName(kind)} is applied twice; keep one`);
  }
  const options = readClass(cls, 'tool');
  if (options === undefined) {
    problems.push(
      `${where}: the class has no @Tool decorator; add @Tool({ name, description, args })`,
    );
    return { descriptor: undefined, problems };
  }
  if (typeof options.name !== 'string' || options.name.trim() === '') {
    problems.push(`${where}: @Tool needs a non-empty name`);
  } else {
    const nameProblem = toolNameProblem(options.name);
    if (nameProblem !== undefined) problems.push(`${where}: @Tool name ${nameProblem}`);
  }
  if (options.description !== undefined && typeof options.description !== 'string') {
    problems.push(`${where}: @Tool description must be a string`);
  }
  if (typeof (cls.prototype as { execute?: unknown }).execute !== 'function') {
    problems.push(`${where}: a tool class needs an execute(args, ctx) method`);
  }
  const args = options.args;
  const argsProblem = args === undefined ? undefined : classProblem(args, 'args', 'arguments');
  if (argsProblem !== undefined) problems.push(`${where}: ${argsProblem}`);
  const argsClass = argsProblem === undefined ? args : undefined;
  const strict = options.strict === true || readClass(cls, 'strict') === true;
  if (options.validate !== undefined && typeof options.validate !== 'boolean') {
    problems.push(`${where}: @Tool validate must be true or false`);
  }
  const parameters = options.parameters;
  if (parameters !== undefined && !isJsonObject(parameters)) {
    problems.push(`${where}: @Tool parameters must be a JSON Schema object`);
  }
  let pipeline: ArgumentsPipeline | undefined;
  if (isJsonObject(parameters)) {
    // Served parameters replace the generated schema: the class is not read for one.
    pipeline = parametersPipeline(argsClass, parameters);
  } else {
    const mode = options.validate === false ? 'unvalidated' : 'validated';
    const built = argumentsOf(argsClass, strict, mode);
    problems.push(...built.problems);
    pipeline = built.pipeline;
  }
  const output = options.output;
  let outputSchema: JsonObject | undefined;
  const outputProblem = output === undefined ? undefined : classProblem(output, 'output', 'output');
  if (outputProblem !== undefined) problems.push(`${where}: ${outputProblem}`);
  else if (output !== undefined) outputSchema = buildOutputSchema(output, problems);
  const resource = readClass(cls, 'resource');
  if (resource !== undefined && typeof resource !== 'string') {
    problems.push(`${where}: @Resource takes a resource name (a string)`);
  }
  const annotations = readClass(cls, 'annotations');
  if (annotations !== undefined && (typeof annotations !== 'object' || annotations === null)) {
    problems.push(`${where}: @Annotations takes an object`);
  }
  const confined = confinedOf(readClass(cls, 'confined'), where, problems);
  const replay = replayOf(readClass(cls, 'replay'), where, problems);
  const scopes = scopesOf(readClass(cls, 'scopes'), where, problems);
  const guards = guardsOf(readClass(cls, 'guards'), where, problems);
  const interceptors = interceptorsOf(readClass(cls, 'interceptors'), where, problems);
  const taskSupport = readClass(cls, 'taskSupport');
  const taskMode = taskSupport?.mode;
  if (
    taskMode !== undefined &&
    taskMode !== 'never' &&
    taskMode !== 'optional' &&
    taskMode !== 'required'
  ) {
    problems.push(`${where}: @TaskSupport takes 'never', 'optional' or 'required'`);
  }
  if (problems.length > 0 || pipeline === undefined) return { descriptor: undefined, problems };

  const name = options.name;
  const description = typeof options.description === 'string' ? options.description : '';
  const served = pipeline;
  let hash: string | undefined;
  const descriptor: ToolDescriptor = {
    cls,
    name,
    description,
    args: argsClass,
    fields: served.fields,
    parameters: served.parameters,
    get definitionHash() {
      hash ??= definitionHash({
        type: 'function',
        name,
        description,
        parameters: served.parameters,
        ...(strict ? { strict: true } : {}),
      });
      return hash;
    },
    validatesArguments: served.validates,
    arguments: served,
    properties: Object.freeze({
      strict,
      sequential: readClass(cls, 'sequential') === true,
      resource: typeof resource === 'string' ? resource : undefined,
      annotations: annotations === undefined ? undefined : Object.freeze({ ...annotations }),
      confined,
      replay,
      scopes,
      guards,
      interceptors,
      taskSupport:
        taskSupport === undefined
          ? undefined
          : Object.freeze({
              mode: taskMode as TaskMode,
              questionsFirst: taskSupport.questionsFirst,
            }),
    }),
    output: typeof output === 'function' ? output : undefined,
    outputSchema,
  };
  return { descriptor: Object.freeze(descriptor), problems: [] };
}

/** What is wrong with `@Tool`'s `args` or `output` as a class of `@Param` fields, if anything. */
function classProblem(
  value: unknown,
  option: 'args' | 'output',
  what: 'arguments' | 'output',
): string | undefined {
  if (typeof value !== 'function') return `@Tool ${option} must be a class`;
  const notOne = notAClass(value);
  if (notOne === undefined) return undefined;
  return notOne === 'no prototype'
    ? `@Tool ${option} must be a class (got a function without a prototype; write ${option}: X, not () => X)`
    : `${what} must be a class of @Param fields, got ${notOne}`;
}

function confinedOf(
  declared: unknown,
  where: string,
  problems: string[],
): PerCall<Confinement> | undefined {
  if (declared === undefined) return undefined;
  if (typeof declared === 'string') {
    const constant: Confinement = { confined: declared !== '', by: declared };
    return () => constant;
  }
  if (typeof declared !== 'function') {
    problems.push(`${where}: @Confined takes a function (args, ctx) => {confined, by} or a name`);
    return undefined;
  }
  const fn = declared as (args: never, ctx: ToolContext) => unknown;
  return (args, ctx) => {
    const answer = fn(args, ctx);
    if (typeof answer === 'boolean') return { confined: answer, by: '' };
    const { confined, by } = (answer ?? {}) as { confined?: unknown; by?: unknown };
    return confined === true
      ? { confined: true, by: typeof by === 'string' ? by : '' }
      : { confined: false, by: '' };
  };
}

function replayOf(
  declared: unknown,
  where: string,
  problems: string[],
): PerCall<Replay> | undefined {
  if (declared === undefined) return undefined;
  if (declared === 'safe' || declared === 'keyed') return () => declared;
  if (typeof declared !== 'function') {
    problems.push(`${where}: @Replay takes 'safe', 'keyed' or a function (args, ctx) => Replay`);
    return undefined;
  }
  return declared as PerCall<Replay>;
}

export function scopesOf(declared: unknown, where: string, problems: string[]): readonly string[] {
  if (declared === undefined) return Object.freeze([]);
  const scopes = declared as readonly unknown[];
  if (scopes.length === 0) problems.push(`${where}: @Scopes needs at least one scope`);
  for (const scope of scopes) {
    if (!isScopeToken(scope)) {
      problems.push(
        `${where}: @Scopes takes OAuth scope names (printable, no spaces, quotes or backslashes); ${JSON.stringify(scope) ?? String(scope)} is not one`,
      );
    }
  }
  return Object.freeze([...new Set(scopes.filter(isScopeToken))]);
}

export function guardsOf(
  declared: unknown,
  where: string,
  problems: string[],
): readonly GuardLike[] {
  if (declared === undefined) return Object.freeze([]);
  const guards = declared as readonly unknown[];
  if (guards.length === 0) problems.push(`${where}: @Guard needs at least one guard`);
  guards.forEach((guard, i) => {
    const problem = guardProblem(guard);
    if (problem !== undefined) problems.push(`${where}: @Guard's guard #${i}: ${problem}`);
  });
  return Object.freeze([...(guards as GuardLike[])]);
}

function decoratorName(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}
