import { plainToInstance, TransformationType } from 'class-transformer';
import { type MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { ValidationError } from '../core';
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
  return (plain) => {
    const instance = new New();
    for (let i = 0; i < fields.length; i++) {
      const { key, convert } = fields[i]!;
      if (!Object.hasOwn(plain, key)) continue;
      const value = plain[key];
      instance[key] = convert === undefined ? value : convertField(convert, value, key);
    }
    return instance;
  };
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
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          // defineProperty keeps `__proto__` an own key instead of setting the prototype.
          Object.defineProperty(out, key, {
            value: convertField(each, v, key),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return out;
      };
    }
    default:
      return undefined;
  }
}

// RFC 3339, as Go's time.Time decodes it; Date alone would also take "1" or "May 5".
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function toDate(value: unknown): Date {
  const date = RFC3339.test(value as string) ? new Date(value as string) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new ConvertFailure(
      `cannot parse ${JSON.stringify(value)} as a date-time (RFC 3339, e.g. "2024-05-01T12:00:00Z")`,
    );
  }
  return date;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function toBuffer(value: unknown): Buffer {
  if (!BASE64.test(value as string)) {
    throw new ConvertFailure(`expected base64 text, got ${JSON.stringify(value)}`);
  }
  return Buffer.from(value as string, 'base64');
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
