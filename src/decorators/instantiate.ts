import {
  type Constructor,
  type CopiedField,
  generateInstantiator,
  goQuote,
  type Instantiate,
  interpretInstantiator,
  setMember,
  ValidationError,
} from '../core';
import { type ClassPlans } from './class-plan';
import { type Shape } from './shape';
import { plainToInstance, usesTransformer } from './class-transformer-adapter';
import { base64Bytes, rfc3339Time } from './conversions';

export { type Instantiate };

type Convert = (value: unknown) => unknown;

/** A conversion that failed on a value the schema accepted (a date or base64 that does not parse). */
class ConvertFailure extends ValidationError {
  readonly segments: (string | number)[] = [];
  constructor(readonly failure: string) {
    super('', failure);
  }
}

/**
 * The instantiators of one arguments tree: each class's built on first use, from its
 * plan. One makes what class-transformer's `plainToInstance` makes for these shapes
 * (`new Class()`, then each field the input has: nested classes as instances, dates as
 * `Date`, base64 as bytes) without its per-call metadata lookups. Only the class's own
 * fields are copied, so unknown keys, `__proto__`, `constructor` and `prototype` never
 * reach an instance; map keys become own properties. A class that carries
 * class-transformer decorators (`@Transform`, `@Expose`, `@Exclude`, `@Type`) is built
 * by `plainToInstance` itself from its fields, so its transforms apply; its nested
 * values are built here.
 */
export class Instantiators {
  readonly #made = new Map<Constructor, Instantiate>();

  constructor(private readonly plans: ClassPlans) {}

  /** The instantiator of `cls`. */
  of(cls: Constructor): Instantiate {
    let make = this.#made.get(cls);
    if (make === undefined) {
      make = this.#compile(cls);
      this.#made.set(cls, make);
    }
    return make;
  }

  #compile(cls: Constructor): Instantiate {
    const fields: CopiedField[] = this.plans.of(cls).fields.map((field) => ({
      key: field.name,
      convert: this.#converter(field.shape),
    }));
    const New = cls as unknown as new () => Record<string, unknown>;
    if (
      usesTransformer(
        cls,
        fields.map((f) => f.key),
      )
    ) {
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
    return (
      generateInstantiator(New, fields, convertField) ??
      interpretInstantiator(New, fields, convertField)
    );
  }

  /** The conversion of a shape; undefined when the JSON value is already the field's value. */
  #converter(shape: Shape): Convert | undefined {
    switch (shape.kind) {
      case 'date-time':
        return toDate;
      case 'bytes':
        return shape.as === 'buffer' ? toBuffer : toUint8Array;
      case 'object': {
        const nested = shape.cls;
        // Resolved on first use: a nested class compiles only when a value reaches it.
        let make: Instantiate | undefined;
        return (value) => (make ??= this.of(nested))(value as Record<string, unknown>);
      }
      case 'array': {
        const item = this.#converter(shape.items);
        if (item === undefined) return undefined;
        return (value) => (value as unknown[]).map((v, i) => convertField(item, v, i));
      }
      case 'map': {
        const each = this.#converter(shape.values);
        if (each === undefined) return undefined;
        return (value) => {
          const out: Record<string, unknown> = {};
          const map = value as Record<string, unknown>;
          for (const key of Object.keys(map)) {
            setMember(out, key, convertField(each, map[key], key));
          }
          return out;
        };
      }
      default:
        return undefined;
    }
  }
}

/** Runs an instantiator; a conversion failure becomes the contract's error with the field's path. */
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
    throw new ValidationError(path, error.failure);
  }
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

function toDate(value: unknown): Date {
  const time = rfc3339Time(value as string);
  if (time === undefined) {
    throw new ConvertFailure(
      `cannot parse ${goQuote(value as string)} as a date-time (RFC 3339, e.g. "2024-05-01T12:00:00Z")`,
    );
  }
  return new Date(time);
}

function toBuffer(value: unknown): Buffer {
  const bytes = base64Bytes(value as string);
  if (bytes === undefined) {
    throw new ConvertFailure(`expected base64 text, got ${goQuote(value as string)}`);
  }
  return bytes;
}

function toUint8Array(value: unknown): Uint8Array {
  const buffer = toBuffer(value);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
