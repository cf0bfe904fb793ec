import { type JsonValue } from './json';
import { type Schema } from './schema';

/*
 * The generated-code fast paths, in one place. Each has an interpreter that is the
 * reference (the validator's schema walk in validate.ts; interpretInstantiator below),
 * and test/core/generated-code.test.ts holds each generated function to its
 * interpreter's verdicts and results. Code is generated from JSON literals only (every
 * name and value inlined with JSON.stringify), and where code generation is refused
 * (`--disallow-code-generation-from-strings`) the interpreter runs instead.
 */

/** A predicate that says only whether a value is valid, for the common case. */
export type FastCheck = (value: unknown) => boolean;

/**
 * Generates a straight-line predicate for a schema, with property names and enum
 * values inlined as JSON literals. It answers the common question (is this valid?)
 * several times faster than walking the schema; the caller walks the schema only
 * when it says no, to phrase the first error. Returns undefined where code cannot be
 * generated (the caller then always walks).
 */
export function generateFastCheck(schema: Schema): FastCheck | undefined {
  const state = { next: 1, enums: [] as (readonly JsonValue[])[] };
  const body = `${node(schema, 'v0', state)}return true;`;
  try {
    // Generated from the schema alone; every name and value is inlined as a JSON literal.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const factory = new Function(
      'hasOwn',
      'jsonEqual',
      'enums',
      `"use strict";return function check(v0){${body}};`,
    ) as (
      hasOwn: (o: object, k: string) => boolean,
      jsonEqual: (a: unknown, b: unknown) => boolean,
      enums: (readonly JsonValue[])[],
    ) => FastCheck;
    return factory(Object.hasOwn, jsonEqual, state.enums);
  } catch {
    return undefined;
  }
}

interface GenState {
  next: number;
  enums: (readonly JsonValue[])[];
}

function node(schema: Schema, v: string, state: GenState): string {
  const acceptsNull =
    schema.nullable === true ||
    schema.type === undefined ||
    schema.type === '' ||
    schema.type === 'null';
  const enumValues = schema.enum;
  const nullOk = acceptsNull && (enumValues === undefined || enumValues.includes(null));
  let code = `if(${v}===null){${nullOk ? '' : 'return false;'}}else{`;
  if (enumValues !== undefined) code += `if(!(${enumTest(enumValues, v, state)}))return false;`;
  code += typeTest(schema, v, state);
  return `${code}}`;
}

function enumTest(values: readonly JsonValue[], v: string, state: GenState): string {
  if (values.length === 0) return 'false';
  const tests = values
    .filter((value) => value !== null)
    .map((value) => {
      if (typeof value === 'object') {
        state.enums.push([value]);
        return `jsonEqual(enums[${state.enums.length - 1}][0],${v})`;
      }
      return `${v}===${JSON.stringify(value)}`;
    });
  return tests.length === 0 ? 'false' : tests.join('||');
}

function typeTest(schema: Schema, v: string, state: GenState): string {
  switch (schema.type) {
    case undefined:
    case '':
      return '';
    case 'string':
    case 'boolean':
      return `if(typeof ${v}!=="${schema.type}")return false;`;
    case 'number':
      return `if(!Number.isFinite(${v}))return false;`;
    case 'integer':
      return `if(!Number.isSafeInteger(${v}))return false;`;
    case 'null':
      return 'return false;';
    case 'array': {
      let code = `if(!Array.isArray(${v}))return false;`;
      if (schema.items !== undefined) {
        const i = `i${state.next++}`;
        const item = `v${state.next++}`;
        code += `for(let ${i}=0;${i}<${v}.length;${i}++){const ${item}=${v}[${i}];${node(schema.items, item, state)}}`;
      }
      return code;
    }
    case 'object':
      return objectTest(schema, v, state);
    default:
      return 'return false;';
  }
}

function objectTest(schema: Schema, v: string, state: GenState): string {
  let code = `if(typeof ${v}!=="object"||Array.isArray(${v}))return false;`;
  const required = new Set(schema.required ?? []);
  const properties = schema.properties ?? [];
  for (const property of properties) {
    const name = property.name;
    const key = JSON.stringify(name);
    const value = `v${state.next++}`;
    const check = node(property.schema, value, state);
    if (name in Object.prototype) {
      // A read would find the prototype's member (or set nothing, for `__proto__`).
      if (required.has(name)) code += `if(!hasOwn(${v},${key}))return false;`;
      code += `if(hasOwn(${v},${key})){const ${value}=${v}[${key}];${check}}`;
    } else {
      // One read: a member read as undefined is absent (or, outside decoded JSON, an
      // undefined the walk must judge, so the check says no and leaves it to the walk).
      code += `{const ${value}=${v}[${key}];if(${value}!==undefined){${check}}`;
      code += required.has(name)
        ? 'else return false;}'
        : `else if(hasOwn(${v},${key}))return false;}`;
    }
    required.delete(name);
  }
  for (const name of required) {
    code += `if(!hasOwn(${v},${JSON.stringify(name)}))return false;`;
  }
  const noAdditional = schema.noAdditional === true;
  const additional = noAdditional ? undefined : schema.additionalProperties;
  if (noAdditional || additional !== undefined) {
    const k = `k${state.next++}`;
    const known = properties.map((p) => `${k}===${JSON.stringify(p.name)}`).join('||');
    const unknown = known === '' ? 'true' : `!(${known})`;
    let onUnknown = 'return false;';
    if (additional !== undefined) {
      const value = `v${state.next++}`;
      onUnknown = `const ${value}=${v}[${k}];${node(additional, value, state)}`;
    }
    code += `for(const ${k} of Object.keys(${v})){if(${unknown}){${onUnknown}}}`;
  }
  return code;
}

/** JSON value equality: the enum comparison of the contract (numbers by value). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  return ak.every(
    (k) =>
      Object.hasOwn(b, k) &&
      jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/** One field an instantiator copies: its key and the conversion of its JSON value, if any. */
export interface CopiedField {
  readonly key: string;
  /** Undefined when the JSON value is already the field's value. */
  readonly convert: ((value: unknown) => unknown) | undefined;
}

/** Builds an instance from arguments the schema has already accepted. */
export type Instantiate = (plain: Record<string, unknown>) => object;

/** Runs one field's conversion; the caller's, so that it can say where a conversion failed. */
export type ConvertField = (
  convert: (value: unknown) => unknown,
  value: unknown,
  key: string,
) => unknown;

/**
 * The instantiator of a class, interpreted: `new New()`, then each field the arguments
 * have (a defined value; for a key every object inherits, such as `toString`, an own
 * one), converted unless null. The reference the generated one is held to.
 */
export function interpretInstantiator(
  New: new () => Record<string, unknown>,
  fields: readonly CopiedField[],
  convertField: ConvertField,
): Instantiate {
  const inherited = fields.map(({ key }) => key in Object.prototype);
  return (plain) => {
    const instance = new New();
    for (let i = 0; i < fields.length; i++) {
      const { key, convert } = fields[i]!;
      const v = plain[key];
      if (inherited[i] === true ? !Object.hasOwn(plain, key) : v === undefined) continue;
      instance[key] = convert === undefined || v === null ? v : convertField(convert, v, key);
    }
    return instance;
  };
}

/**
 * The same instantiator as straight-line code: one constant-key store per field
 * (generic keyed stores with changing keys cost V8 several times as much). Undefined
 * when code generation is refused.
 */
export function generateInstantiator(
  New: new () => Record<string, unknown>,
  fields: readonly CopiedField[],
  convertField: ConvertField,
): Instantiate | undefined {
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
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from field names as JSON literals only
    const factory = new Function(
      'New',
      'converts',
      'convertField',
      'hasOwn',
      // Strict, as the interpreted one is: a store the instance refuses throws in both.
      `"use strict";return function instantiate(plain) {\n${lines.join('\n')}\n};`,
    ) as (
      New: new () => Record<string, unknown>,
      converts: readonly (((value: unknown) => unknown) | undefined)[],
      convertField: ConvertField,
      hasOwn: typeof Object.hasOwn,
    ) => Instantiate;
    return factory(
      New,
      fields.map((f) => f.convert),
      convertField,
      Object.hasOwn,
    );
  } catch {
    return undefined;
  }
}
