import { goQuote, type Schema } from '../../core';
import {
  goInstance,
  goQuoteList,
  goValue,
  jsonTypeOf,
  jsonValuesEqual,
  pointerSegment,
} from './go-format';

/** Checks a decoded value; returns jsonschema-go's error text, or undefined when it is valid. */
export type SubsetWalk = (value: unknown) => string | undefined;

/**
 * Compiles a schema of the contract's subset (type, enum, properties, required, items,
 * additionalProperties) into the check google/jsonschema-go makes of it, with its error
 * text byte for byte: each schema entered adds `validating <its path>: ` (`root`,
 * `/properties/text`, `/properties/tags/items`); per schema, `type`, then `enum`, then
 * for an array each item in order, for an object its `properties` (in the schema's
 * order), `additionalProperties` (`unexpected additional properties ["more"]`, the
 * names in the arguments' order), then `required` (`required: missing properties:
 * ["text"]`). Object and array keywords apply to any object or array, typed or not.
 * Where Go iterates a map (properties), it goes in random order; this goes in the
 * schema's order, so that the same call always reads the same.
 */
export function compileSubsetWalk(schema: Schema): SubsetWalk {
  return compileNode(schema, 'root');
}

function compileNode(schema: Schema, path: string): SubsetWalk {
  const label = `validating ${path}: `;
  const base = path === 'root' ? '' : path;
  const checks: SubsetWalk[] = [];
  const type = schema.type;
  if (type !== undefined && type !== '') checks.push(typeCheck(type, schema.nullable === true));
  if (schema.enum !== undefined) checks.push(enumCheck(schema.enum));
  if (schema.items !== undefined)
    checks.push(itemsCheck(compileNode(schema.items, `${base}/items`)));
  if (
    schema.properties !== undefined ||
    schema.required !== undefined ||
    schema.noAdditional === true ||
    schema.additionalProperties !== undefined
  ) {
    checks.push(objectCheck(schema, base));
  }
  return (value) => {
    for (const check of checks) {
      const failure = check(value);
      if (failure !== undefined) return label + failure;
    }
    return undefined;
  };
}

function typeCheck(type: string, nullable: boolean): SubsetWalk {
  // A nullable type is written as the union [type, "null"].
  const want = nullable ? `one of ${goQuote(`${type}, null`)}` : goQuote(type);
  return (value) => {
    const got = jsonTypeOf(value);
    // "number" takes integers too.
    if (got === type || (got === 'integer' && type === 'number') || (nullable && got === 'null')) {
      return undefined;
    }
    return `type: ${goInstance(value)} has type ${goQuote(got)}, want ${want}`;
  };
}

function enumCheck(values: readonly unknown[]): SubsetWalk {
  const listed = goValue(values);
  return (value) =>
    values.some((allowed) => jsonValuesEqual(allowed, value))
      ? undefined
      : `enum: ${goInstance(value)} does not equal any of: ${listed}`;
}

function itemsCheck(items: SubsetWalk): SubsetWalk {
  return (value) => {
    if (!Array.isArray(value)) return undefined;
    for (const item of value) {
      const failure = items(item);
      if (failure !== undefined) return failure;
    }
    return undefined;
  };
}

function objectCheck(schema: Schema, base: string): SubsetWalk {
  const properties = (schema.properties ?? []).map((p) => ({
    name: p.name,
    check: compileNode(p.schema, `${base}/properties/${pointerSegment(p.name)}`),
  }));
  const known = new Set(properties.map((p) => p.name));
  const noAdditional = schema.noAdditional === true;
  const additional =
    !noAdditional && schema.additionalProperties !== undefined
      ? compileNode(schema.additionalProperties, `${base}/additionalProperties`)
      : undefined;
  const required = schema.required ?? [];
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const object = value as Record<string, unknown>;
    for (const { name, check } of properties) {
      if (!Object.hasOwn(object, name)) continue;
      const failure = check(object[name]);
      if (failure !== undefined) return failure;
    }
    if (noAdditional) {
      const disallowed = Object.keys(object).filter((key) => !known.has(key));
      if (disallowed.length > 0)
        return `unexpected additional properties ${goQuoteList(disallowed)}`;
    } else if (additional !== undefined) {
      for (const key of Object.keys(object)) {
        if (known.has(key)) continue;
        const failure = additional(object[key]);
        if (failure !== undefined) return failure;
      }
    }
    const missing = required.filter((name) => !Object.hasOwn(object, name));
    if (missing.length > 0) return `required: missing properties: ${goQuoteList(missing)}`;
    return undefined;
  };
}

/**
 * True when the contract's validator and jsonschema-go agree on every value for this
 * schema, so the contract's fast check can answer for valid arguments. They differ only
 * where a schema without a `type` has object or array keywords: the contract's
 * validator applies them to an object or array type only, jsonschema-go to any object
 * or array. (Under another type, a value they would apply to has failed `type` first.)
 */
export function sameVerdicts(schema: Schema): boolean {
  const untyped = schema.type === undefined || schema.type === '';
  const structural =
    schema.properties !== undefined ||
    schema.required !== undefined ||
    schema.items !== undefined ||
    schema.noAdditional === true ||
    schema.additionalProperties !== undefined;
  if (untyped && structural) return false;
  return (
    (schema.properties ?? []).every((p) => sameVerdicts(p.schema)) &&
    (schema.items === undefined || sameVerdicts(schema.items)) &&
    (schema.additionalProperties === undefined || sameVerdicts(schema.additionalProperties))
  );
}
