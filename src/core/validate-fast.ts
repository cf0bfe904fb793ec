import { type JsonValue } from './json';
import { type Schema } from './schema';

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
    return factory((o, k) => Object.hasOwn(o, k), jsonEqual, state.enums);
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
    case 'number':
      return `if(typeof ${v}!=="${schema.type}")return false;`;
    case 'integer':
      return `if(!Number.isInteger(${v}))return false;`;
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
  for (const name of schema.required ?? []) {
    code += `if(!hasOwn(${v},${JSON.stringify(name)}))return false;`;
  }
  const properties = schema.properties ?? [];
  for (const property of properties) {
    const key = JSON.stringify(property.name);
    const value = `v${state.next++}`;
    code += `if(hasOwn(${v},${key})){const ${value}=${v}[${key}];${node(property.schema, value, state)}}`;
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
