import {
  type Annotations,
  type Confinement,
  isJsonObject,
  type JsonObject,
  type Replay,
  type ToolContext,
} from '../core';
import { type FieldPlan, classPlan } from './fields';
import { type Constructor, ownDuplicates, readClass } from './metadata';
import { buildSchema } from './schema-builder';

/** What a per-call reader of the tool's class answers from. */
export type PerCall<T> = (args: never, ctx: ToolContext) => T;

/** Everything the decorators say about a tool class, normalised. */
export interface ToolMetadata {
  readonly name: string;
  readonly description: string;
  /** The arguments class; undefined for a tool without arguments. */
  readonly args: Constructor | undefined;
  /** The argument fields, ancestors first (empty without an arguments class). */
  readonly fields: readonly FieldPlan[];
  /** Whether arguments are validated against the schema (`@Tool({ validate })`, default true). */
  readonly validate: boolean;
  /** The parameters served verbatim instead of the generated schema (`@Tool({ parameters })`). */
  readonly parameters: JsonObject | undefined;
  /** The tool's optional properties as declared (absent members are unstated). */
  readonly properties: {
    readonly strict: boolean;
    readonly sequential: boolean;
    readonly resource: string | undefined;
    readonly annotations: Annotations | undefined;
    readonly confined: PerCall<Confinement> | undefined;
    readonly replay: PerCall<Replay> | undefined;
  };
}

/** A tool class's metadata and every problem found reading it. */
export interface ToolPlan {
  readonly metadata: ToolMetadata | undefined;
  readonly problems: readonly string[];
}

const plans = new WeakMap<Constructor, ToolPlan>();

/** True when the class (or an ancestor) carries `@Tool`. */
export function isToolClass(cls: unknown): cls is Constructor {
  return typeof cls === 'function' && readClass(cls as Constructor, 'tool') !== undefined;
}

/** Reads a tool class once: its metadata and all of its problems (cached). */
export function toolPlan(cls: Constructor): ToolPlan {
  let plan = plans.get(cls);
  if (plan === undefined) {
    plan = readToolPlan(cls);
    plans.set(cls, plan);
  }
  return plan;
}

function readToolPlan(cls: Constructor): ToolPlan {
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
    return { metadata: undefined, problems };
  }
  if (typeof options.name !== 'string' || options.name.trim() === '') {
    problems.push(`${where}: @Tool needs a non-empty name`);
  }
  if (options.description !== undefined && typeof options.description !== 'string') {
    problems.push(`${where}: @Tool description must be a string`);
  }
  if (typeof (cls.prototype as { execute?: unknown }).execute !== 'function') {
    problems.push(`${where}: a tool class needs an execute(args, ctx) method`);
  }
  const args = options.args;
  if (args !== undefined && typeof args !== 'function') {
    problems.push(`${where}: @Tool args must be a class`);
  }
  const strict = options.strict === true || readClass(cls, 'strict') === true;
  if (options.validate !== undefined && typeof options.validate !== 'boolean') {
    problems.push(`${where}: @Tool validate must be true or false`);
  }
  const parameters = options.parameters;
  if (parameters !== undefined && !isJsonObject(parameters)) {
    problems.push(`${where}: @Tool parameters must be a JSON Schema object`);
  }
  let fields: readonly FieldPlan[] = [];
  if (typeof args === 'function') {
    // Served parameters replace the generated schema: the class is not read for one.
    if (parameters === undefined) problems.push(...buildSchema(args, strict).problems);
    fields = classPlan(args).fields;
  }
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
  return {
    metadata: {
      name: options.name,
      description: typeof options.description === 'string' ? options.description : '',
      args: typeof args === 'function' ? args : undefined,
      fields,
      validate: options.validate !== false,
      parameters: isJsonObject(parameters) ? parameters : undefined,
      properties: {
        strict,
        sequential: readClass(cls, 'sequential') === true,
        resource: typeof resource === 'string' ? resource : undefined,
        annotations: annotations ?? undefined,
        confined,
        replay,
      },
    },
    problems,
  };
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

function decoratorName(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}
