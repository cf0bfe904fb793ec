import { plainToInstance, TransformationType } from 'class-transformer';
import { type MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { goQuote, ValidationError } from '../core';
import { classPlan, type Shape } from './fields';
import { type Constructor } from './metadata';

// class-transformer keeps its decorators' records here and exports no public reader.
type StorageModule = { defaultMetadataStorage: MetadataStorage };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const storageModule = require('class-transformer/cjs/storage') as StorageModule;
const transformerStorage = storageModule.defaultMetadataStorage;

/** Builds the arguments instance from a value the schema has already accepted. */
export type Instantiate = (plain: Record<string, unknown>) => object;

type Convert = (value: unknown) => unknown;

/** A conversion that failed on a value the schema accepted (a date or base64 that does not parse). */
class ConvertFailure extends Error {
  readonly segments: (string | number)[] = [];
  constructor(readonly detail: string) {
    super(detail);
  }
}

const compiled = new WeakMap<Constructor, Instantiate>();

/**
 * The instantiator of an arguments class, compiled once from its plan. It makes what
 * class-transformer's `plainToInstance` makes for these shapes (`new Class()`, then
 * each field the input has: nested classes as instances, dates as `Date`, base64 as
 * bytes) without its per-call metadata lookups. Only the class's own fields are copied,
 * so unknown keys, `__proto__`, `constructor` and `prototype` never reach an instance;
 * map keys become own properties. A class that carries class-transformer decorators
 * (`@Transform`, `@Expose`, `@Exclude`, `@Type`) is built by `plainToInstance` itself
 * from its fields, so its transforms apply; its nested values are built here.
 */
export function instantiator(cls: Constructor): Instantiate {
  let make = compiled.get(cls);
  if (make === undefined) {
    make = compile(cls);
    compiled.set(cls, make);
  }
  return make;
}

/** Turns a conversion failure into the contract's error, with the path of the field. */
export function instantiate(make: Instantiate, plain: Record<string, unknown>): object {
  try {
    return make(plain);
  } catch (error) {
    if (!(error instanceof ConvertFailure)) throw error;
    let path = '';
    for (const segment of error.segments) {
      if (typeof segment === 'number') path += `[${segment}]`;
      else path += path === '' ? segment : `.${segment}`;
    }
    throw new ValidationError(path, error.detail);
  }
}

function compile(cls: Constructor): Instantiate {
  const fields = classPlan(cls).fields.map((field) => ({
    key: field.name,
    convert: converter(field.shape),
  }));
  const keys = fields.map((f) => f.key);
  const New = cls as unknown as new () => Record<string, unknown>;
  if (usesTransformer(cls, keys)) {
    return (plain) => {
      const own: Record<string, unknown> = {};
      for (const { key, convert } of fields) {
        if (convert === undefined && Object.hasOwn(plain, key)) own[key] = plain[key];
      }
      const instance = plainToInstance(New, own);
      for (const { key, convert } of fields) {
        if (convert !== undefined && Object.hasOwn(plain, key)) {
          instance[key] = convertField(convert, plain[key], key);
        }
      }
      return instance;
    };
  }
  return compileFast(New, fields);
}

/**
 * Generates the instantiator of a class without class-transformer decorators: one
 * constant-key store per field (generic keyed stores with changing keys cost V8 several
 * times as much). Keys enter the code only as JSON string literals.
 */
function compileFast(
  New: new () => Record<string, unknown>,
  fields: readonly { key: string; convert: Convert | undefined }[],
): Instantiate {
  const lines = ['const instance = new New();', 'let v;'];
  fields.forEach(({ key, convert }, i) => {
    const k = JSON.stringify(key);
    // JSON never yields undefined, so a defined value is present, unless the key names
    // something every object inherits (toString, valueOf, ...).
    const present = key in Object.prototype ? `hasOwn(plain, ${k})` : 'v !== undefined';
    lines.push(`v = plain[${k}];`);
    lines.push(
      convert === undefined
        ? `if (${present}) instance[${k}] = v;`
        : `if (${present}) instance[${k}] = v === null ? null : convertField(converts[${i}], v, ${k});`,
    );
  });
  lines.push('return instance;');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from field names as JSON literals only
  const factory = new Function(
    'New',
    'converts',
    'convertField',
    'hasOwn',
    `return function instantiate(plain) {\n${lines.join('\n')}\n};`,
  ) as (
    New: new () => Record<string, unknown>,
    converts: readonly (Convert | undefined)[],
    convertField: typeof convertFieldValue,
    hasOwn: typeof Object.hasOwn,
  ) => Instantiate;
  return factory(
    New,
    fields.map((f) => f.convert),
    convertFieldValue,
    Object.hasOwn,
  );
}

function convertFieldValue(convert: Convert, value: unknown, key: string | number): unknown {
  return convertField(convert, value, key);
}

function convertField(convert: Convert, value: unknown, key: string | number): unknown {
  if (value === null) return null;
  try {
    return convert(value);
  } catch (error) {
    if (error instanceof ConvertFailure) error.segments.unshift(key);
    throw error;
  }
}

/** The conversion of a shape; undefined when the JSON value is already the field's value. */
function converter(shape: Shape): Convert | undefined {
  switch (shape.kind) {
    case 'date-time':
      return toDate;
    case 'bytes':
      return shape.as === 'buffer' ? toBuffer : toUint8Array;
    case 'object': {
      const nested = shape.cls;
      // Resolved on first use: a nested class compiles only when a value reaches it.
      let make: Instantiate | undefined;
      return (value) => (make ??= instantiator(nested))(value as Record<string, unknown>);
    }
    case 'array': {
      const item = converter(shape.items);
      if (item === undefined) return undefined;
      return (value) => (value as unknown[]).map((v, i) => convertField(item, v, i));
    }
    case 'map': {
      const each = converter(shape.values);
      if (each === undefined) return undefined;
      return (value) => {
        const out: Record<string, unknown> = {};
        const map = value as Record<string, unknown>;
        for (const key of Object.keys(map)) {
          const converted = convertField(each, map[key], key);
          // defineProperty keeps `__proto__` an own key instead of setting the prototype.
          if (key === '__proto__') {
            Object.defineProperty(out, key, {
              value: converted,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          } else out[key] = converted;
        }
        return out;
      };
    }
    default:
      return undefined;
  }
}

function toDate(value: unknown): Date {
  const time = rfc3339Time(value as string);
  if (time === undefined) {
    throw new ConvertFailure(
      `cannot parse ${goQuote(value as string)} as a date-time (RFC 3339, e.g. "2024-05-01T12:00:00Z")`,
    );
  }
  return new Date(time);
}

/** The number that the digits at `from`..`to` (exclusive) spell, or -1 if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Milliseconds since the epoch of an RFC 3339 time (`2024-05-01T12:00:00.5+02:00`), or
 * undefined when the text is not one, as Go's time.Time decodes it: `Date` alone would
 * also take "1" or "May 5" or February 30. Finer than milliseconds is dropped, as
 * `Date`'s own parser does. Read by hand: a regular expression costs several times more.
 */
function rfc3339Time(text: string): number | undefined {
  const length = text.length;
  if (length < 20) return undefined;
  const at = (i: number): string => text[i] ?? '';
  if (at(4) !== '-' || at(7) !== '-' || at(13) !== ':' || at(16) !== ':') return undefined;
  if (at(10) !== 'T' && at(10) !== 't') return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    return undefined;
  }
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }
  let i = 19;
  let millis = 0;
  if (at(i) === '.') {
    const start = ++i;
    while (i < length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    if (i === start) return undefined;
    millis = digits((text.slice(start, Math.min(i, start + 3)) + '00').slice(0, 3), 0, 3);
  }
  let offset = 0;
  const zone = at(i);
  if (zone === 'Z' || zone === 'z') {
    if (i + 1 !== length) return undefined;
  } else if (zone === '+' || zone === '-') {
    if (i + 6 !== length || at(i + 3) !== ':') return undefined;
    const offsetHours = digits(text, i + 1, i + 3);
    const offsetMinutes = digits(text, i + 4, i + 6);
    if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) {
      return undefined;
    }
    offset = (offsetHours * 60 + offsetMinutes) * 60_000 * (zone === '-' ? -1 : 1);
  } else return undefined;
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes them as written.
  const utc =
    year >= 100
      ? Date.UTC(year, month - 1, day, hour, minute, second, millis)
      : new Date(0).setUTCFullYear(year, month - 1, day) +
        ((hour * 60 + minute) * 60 + second) * 1000 +
        millis;
  return utc - offset;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function toBuffer(value: unknown): Buffer {
  if (!BASE64.test(value as string)) {
    throw new ConvertFailure(`expected base64 text, got ${goQuote(value as string)}`);
  }
  // Small decodes come from Node's shared pool; a copy of their own keeps a tool that
  // reads `.buffer` from seeing other data of the process.
  const pooled = Buffer.from(value as string, 'base64');
  const own = Buffer.allocUnsafeSlow(pooled.length);
  pooled.copy(own);
  return own;
}

function toUint8Array(value: unknown): Uint8Array {
  const buffer = toBuffer(value);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function usesTransformer(cls: Constructor, keys: readonly string[]): boolean {
  const target = cls as unknown as () => void;
  if (transformerStorage.getStrategy(target) !== 'none') return true;
  if (transformerStorage.getExposedMetadatas(target).length > 0) return true;
  if (transformerStorage.getExcludedMetadatas(target).length > 0) return true;
  return keys.some(
    (key) =>
      transformerStorage.findTypeMetadata(target, key) !== undefined ||
      transformerStorage.findTransformMetadatas(target, key, TransformationType.PLAIN_TO_CLASS)
        .length > 0,
  );
}
