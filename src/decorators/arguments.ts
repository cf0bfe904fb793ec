import { plainToInstance } from 'class-transformer';
import {
  asWritten,
  compileSchema,
  describeValue,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseArguments,
  schemaToJson,
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

/** The two halves of the pipeline, built once per class and strictness. */
export interface Pipeline<T> {
  /** Raw JSON → checked against the schema → instance. Synchronous. */
  readonly decode: (raw: string) => T;
  /** The same from arguments already decoded (a call's `value`): checked → instance. */
  readonly decodeValue: (value: JsonValue) => T;
  /** class-validator over the instance, when the class carries constraints. */
  readonly check: ClassCheck | undefined;
  /** The served parameters schema. */
  readonly parameters: JsonObject;
}

const pipelines = new WeakMap<
  Constructor,
  { strict?: Pipeline<object>; loose?: Pipeline<object> }
>();

/**
 * The pipeline of an arguments class (undefined: a tool without arguments). The class's
 * problems are thrown here; the validator and the instantiator are compiled on first use,
 * so registering many tools compiles nothing that is never called.
 */
export function pipelineOf<T extends object>(
  argsClass: Constructor<T> | undefined,
  strict: boolean,
): Pipeline<T> {
  if (argsClass === undefined) return noArgsPipeline(strict) as Pipeline<T>;
  let entry = pipelines.get(argsClass);
  if (entry === undefined) {
    entry = {};
    pipelines.set(argsClass, entry);
  }
  let pipeline = strict ? entry.strict : entry.loose;
  if (pipeline === undefined) {
    pipeline = buildPipeline(argsClass, strict);
    if (strict) entry.strict = pipeline;
    else entry.loose = pipeline;
  }
  return pipeline as Pipeline<T>;
}

function buildPipeline(argsClass: Constructor, strict: boolean): Pipeline<object> {
  const built = buildSchema(argsClass, strict);
  const model = assertSchema(argsClass, built);
  const check = classCheck(argsClass);
  let fromValue: (value: JsonValue) => object;
  if (model === undefined) {
    // A supplied schema is served verbatim and not validated (the contract's Schemer).
    const cls = argsClass as unknown as new () => object;
    fromValue = (value) => plainToInstance(cls, asObject(value));
  } else {
    let validator: Validator | undefined;
    let make: Instantiate | undefined;
    fromValue = (value) => {
      validator ??= compileSchema(model);
      const error = validator(value);
      if (error !== undefined) throw error;
      make ??= instantiator(argsClass);
      return instantiate(make, value as Record<string, unknown>);
    };
  }
  return {
    decode: (raw) => decodeAsWritten(raw, fromValue),
    decodeValue: fromValue,
    check,
    parameters: built.json,
  };
}

/** Decodes raw arguments; an error shows numbers as the model wrote them. */
function decodeAsWritten<T>(raw: string, fromValue: (value: JsonValue) => T): T {
  try {
    return fromValue(parseArguments(raw));
  } catch (error) {
    throw error instanceof ValidationError ? asWritten(error, raw) : error;
  }
}

const noArgs: { strict?: Pipeline<object>; loose?: Pipeline<object> } = {};

function noArgsPipeline(strict: boolean): Pipeline<object> {
  const cached = strict ? noArgs.strict : noArgs.loose;
  if (cached !== undefined) return cached;
  const model = noArgsModel(strict);
  let validator: Validator | undefined;
  const fromValue = (value: JsonValue): object => {
    validator ??= compileSchema(model);
    const error = validator(value);
    if (error !== undefined) throw error;
    return {};
  };
  const pipeline: Pipeline<object> = {
    decode: (raw) => decodeAsWritten(raw, fromValue),
    decodeValue: fromValue,
    check: undefined,
    parameters: schemaToJson(model),
  };
  if (strict) noArgs.strict = pipeline;
  else noArgs.loose = pipeline;
  return pipeline;
}

function asObject(value: JsonValue): JsonObject {
  if (!isJsonObject(value)) {
    throw new ValidationError('', `expected object, got ${describeValue(value)}`);
  }
  return value;
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
 * cannot be expressed.
 */
export function argumentsParser<T extends object>(
  argsClass: Constructor<T>,
  options: SchemaOptions = {},
): ArgumentsParser<T> {
  const { decode, check } = pipelineOf(argsClass, options.strict === true);
  if (check === undefined) return decode;
  return (raw) => {
    const instance = decode(raw);
    const checked = check(instance);
    return checked === undefined ? instance : checked.then(() => instance);
  };
}
