import { plainToInstance } from 'class-transformer';
import {
  asWritten,
  compileSchema,
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
import { classCheck, type ClassCheck } from './class-validation';
import { type Constructor } from './metadata';
import { type Instantiate, instantiate, instantiator } from './instantiate';
import { assertSchema, buildSchema, noArgsModel } from './schema-builder';

/** Options of the schema readers. */
export interface SchemaOptions {
  /** Strict rules: every field required, `additionalProperties: false`, maps rejected. */
  readonly strict?: boolean;
}

/**
 * The parameters schema of an arguments class, as served (a fresh copy each call;
 * built once per class and strictness). A class with a static `jsonSchema()` supplies
 * its schema verbatim. Throws a {@link DecoratorError} listing every problem.
 */
export function schemaOf(argsClass: Constructor, options: SchemaOptions = {}): JsonObject {
  const built = buildSchema(argsClass, options.strict === true);
  const model = assertSchema(argsClass, built);
  return model === undefined ? structuredClone(built.json) : schemaToJson(model);
}

/** Turns raw arguments into the arguments instance: resolves directly unless class-validator runs asynchronously. */
export type ArgumentsParser<T> = (raw: string) => T | Promise<T>;

/**
 * How a tool's arguments are checked, as the Go binding's `New` options say:
 * `validated` against the generated schema (the default); `unvalidated` (Go's
 * `WithoutValidation`, and `WithParameters`), where only decoding guards them.
 */
export type ArgumentsMode = 'validated' | 'unvalidated';

/** The two halves of the pipeline, built once per class, strictness and mode. */
export interface Pipeline<T> {
  /** Raw JSON → checked → instance. Synchronous. */
  readonly decode: (raw: string) => T;
  /** The same from arguments already decoded (a call's `value`): checked → instance. */
  readonly decodeValue: (value: JsonValue) => T;
  /** class-validator over the instance, when the class carries constraints and is validated. */
  readonly check: ClassCheck | undefined;
  /** The served parameters schema. */
  readonly parameters: JsonObject;
}

type Cache = Partial<Record<`${'strict' | 'loose'}:${ArgumentsMode}`, Pipeline<object>>>;

const pipelines = new WeakMap<Constructor, Cache>();
const noArgs: Cache = {};

/**
 * The pipeline of an arguments class (undefined: a tool without arguments). The class's
 * problems are thrown here; the validator and the instantiator are compiled on first use,
 * so registering many tools compiles nothing that is never called.
 */
export function pipelineOf<T extends object>(
  argsClass: Constructor<T> | undefined,
  strict: boolean,
  mode: ArgumentsMode = 'validated',
): Pipeline<T> {
  let cache = argsClass === undefined ? noArgs : pipelines.get(argsClass);
  if (cache === undefined) {
    cache = {};
    pipelines.set(argsClass as Constructor, cache);
  }
  const key = `${strict ? 'strict' : 'loose'}:${mode}` as const;
  let pipeline = cache[key];
  if (pipeline === undefined) {
    pipeline =
      argsClass === undefined
        ? noArgsPipeline(strict, mode)
        : buildPipeline(argsClass, strict, mode);
    cache[key] = pipeline;
  }
  return pipeline as Pipeline<T>;
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
export function parametersPipeline<T extends object>(
  argsClass: Constructor<T> | undefined,
  parameters: JsonObject,
): Pipeline<T> {
  let fromValue: (value: JsonValue) => object;
  if (argsClass === undefined) {
    fromValue = (value) => decodedObject(value);
  } else {
    const built = buildSchema(argsClass, false);
    fromValue =
      built.problems.length === 0 && built.model !== undefined
        ? unvalidatedFromValue(argsClass, built.model)
        : plainFromValue(argsClass);
  }
  return {
    decode: (raw) => decodeOnly(raw, fromValue) as T,
    decodeValue: (value) => fromValue(value) as T,
    check: undefined,
    parameters,
  };
}

function buildPipeline(
  argsClass: Constructor,
  strict: boolean,
  mode: ArgumentsMode,
): Pipeline<object> {
  const built = buildSchema(argsClass, strict);
  const model = assertSchema(argsClass, built);
  if (model === undefined) {
    // A supplied schema is served verbatim and not validated (the contract's Schemer):
    // the arguments are only decoded, as Go's Decode does.
    const fromValue = plainFromValue(argsClass);
    return {
      decode: (raw) => decodeOnly(raw, fromValue),
      decodeValue: fromValue,
      check: undefined,
      parameters: built.json,
    };
  }
  if (mode === 'unvalidated') {
    const fromValue = unvalidatedFromValue(argsClass, model);
    return {
      decode: (raw) => decodeOnly(raw, fromValue),
      decodeValue: fromValue,
      check: undefined,
      parameters: built.json,
    };
  }
  let validator: Validator | undefined;
  let make: Instantiate | undefined;
  const build = (value: JsonValue): object =>
    instantiate((make ??= instantiator(argsClass)), value as Record<string, unknown>);
  return {
    decode: (raw) => build(validateArguments((validator ??= compileSchema(model)), raw)),
    decodeValue: (value) => {
      const error = (validator ??= compileSchema(model))(value);
      if (error !== undefined) throw error;
      return build(value);
    },
    check: classCheck(argsClass),
    parameters: built.json,
  };
}

/**
 * Builds the instance from arguments nobody validated, as Go's decoder is then their
 * only guard: each JSON value must have its field's JSON type (a number for a number,
 * an object for a nested class, ...) or be null, so the instance holds what its class
 * declares; a missing field, a value outside an enum and an unknown property are not
 * refused. `null` arguments are an empty object, as Go decodes `null` into a struct.
 */
function unvalidatedFromValue(argsClass: Constructor, model: Schema): (value: JsonValue) => object {
  let decoder: Validator | undefined;
  let make: Instantiate | undefined;
  return (value) => {
    const plain = value === null ? {} : value;
    const error = (decoder ??= compileSchema(decodingSchema(model)))(plain);
    if (error !== undefined) throw error;
    return instantiate((make ??= instantiator(argsClass)), plain as Record<string, unknown>);
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

function noArgsPipeline(strict: boolean, mode: ArgumentsMode): Pipeline<object> {
  const model = noArgsModel(strict);
  if (mode === 'unvalidated') {
    // Go decodes into NoArgs (struct{}): any object, and null, is fine.
    const fromValue = (value: JsonValue): object => {
      if (value !== null) decodedObject(value);
      return {};
    };
    return {
      decode: (raw) => decodeOnly(raw, fromValue),
      decodeValue: fromValue,
      check: undefined,
      parameters: schemaToJson(model),
    };
  }
  let validator: Validator | undefined;
  return {
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
    parameters: schemaToJson(model),
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

/** Options of {@link argumentsParser}. */
export interface ArgumentsOptions extends SchemaOptions {
  /**
   * `false` decodes without validating against the schema, as a `@Tool({ validate:
   * false })` does (Go's `WithoutValidation`). Default `true`.
   */
  readonly validate?: boolean;
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
  const { decode, check } = pipelineOf(argsClass, options.strict === true, mode);
  if (check === undefined) return decode;
  return (raw) => {
    const instance = decode(raw);
    const checked = check(instance);
    return checked === undefined ? instance : checked.then(() => instance);
  };
}
