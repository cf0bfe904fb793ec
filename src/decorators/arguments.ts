import {
  asWritten,
  compileSchema,
  type Constructor,
  copyJson,
  decodeArguments,
  depthExceeded,
  depthExceededText,
  describeValue,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type Schema,
  schemaToJson,
  validateArguments,
  ValidationError,
  type Validator,
} from '../core';
import { ClassPlans, type FieldPlan } from './class-plan';
import { plainToInstance } from './class-transformer-adapter';
import { classCheck, type ClassCheck } from './class-validation';
import { DecoratorError } from './errors';
import { type Instantiate, Instantiators, instantiate } from './instantiate';
import { buildSchema, noArgsModel } from './schema-builder';

/**
 * How a tool's arguments are checked, as the Go binding's `New` options say:
 * `validated` against the generated schema (the default); `unvalidated` (Go's
 * `WithoutValidation`), where only decoding guards them.
 */
export type ArgumentsMode = 'validated' | 'unvalidated';

/**
 * What one arguments class (under one strictness and mode) turns raw arguments into,
 * built once: the served schema, and the steps from raw JSON to the instance `execute`
 * receives. The validator and the instantiator are compiled on first use, so registering
 * many tools compiles nothing that is never called.
 */
export interface ArgumentsPipeline<T extends object = object> {
  /** Raw JSON → checked → instance. Synchronous. */
  readonly decode: (raw: string) => T;
  /** The same from arguments already decoded (a call's `value`): checked → instance. */
  readonly decodeValue: (value: JsonValue) => T;
  /** class-validator over the instance, when the class carries constraints and is validated. */
  readonly check: ClassCheck | undefined;
  /** The served parameters schema, deep-frozen. */
  readonly parameters: JsonObject;
  /** The argument fields, ancestors first (empty without an arguments class). */
  readonly fields: readonly FieldPlan[];
  /** True when `decode` validates against `parameters` with the contract's messages. */
  readonly validates: boolean;
}

/** A pipeline, or every problem of the class that keeps it from being one. */
export type BuiltArguments =
  | { readonly pipeline: ArgumentsPipeline; readonly problems: readonly [] }
  | { readonly pipeline: undefined; readonly problems: readonly string[] };

type ModeKey = `${'strict' | 'loose'}:${ArgumentsMode}`;

// The one memo of argument pipelines: per arguments class, strictness and mode.
const built = new WeakMap<Constructor, Map<ModeKey, BuiltArguments>>();
const noArgs = new Map<ModeKey, BuiltArguments>();

/**
 * The pipeline of an arguments class (undefined: a tool without arguments), built once
 * per class, strictness and mode; or every problem of the class.
 */
export function argumentsOf(
  argsClass: Constructor | undefined,
  strict: boolean,
  mode: ArgumentsMode,
): BuiltArguments {
  let byMode = argsClass === undefined ? noArgs : built.get(argsClass);
  if (byMode === undefined) {
    byMode = new Map();
    built.set(argsClass!, byMode);
  }
  const key: ModeKey = `${strict ? 'strict' : 'loose'}:${mode}`;
  let result = byMode.get(key);
  if (result === undefined) {
    result =
      argsClass === undefined
        ? noArgsPipeline(strict, mode)
        : buildPipeline(argsClass, strict, mode);
    byMode.set(key, result);
  }
  return result;
}

/** The pipeline of an arguments class, or a {@link DecoratorError} listing every problem. */
function pipelineOrThrow(
  argsClass: Constructor,
  strict: boolean,
  mode: ArgumentsMode,
): ArgumentsPipeline {
  const result = argumentsOf(argsClass, strict, mode);
  if (result.pipeline === undefined) {
    throw new DecoratorError('arguments class', argsClass.name, result.problems);
  }
  return result.pipeline;
}

/**
 * The pipeline of a tool that serves parameters of its own (`@Tool({ parameters })`,
 * Go's `WithParameters`): the schema is served verbatim and never validated, and the
 * arguments are only decoded. An arguments class is not read for a schema, so nothing
 * about it is refused: when it can be expressed, its decoder builds the instance
 * (nested classes, dates, bytes, JSON types checked); otherwise the arguments object
 * is handed to class-transformer's `plainToInstance`. Without an arguments class the
 * tool receives the decoded arguments object itself.
 */
export function parametersPipeline(
  argsClass: Constructor | undefined,
  parameters: JsonObject,
): ArgumentsPipeline {
  let fromValue: (value: JsonValue) => object;
  let fields: readonly FieldPlan[] = [];
  if (argsClass === undefined) {
    fromValue = (value) => decodedObject(value);
  } else {
    const plans = new ClassPlans();
    const schema = buildSchema(argsClass, false, plans);
    fields = plans.of(argsClass).fields;
    fromValue =
      schema.problems.length === 0 && schema.model !== undefined
        ? unvalidatedFromValue(argsClass, schema.model, plans)
        : plainFromValue(argsClass);
  }
  return {
    decode: (raw) => decodeOnly(raw, fromValue),
    decodeValue: fromValue,
    check: undefined,
    parameters: frozenCopy(parameters),
    fields,
    validates: false,
  };
}

function buildPipeline(
  argsClass: Constructor,
  strict: boolean,
  mode: ArgumentsMode,
): BuiltArguments {
  const plans = new ClassPlans();
  const schema = buildSchema(argsClass, strict, plans);
  if (schema.problems.length > 0) return { pipeline: undefined, problems: schema.problems };
  const fields = plans.of(argsClass).fields;
  const model = schema.model;
  if (model === undefined) {
    // A supplied schema is served verbatim and not validated (the contract's Schemer):
    // the arguments are only decoded, as Go's Decode does.
    const fromValue = plainFromValue(argsClass);
    return {
      pipeline: {
        decode: (raw) => decodeOnly(raw, fromValue),
        decodeValue: fromValue,
        check: undefined,
        parameters: frozenCopy(schema.json),
        fields,
        validates: false,
      },
      problems: [],
    };
  }
  const parameters = deepFreeze(schema.json);
  if (mode === 'unvalidated') {
    const fromValue = unvalidatedFromValue(argsClass, model, plans);
    return {
      pipeline: {
        decode: (raw) => decodeOnly(raw, fromValue),
        decodeValue: fromValue,
        check: undefined,
        parameters,
        fields,
        validates: false,
      },
      problems: [],
    };
  }
  let validator: Validator | undefined;
  let make: Instantiate | undefined;
  const instantiators = new Instantiators(plans);
  const build = (value: JsonValue): object =>
    instantiate((make ??= instantiators.of(argsClass)), value as Record<string, unknown>);
  return {
    pipeline: {
      decode: (raw) => build(validateArguments((validator ??= compileSchema(model)), raw)),
      decodeValue: (value) => {
        const error = (validator ??= compileSchema(model))(value);
        if (error !== undefined) throw error;
        return build(value);
      },
      check: classCheck(argsClass, plans),
      parameters,
      fields,
      validates: true,
    },
    problems: [],
  };
}

/**
 * Builds the instance from arguments nobody validated, as Go's decoder is then their
 * only guard: each JSON value must have its field's JSON type (a number for a number,
 * an object for a nested class, ...) or be null, so the instance holds what its class
 * declares; a missing field, a value outside an enum and an unknown property are not
 * refused. `null` arguments are an empty object, as Go decodes `null` into a struct.
 */
function unvalidatedFromValue(
  argsClass: Constructor,
  model: Schema,
  plans: ClassPlans,
): (value: JsonValue) => object {
  let decoder: Validator | undefined;
  let make: Instantiate | undefined;
  const instantiators = new Instantiators(plans);
  return (value) => {
    const plain = value === null ? {} : value;
    const error = (decoder ??= compileSchema(decodingSchema(model)))(plain);
    if (error !== undefined) throw error;
    return instantiate((make ??= instantiators.of(argsClass)), plain as Record<string, unknown>);
  };
}

/** Decodes raw arguments nobody validates; an error shows numbers as the model wrote them. */
function decodeOnly(raw: string, fromValue: (value: JsonValue) => object): object {
  try {
    return fromValue(decodeArguments(raw));
  } catch (error) {
    throw error instanceof ValidationError ? asWritten(error, raw) : error;
  }
}

/** What decoding alone checks of a schema: JSON types, null allowed, nothing else. */
function decodingSchema(schema: Schema): Schema {
  const out: { -readonly [K in keyof Schema]: Schema[K] } = {};
  if (schema.type !== undefined && schema.type !== '') {
    out.type = schema.type;
    out.nullable = true;
  }
  if (schema.properties !== undefined) {
    out.properties = schema.properties.map((p) => ({
      name: p.name,
      schema: decodingSchema(p.schema),
    }));
  }
  if (schema.items !== undefined) out.items = decodingSchema(schema.items);
  if (schema.additionalProperties !== undefined) {
    out.additionalProperties = decodingSchema(schema.additionalProperties);
  }
  return out;
}

/** class-transformer's `plainToInstance` over the decoded arguments object. */
function plainFromValue(argsClass: Constructor): (value: JsonValue) => object {
  const cls = argsClass as unknown as new () => object;
  return (value) => plainToInstance(cls, decodedObject(value));
}

function noArgsPipeline(strict: boolean, mode: ArgumentsMode): BuiltArguments {
  const model = noArgsModel(strict);
  const parameters = deepFreeze(schemaToJson(model));
  if (mode === 'unvalidated') {
    // Go decodes into NoArgs (struct{}): any object, and null, is fine.
    const fromValue = (value: JsonValue): object => {
      if (value !== null) decodedObject(value);
      return {};
    };
    return {
      pipeline: {
        decode: (raw) => decodeOnly(raw, fromValue),
        decodeValue: fromValue,
        check: undefined,
        parameters,
        fields: [],
        validates: false,
      },
      problems: [],
    };
  }
  let validator: Validator | undefined;
  return {
    pipeline: {
      decode: (raw) => {
        validateArguments((validator ??= compileSchema(model)), raw);
        return {};
      },
      decodeValue: (value) => {
        const error = (validator ??= compileSchema(model))(value);
        if (error !== undefined) throw error;
        return {};
      },
      check: undefined,
      parameters,
      fields: [],
      validates: true,
    },
    problems: [],
  };
}

/** The decoded arguments as an object: refused when not one, or nested too deeply. */
function decodedObject(value: JsonValue): JsonObject {
  if (!isJsonObject(value)) {
    throw new ValidationError('', `expected object, got ${describeValue(value)}`);
  }
  const opening = depthExceeded(value);
  if (opening !== undefined) throw new ValidationError('', depthExceededText(opening));
  return value;
}

/** A deep-frozen copy of a schema someone else owns. */
function frozenCopy(json: JsonObject): JsonObject {
  return deepFreeze(structuredClone(json));
}

/** Freezes a JSON value in place, all the way down, and returns it. */
function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Options of the schema readers. */
export interface SchemaOptions {
  /** Strict rules: every field required, `additionalProperties: false`, maps rejected. */
  readonly strict?: boolean | undefined;
}

/**
 * The parameters schema of an arguments class, as served (a fresh copy each call;
 * built once per class and strictness). A class with a static `jsonSchema()` supplies
 * its schema verbatim. Throws a {@link DecoratorError} listing every problem.
 */
export function schemaOf(argsClass: Constructor, options: SchemaOptions = {}): JsonObject {
  return copyJson(pipelineOrThrow(argsClass, options.strict === true, 'validated').parameters);
}

/** Turns raw arguments into the arguments instance: resolves directly unless class-validator runs asynchronously. */
export type ArgumentsParser<T> = (raw: string) => T | Promise<T>;

/** Options of {@link argumentsParser}. */
export interface ArgumentsOptions extends SchemaOptions {
  /**
   * `false` decodes without validating against the schema, as a `@Tool({ validate:
   * false })` does (Go's `WithoutValidation`). Default `true`.
   */
  readonly validate?: boolean | undefined;
}

/**
 * The argument pipeline of an arguments class, on its own: raw JSON (empty means `{}`)
 * → validated against the generated schema with the contract's messages → instantiated
 * (nested classes are instances, dates are `Date`, bytes are `Buffer`/`Uint8Array`) →
 * class-validator, when the class carries constraints the schema does not express.
 * Unknown properties are dropped (rejected under strict). Every failure is a core
 * `ValidationError` reading `invalid arguments: <path>: <message>`. The result is the
 * instance itself unless a constraint is asynchronous, then a promise; `await` suits
 * both. Compiled once per class; throws a {@link DecoratorError} for a class that
 * cannot be expressed. With `validate: false` only decoding guards the arguments.
 */
export function argumentsParser<T extends object>(
  argsClass: Constructor<T>,
  options: ArgumentsOptions = {},
): ArgumentsParser<T> {
  const mode = options.validate === false ? 'unvalidated' : 'validated';
  const { decode, check } = pipelineOrThrow(argsClass, options.strict === true, mode);
  if (check === undefined) return decode as (raw: string) => T;
  return (raw) => {
    const instance = decode(raw) as T;
    const checked = check(instance);
    return checked === undefined ? instance : checked.then(() => instance);
  };
}
