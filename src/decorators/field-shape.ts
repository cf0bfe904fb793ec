import { type Constructor, goQuote } from '../core';
import { type ParamRecord } from './metadata';
import { UNSUPPORTED } from './built-in-types';
import { type EnumValue, type Shape } from './shape';

// What a `@Param` field's declared type, design type and enum make of it: its shape,
// and the problems with them.

/** A field's `enum` (a list, or a TypeScript enum object) as its values; problems said. */
export function readEnum(
  source: unknown,
  where: string,
  problems: string[],
): readonly EnumValue[] | undefined {
  if (source === undefined) return undefined;
  let values: unknown[];
  if (Array.isArray(source)) values = source as unknown[];
  else if (typeof source === 'object' && source !== null) {
    // A TypeScript enum object: numeric members also map value → name; keep names → values.
    const object = source as Record<string, unknown>;
    values = Object.keys(object)
      .filter((key) => typeof object[object[key] as string] !== 'number')
      .map((key) => object[key]);
  } else {
    problems.push(`${where}: enum must be a list of values or a TypeScript enum`);
    return undefined;
  }
  if (values.length === 0) {
    problems.push(`${where}: enum is empty; list at least one value or drop it`);
    return undefined;
  }
  for (const value of values) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      problems.push(
        `${where}: enum value ${describeValue(value)} is not a string, number or boolean`,
      );
      return undefined;
    }
  }
  return values as EnumValue[];
}

/** Says where a field's enum values do not fit its shape. */
export function checkEnum(
  shape: Shape,
  values: readonly EnumValue[],
  where: string,
  problems: string[],
): void {
  const fits: Partial<Record<Shape['kind'], (v: EnumValue) => boolean>> = {
    string: (v) => typeof v === 'string',
    number: (v) => typeof v === 'number' && Number.isFinite(v),
    integer: (v) => typeof v === 'number' && Number.isInteger(v),
    boolean: (v) => typeof v === 'boolean',
  };
  const fitsKind = fits[shape.kind];
  if (fitsKind === undefined) {
    problems.push(
      `${where}: enum on a field of type ${shape.kind} cannot be expressed; enum applies to string, number, integer and boolean fields`,
    );
    return;
  }
  const wrong = values.find((v) => !fitsKind(v));
  const inexact =
    shape.kind === 'integer'
      ? values.find((v) => Number.isInteger(v) && !Number.isSafeInteger(v))
      : undefined;
  if (wrong === undefined && inexact !== undefined) {
    // Arguments refuse such an integer (JSON.parse has rounded it): the value is unusable.
    problems.push(
      `${where}: enum value ${describeValue(inexact)} is beyond 2^53, where a number holds no exact integer; list it as a string`,
    );
  } else if (wrong !== undefined) {
    problems.push(
      `${where}: enum value ${describeValue(wrong)} is not of type ${shape.kind}; make every enum value of type ${shape.kind} or change the field's type`,
    );
  }
}

/** What reflection or the options say, before `items`/`values` complete it. */
type Resolved = Shape | { readonly kind: 'array?' } | { readonly kind: 'object?' };

const NAMES: Readonly<Record<string, Shape>> = {
  string: { kind: 'string' },
  number: { kind: 'number' },
  integer: { kind: 'integer' },
  boolean: { kind: 'boolean' },
  any: { kind: 'any' },
  'date-time': { kind: 'date-time' },
  bytes: { kind: 'bytes', as: 'buffer' },
};

const HOW =
  "state the type: { type: 'number' }, { type: Date }, { type: () => SomeClass } and so on where a union such as T | null hides it, { type: 'any' } for any JSON value, { values: T } for a map, or { enum: [...] } for a union of literals";

function resolveType(
  type: unknown,
  where: string,
  problems: string[],
  depth = 0,
): Resolved | undefined {
  if (typeof type === 'string') {
    const named = NAMES[type];
    if (named === undefined) {
      problems.push(
        `${where}: unknown type ${goQuote(type)}; use one of ${Object.keys(NAMES).join(', ')}, a class, or [T] for an array`,
      );
    }
    return named;
  }
  if (Array.isArray(type)) {
    if (type.length !== 1) {
      problems.push(`${where}: an array type is written [T] with exactly one item type`);
      return undefined;
    }
    const items = completeItem(resolveType(type[0], where, problems, depth + 1), where, problems);
    return items === undefined ? undefined : { kind: 'array', items };
  }
  if (typeof type !== 'function') {
    problems.push(
      type === undefined
        ? `${where}: TypeScript emitted no type for the field; compile with "emitDecoratorMetadata": true, or give @Param a type ({ type: 'string' }, a class, or () => SomeClass)`
        : `${where}: ${describeValue(type)} is not a type; ${HOW}`,
    );
    return undefined;
  }
  if (type.prototype === undefined) {
    // A type function (an arrow function has no prototype): call it now, at read time.
    if (depth > 8) {
      problems.push(`${where}: the type function does not settle on a type`);
      return undefined;
    }
    let produced: unknown;
    try {
      produced = (type as () => unknown)();
    } catch (error) {
      problems.push(`${where}: the type function threw: ${String(error)}`);
      return undefined;
    }
    if (produced === undefined) {
      problems.push(
        `${where}: the type function returned undefined (a class used before it is defined, or a circular import)`,
      );
      return undefined;
    }
    return resolveType(produced, where, problems, depth + 1);
  }
  if (type === String) return { kind: 'string' };
  if (type === Number) return { kind: 'number' };
  if (type === Boolean) return { kind: 'boolean' };
  if (type === Date) return { kind: 'date-time' };
  if (type === Buffer) return { kind: 'bytes', as: 'buffer' };
  if (type === Uint8Array) return { kind: 'bytes', as: 'uint8array' };
  if (type === Array) return { kind: 'array?' };
  if (type === Object) return { kind: 'object?' };
  const unsupported = UNSUPPORTED.get(type);
  if (unsupported !== undefined) {
    problems.push(`${where}: the field is ${unsupported}, which cannot be expressed as a schema`);
    return undefined;
  }
  return { kind: 'object', cls: type as Constructor };
}

/** An item or map value must be a complete type on its own. */
function completeItem(
  resolved: Resolved | undefined,
  where: string,
  problems: string[],
): Shape | undefined {
  if (resolved?.kind === 'array?') {
    problems.push(`${where}: an array of arrays needs its inner item type; write [[T]]`);
    return undefined;
  }
  if (resolved?.kind === 'object?') {
    problems.push(`${where}: Object says nothing about the value; use 'any' or a class`);
    return undefined;
  }
  return resolved;
}

/** True when only the field's `design:type` could tell its type. */
export function needsDesignType(record: ParamRecord): boolean {
  const { type, items, values } = record.options;
  return type === undefined && items === undefined && values === undefined;
}

/** A field's shape from its declared type, else its design type, else its enum. */
export function fieldShape(
  record: ParamRecord,
  enumValues: readonly EnumValue[] | undefined,
  where: string,
  problems: string[],
): Shape | undefined {
  const { type, items, values } = record.options;
  const resolved =
    type !== undefined
      ? resolveType(type, where, problems)
      : items !== undefined && record.designType === undefined
        ? { kind: 'array?' as const }
        : values !== undefined && record.designType === undefined
          ? { kind: 'object?' as const }
          : resolveType(record.designType, where, problems);
  if (resolved === undefined) return undefined;
  if (items !== undefined && resolved.kind !== 'array?') {
    problems.push(`${where}: items is given but the field is not an array; drop items`);
    return undefined;
  }
  if (values !== undefined && resolved.kind !== 'object?') {
    problems.push(
      `${where}: values is given but the field is not a Record<string, T>; drop values`,
    );
    return undefined;
  }
  if (resolved.kind === 'array?') {
    if (items === undefined) {
      problems.push(
        `${where}: an array needs its item type, which reflection cannot see; say { items: 'string' } (a type name, a class, or () => SomeClass)`,
      );
      return undefined;
    }
    const item = completeItem(resolveType(items, where, problems), where, problems);
    return item === undefined ? undefined : { kind: 'array', items: item };
  }
  if (resolved.kind === 'object?') {
    if (values !== undefined) {
      const value = completeItem(resolveType(values, where, problems), where, problems);
      return value === undefined ? undefined : { kind: 'map', values: value };
    }
    const inferred = enumValues === undefined ? undefined : enumKind(enumValues);
    if (inferred !== undefined) return inferred;
    problems.push(
      `${where}: reflection sees only Object (a union, an interface, unknown or any), so the type is unknown; ${HOW}`,
    );
    return undefined;
  }
  return resolved;
}

/** The type of an enum's values when reflection cannot see it (a union of literals). */
function enumKind(values: readonly EnumValue[]): Shape | undefined {
  if (values.every((v) => typeof v === 'string')) return { kind: 'string' };
  if (values.every((v) => typeof v === 'boolean')) return { kind: 'boolean' };
  if (values.every((v) => typeof v === 'number' && Number.isInteger(v))) {
    return { kind: 'integer' };
  }
  if (values.every((v) => typeof v === 'number')) return { kind: 'number' };
  return undefined;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  // As written: JSON has no NaN or Infinity (it would say null).
  if (typeof value === 'number') return String(value);
  if (typeof value === 'function') return `function ${value.name}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
