import { AgentToolError, ValidationError } from './errors';
import { goCheckValid, goDecode } from './go-json';
import {
  depthExceeded,
  depthExceededText,
  type JsonValue,
  MAX_JSON_DEPTH,
  textDepthExceeded,
} from './json';
import { type Schema } from './schema';
import { rawTextAt } from './raw-json';
import { generateFastCheck, jsonEqual } from './generated-code';
import { goQuote } from './quote';

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
/** A compiled validator's check without the depth walk, for text already measured. */
const SHALLOW = Symbol('agenttool.validator.shallow');
type CompiledValidator = Validator & { [SHALLOW]?: Validator };

/**
 * Compiles a schema into a validator with the contract's rules and messages: per node,
 * null handling, then enum, then type; objects check `required` in order, then their
 * keys in sorted order; the first error only. Compiled once per schema object. A value
 * nested deeper than {@link MAX_JSON_DEPTH}, where the schema looks or not, is refused
 * first (`invalid arguments: not valid JSON: invalid character '{' exceeded max depth
 * of 1000`), so nothing downstream walks it. A schema model nested deeper than that
 * throws an `INVALID_SCHEMA` error.
 */
export function compileSchema(schema: Schema): Validator {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    const walk = compileInterpreted(schema);
    const fast = generateFastCheck(schema);
    // The generated predicate answers valid input; the walk phrases the first error.
    const check: Validator =
      fast === undefined ? walk : (value) => (fast(value) ? undefined : walk(value));
    const checked: CompiledValidator = (value) => {
      const opening = depthExceeded(value);
      return opening === undefined ? check(value) : tooDeep(opening);
    };
    checked[SHALLOW] = check;
    validator = checked;
    compiled.set(schema, validator);
  }
  return validator;
}

/**
 * The schema walk alone, without the generated fast path (and without the depth check
 * of {@link compileSchema}): the reference that phrases every error. Exported for the
 * tests that hold the two paths to the same verdicts.
 */
export function compileInterpreted(schema: Schema): Validator {
  const check = compileNode(schema, 1);
  return (value) => {
    const failure = check(value);
    return failure === undefined ? undefined : toError(failure);
  };
}

/** Arguments read from their text: the first JSON value, and the error of what follows it. */
interface ReadArguments {
  readonly value: JsonValue;
  /** Data after the value: reported only once the value itself passed validation, as Go does. */
  readonly trailing?: ValidationError;
}

/**
 * Reads raw arguments as the Go binding's validator does (`json.Decoder` on the
 * text): empty text is `{}`; a first value that is not JSON, or is cut short, fails
 * `not valid JSON: <what encoding/json says>`; text after the value is kept as the
 * error Go's decoding reports next (`invalid character 'x' after top-level value`).
 * The Go phrasing is worked out only once `JSON.parse` has failed.
 */
function readArguments(raw: string): ReadArguments {
  if (raw === '') return { value: {} };
  let value: JsonValue;
  try {
    value = JSON.parse(raw) as JsonValue;
  } catch (error) {
    return readInvalid(raw, error);
  }
  const opening = textDepthExceeded(raw);
  if (opening !== undefined) throw tooDeep(opening);
  return { value };
}

function readInvalid(raw: string, error: unknown): ReadArguments {
  const decoded = goDecode(raw);
  if (!decoded.ok) throw new ValidationError('', `not valid JSON: ${decoded.message}`);
  let value: JsonValue;
  try {
    value = JSON.parse(raw.slice(0, decoded.end)) as JsonValue;
  } catch {
    // Go's scanner and JSON.parse disagree: say what V8 says.
    throw new ValidationError('', `not valid JSON: ${(error as Error).message}`);
  }
  const trailing = goCheckValid(raw) ?? (error as Error).message;
  return { value, trailing: new ValidationError('', trailing) };
}

/**
 * Decodes raw arguments as the Go binding's validator reads them: empty text is `{}`;
 * text that is not JSON throws `invalid arguments: not valid JSON: <reason>` with
 * encoding/json's words (`unexpected EOF`, `EOF` for spaces only, `invalid character
 * '}' looking for beginning of object key string`, ...); data after the value throws
 * `invalid arguments: invalid character 'x' after top-level value`; JSON nested deeper
 * than {@link MAX_JSON_DEPTH} throws `invalid arguments: not valid JSON: invalid
 * character '[' exceeded max depth of 1000`. Keys such as `__proto__` stay plain own
 * properties of the result.
 */
export function parseArguments(raw: string): JsonValue {
  const read = readArguments(raw);
  if (read.trailing !== undefined) throw read.trailing;
  return read.value;
}

/**
 * Decodes raw arguments and validates them; throws the first {@link ValidationError}.
 * The order is the Go binding's: a first value that is not JSON, then the value
 * against the schema, then data after the value.
 */
export function validateArguments(validator: Validator, raw: string): JsonValue {
  const read = readArguments(raw);
  // The text's depth is measured already: a compiled validator need not walk it again.
  const error = ((validator as CompiledValidator)[SHALLOW] ?? validator)(read.value);
  if (error !== undefined) throw asWritten(error, raw);
  if (read.trailing !== undefined) throw read.trailing;
  return read.value;
}

/**
 * Decodes raw arguments as Go's `agenttool.Decode` (`json.Unmarshal`) does, for a tool
 * whose arguments are not validated: empty text is `{}`; any other text that is not
 * one JSON value throws `invalid arguments: <what json.Unmarshal says>` (`unexpected
 * end of JSON input`, `invalid character 'x' after top-level value`, ...), without the
 * validator's `not valid JSON:`; JSON nested deeper than {@link MAX_JSON_DEPTH} throws
 * `invalid arguments: invalid character '[' exceeded max depth of 1000`.
 */
export function decodeArguments(raw: string): JsonValue {
  if (raw === '') return {};
  let value: JsonValue;
  try {
    value = JSON.parse(raw) as JsonValue;
  } catch (error) {
    throw new ValidationError('', goCheckValid(raw) ?? (error as Error).message);
  }
  const opening = textDepthExceeded(raw);
  if (opening !== undefined) throw new ValidationError('', depthExceededText(opening));
  return value;
}

/** The refusal of arguments nested too deeply, as the validator reads them. */
function tooDeep(opening: '{' | '['): ValidationError {
  return new ValidationError('', `not valid JSON: ${depthExceededText(opening)}`);
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

function compileNode(schema: Schema, depth: number): Check {
  if (depth > MAX_JSON_DEPTH || depthExceeded(schema.enum) !== undefined) {
    throw new AgentToolError(
      'INVALID_SCHEMA',
      `schema: exceeded max depth of ${MAX_JSON_DEPTH}: the schema cannot be compiled`,
    );
  }
  const typeCheck = compileType(schema, depth);
  const enumValues = schema.enum;
  const acceptsNull =
    schema.nullable === true ||
    schema.type === undefined ||
    schema.type === '' ||
    schema.type === 'null';
  const enumListsNull = enumValues?.includes(null) ?? false;
  const nullDetail = `expected ${schema.type ?? ''}, got null`;

  return (value) => {
    if (value === null) {
      if (!acceptsNull) return fail(nullDetail);
      if (enumValues !== undefined && !enumListsNull) {
        return fail(`${expectedOneOf(enumValues)}, got null`);
      }
      return undefined;
    }
    if (enumValues !== undefined && !enumValues.some((allowed) => jsonEqual(allowed, value))) {
      return fail(`${expectedOneOf(enumValues)}, got ${describe(value)}`, value);
    }
    return typeCheck(value);
  };
}

/** The most values of an enum an error lists, and about the most characters. */
const ENUM_VALUES_SHOWN = 100;
const ENUM_CHARS_SHOWN = 2000;

/**
 * `expected one of [<d1>, <d2>]`, as the Go binding words it; a long enum (a server's
 * schema may list a million values) is cut after its first values, with how many more
 * there are, so that the error a model reads stays short. Made when a check fails.
 */
function expectedOneOf(values: readonly unknown[]): string {
  const shown: string[] = [];
  let chars = 0;
  for (const value of values) {
    if (shown.length === ENUM_VALUES_SHOWN || chars > ENUM_CHARS_SHOWN) break;
    const described = describe(value);
    shown.push(described);
    chars += described.length + 2;
  }
  const more = values.length - shown.length;
  return `expected one of [${shown.join(', ')}${more > 0 ? `, ... and ${more} more` : ''}]`;
}

function compileType(schema: Schema, depth: number): Check {
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
      // JSON.parse reads a number beyond float64's range (1e400) as Infinity; Go's
      // json.Number.Float64 refuses it, so the model hears `got 1e400` (see asWritten).
      return (v) =>
        Number.isFinite(v) ? undefined : fail(`expected number, got ${describe(v)}`, v);
    case 'integer':
      // Beyond 2^53 JSON.parse has rounded the integer (9007199254740993 reads as ...992):
      // refused, as written, rather than handing the tool another number.
      return (v) =>
        Number.isSafeInteger(v) ? undefined : fail(`expected integer, got ${describe(v)}`, v);
    case 'null':
      return (v) => (v === null ? undefined : fail(`expected null, got ${describe(v)}`, v));
    case 'array':
      return compileArray(schema, depth);
    case 'object':
      return compileObject(schema, depth);
    default:
      return () => fail(`schema type ${goQuote(type)} is not a JSON Schema type`);
  }
}

function compileArray(schema: Schema, depth: number): Check {
  const items = schema.items === undefined ? undefined : compileNode(schema.items, depth + 1);
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

function compileObject(schema: Schema, depth: number): Check {
  const known = new Map<string, Check>();
  for (const p of schema.properties ?? []) known.set(p.name, compileNode(p.schema, depth + 1));
  const required = schema.required ?? [];
  const noAdditional = schema.noAdditional === true;
  const additional =
    !noAdditional && schema.additionalProperties !== undefined
      ? compileNode(schema.additionalProperties, depth + 1)
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
