import { ValidationError } from './errors';
import { type JsonValue } from './json';
import { type Schema } from './schema';
import { rawTextAt } from './raw-json';
import { generateFastCheck, jsonEqual } from './validate-fast';
import { goQuote } from './quote';

export { goQuote };

/** Checks a decoded value; returns the first problem, or undefined when it is valid. */
export type Validator = (value: unknown) => ValidationError | undefined;

interface Failure {
  /** Path segments from the deepest outwards: a property name or an array index. */
  readonly segments: (string | number)[];
  readonly detail: string;
  /** The number the detail ends with (`got <n>`), to be shown as it was written. */
  readonly got?: number;
}

/** Where each error came from, for {@link asWritten}. */
const failures = new WeakMap<ValidationError, Failure>();

type Check = (value: unknown) => Failure | undefined;

const compiled = new WeakMap<Schema, Validator>();

/**
 * Compiles a schema into a validator with the contract's rules and messages: per node,
 * null handling, then enum, then type; objects check `required` in order, then their
 * keys in sorted order; the first error only. Compiled once per schema object.
 */
export function compileSchema(schema: Schema): Validator {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    const walk = compileInterpreted(schema);
    const fast = generateFastCheck(schema);
    // The generated predicate answers valid input; the walk phrases the first error.
    validator = fast === undefined ? walk : (value) => (fast(value) ? undefined : walk(value));
    compiled.set(schema, validator);
  }
  return validator;
}

/**
 * The schema walk alone, without the generated fast path: the reference that phrases
 * every error. Exported for the tests that hold the two paths to the same verdicts.
 */
export function compileInterpreted(schema: Schema): Validator {
  const check = compileNode(schema);
  return (value) => {
    const failure = check(value);
    return failure === undefined ? undefined : toError(failure);
  };
}

/** Validates a decoded value against a schema (compiled on first use). */
export function validateValue(schema: Schema, value: unknown): ValidationError | undefined {
  return compileSchema(schema)(value);
}

/**
 * Decodes raw arguments: empty text is `{}`; text that is not JSON throws
 * `invalid arguments: not valid JSON: <reason>`. Keys such as `__proto__` stay plain own
 * properties of the result.
 */
export function parseArguments(raw: string): JsonValue {
  if (raw === '' || raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as JsonValue;
  } catch (error) {
    throw new ValidationError('', `not valid JSON: ${(error as Error).message}`);
  }
}

/** Decodes raw arguments and validates them; throws the first {@link ValidationError}. */
export function validateArguments(validator: Validator, raw: string): JsonValue {
  const value = parseArguments(raw);
  const error = validator(value);
  if (error !== undefined) throw asWritten(error, raw);
  return value;
}

function toError(failure: Failure): ValidationError {
  let path = '';
  for (let i = failure.segments.length - 1; i >= 0; i--) {
    const segment = failure.segments[i];
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  const error = new ValidationError(path, failure.detail);
  failures.set(error, failure);
  return error;
}

/**
 * The error as the contract phrases it for the arguments as written: a number it
 * describes is shown as the model wrote it (`got 1.0`, `got 1e2`), where decoding kept
 * only its value. Returns the same error when there is nothing to change.
 */
export function asWritten(error: ValidationError, raw: string): ValidationError {
  const failure = failures.get(error);
  if (failure?.got === undefined) return error;
  const written = rawTextAt(raw, [...failure.segments].reverse());
  const shown = describe(failure.got);
  if (written === undefined || written === shown || !failure.detail.endsWith(`got ${shown}`)) {
    return error;
  }
  const detail = `${failure.detail.slice(0, -shown.length)}${written}`;
  const rephrased = new ValidationError(error.path, detail);
  failures.set(rephrased, { ...failure, detail });
  return rephrased;
}

function fail(detail: string, got?: unknown): Failure {
  return typeof got === 'number' ? { segments: [], detail, got } : { segments: [], detail };
}

function within(failure: Failure | undefined, segment: string | number): Failure | undefined {
  if (failure !== undefined) failure.segments.push(segment);
  return failure;
}

function compileNode(schema: Schema): Check {
  const typeCheck = compileType(schema);
  const enumValues = schema.enum;
  const acceptsNull =
    schema.nullable === true ||
    schema.type === undefined ||
    schema.type === '' ||
    schema.type === 'null';
  const enumListsNull = enumValues?.includes(null) ?? false;
  const enumText =
    enumValues === undefined ? '' : `expected one of [${enumValues.map(describe).join(', ')}]`;
  const nullDetail = `expected ${schema.type ?? ''}, got null`;

  return (value) => {
    if (value === null) {
      if (!acceptsNull) return fail(nullDetail);
      if (enumValues !== undefined && !enumListsNull) return fail(`${enumText}, got null`);
      return undefined;
    }
    if (enumValues !== undefined && !enumValues.some((allowed) => jsonEqual(allowed, value))) {
      return fail(`${enumText}, got ${describe(value)}`, value);
    }
    return typeCheck(value);
  };
}

function compileType(schema: Schema): Check {
  const type = schema.type;
  switch (type) {
    case undefined:
    case '':
      return () => undefined;
    case 'string':
      return (v) =>
        typeof v === 'string' ? undefined : fail(`expected string, got ${describe(v)}`, v);
    case 'boolean':
      return (v) =>
        typeof v === 'boolean' ? undefined : fail(`expected boolean, got ${describe(v)}`, v);
    case 'number':
      return (v) =>
        typeof v === 'number' ? undefined : fail(`expected number, got ${describe(v)}`, v);
    case 'integer':
      return (v) =>
        typeof v === 'number' && Number.isInteger(v)
          ? undefined
          : fail(`expected integer, got ${describe(v)}`, v);
    case 'null':
      return (v) => (v === null ? undefined : fail(`expected null, got ${describe(v)}`, v));
    case 'array':
      return compileArray(schema);
    case 'object':
      return compileObject(schema);
    default:
      return () => fail(`schema type ${goQuote(type)} is not a JSON Schema type`);
  }
}

function compileArray(schema: Schema): Check {
  const items = schema.items === undefined ? undefined : compileNode(schema.items);
  return (v) => {
    if (!Array.isArray(v)) return fail(`expected array, got ${describe(v)}`, v);
    if (items === undefined) return undefined;
    for (let i = 0; i < v.length; i++) {
      const failure = items(v[i]);
      if (failure !== undefined) return within(failure, i);
    }
    return undefined;
  };
}

const hasOwn = (object: object, key: string): boolean => Object.hasOwn(object, key);

function compileObject(schema: Schema): Check {
  const known = new Map<string, Check>();
  for (const p of schema.properties ?? []) known.set(p.name, compileNode(p.schema));
  const required = schema.required ?? [];
  const noAdditional = schema.noAdditional === true;
  const additional =
    !noAdditional && schema.additionalProperties !== undefined
      ? compileNode(schema.additionalProperties)
      : undefined;

  const checkKey = (object: Record<string, unknown>, key: string): Failure | undefined => {
    const check = known.get(key);
    if (check !== undefined) return within(check(object[key]), key);
    if (noAdditional) return fail(`unexpected property ${goQuote(key)}`);
    if (additional !== undefined) return within(additional(object[key]), key);
    return undefined;
  };

  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      return fail(`expected object, got ${describe(v)}`, v);
    }
    const object = v as Record<string, unknown>;
    for (const name of required) {
      if (!hasOwn(object, name)) return fail(`missing required property ${goQuote(name)}`);
    }
    // Valid input (the common case) is checked in insertion order; only when something
    // fails are the keys walked again in sorted order, so the first error reported is
    // the contract's (keys in sorted order).
    const keys = Object.keys(object);
    for (const key of keys) {
      if (checkKey(object, key) !== undefined) {
        keys.sort(compareKeys);
        for (const sorted of keys) {
          const failure = checkKey(object, sorted);
          if (failure !== undefined) return failure;
        }
      }
    }
    return undefined;
  };
}

function compareKeys(a: string, b: string): number {
  // Byte order of UTF-8, which is code point order, as Go sorts map keys.
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return Buffer.compare(ab, bb);
}

/** Describes a value in a message: strings quoted, numbers as written, `object`, `array`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}
