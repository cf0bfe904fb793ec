import type * as AjvModule from 'ajv';
import { isJsonObject, type JsonObject } from '../../core';
import {
  type SchemaIndex,
  schemaIndex,
  schemaPathSegments,
  stepsToReference,
  type Structure,
  structureAt,
} from './schema-references';

/*
 * ajv's errors read against the schema and the arguments, for ajv-phrasing.ts: which
 * schemas google/jsonschema-go would have entered to meet each (`validating <path>`),
 * the value it failed on, and where jsonschema-go's order of checks meets it.
 */

/** An error ajv reports with `allErrors` and `verbose`. */
export type AjvError = AjvModule.ErrorObject;

/** A step into a subschema, with the member of the arguments it was entered for. */
export interface Step extends Structure {
  /** The member or index of the arguments it was entered for, when it applies to one. */
  readonly at?: string;
}

/** An ajv error read against the schema and the arguments. */
export interface Located {
  readonly error: AjvError;
  readonly steps: readonly Step[];
  /** The schema that holds the failing keyword. */
  readonly node: JsonObject | boolean;
  /** The failing keyword (`false schema` for a `false` subschema). */
  readonly keyword: string;
  /** The value the keyword failed on. */
  readonly instance: unknown;
  /** Where jsonschema-go meets it: compared element by element. */
  readonly order: readonly number[];
}

// jsonschema-go's order of checks within one schema (validate.go).
const RANK: Readonly<Record<string, number>> = {
  $ref: 0,
  $defs: 0,
  definitions: 0,
  type: 1,
  enum: 2,
  const: 3,
  multipleOf: 4,
  minimum: 5,
  maximum: 6,
  exclusiveMinimum: 7,
  exclusiveMaximum: 8,
  minLength: 9,
  maxLength: 10,
  pattern: 11,
  $dynamicRef: 12,
  allOf: 13,
  anyOf: 14,
  oneOf: 15,
  not: 16,
  'false schema': 16,
  if: 17,
  then: 17,
  else: 17,
  prefixItems: 18,
  items: 19,
  additionalItems: 19,
  contains: 20,
  minItems: 23,
  maxItems: 24,
  uniqueItems: 25,
  unevaluatedItems: 26,
  properties: 27,
  patternProperties: 28,
  additionalProperties: 29,
  propertyNames: 30,
  minProperties: 31,
  maxProperties: 32,
  required: 33,
  dependentRequired: 34,
  dependencies: 34,
  dependentSchemas: 35,
  unevaluatedProperties: 36,
};
const UNRANKED = 99;

// Keywords whose subschema applies to one member or item of the arguments.
const CONSUMING = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
]);
/**
 * Every ajv error read against the schema and the arguments (those that cannot be read
 * are left out).
 */
export function locateErrors(
  root: JsonObject,
  value: unknown,
  errors: readonly AjvError[],
  draft07: boolean,
): Located[] {
  const index = schemaIndex(root);
  return errors.flatMap((error) => {
    const read = locate(root, index, value, error, draft07);
    return read === undefined ? [] : [read];
  });
}

/** Reads an ajv error against the schema and the arguments; undefined when it cannot. */
function locate(
  root: JsonObject,
  index: SchemaIndex,
  value: unknown,
  error: AjvError,
  draft07: boolean,
): Located | undefined {
  // ajv names the schema that failed by object (`verbose`); its path in ajv's
  // `schemaPath` starts again at every reference it compiled on its own.
  const parent: unknown = error.parentSchema;
  let location = isJsonObject(parent) ? index.locations.get(parent) : undefined;
  if (location === undefined) {
    const segments = schemaPathSegments(error.schemaPath);
    if (segments === undefined || segments.length === 0) return undefined;
    location = segments.slice(0, -1);
  }
  const parsed = structureAt(root, location);
  if (parsed === undefined) return undefined;
  const { structure, node } = parsed;
  const instanceSegments = instancePathSegments(error.instancePath);
  // A schema among the definitions is reached through a `$ref`: the steps that led to the
  // reference are found again from the arguments' path, where they can be.
  const jump = structure.findIndex((step) => step.keyword === '$ref');
  if (jump >= 0) {
    const after = structure.slice(jump + 1).filter((s) => CONSUMING.has(s.keyword)).length;
    const led = instanceSegments.slice(0, Math.max(0, instanceSegments.length - after));
    const referrer = stepsToReference(root, index, led, structure[jump]!.schema);
    structure.splice(0, jump, ...(referrer ?? []));
  } else {
    // Members of the arguments no step accounts for: the schema was entered again from the
    // root, through a reference to it (`"$ref": "#"`).
    const after = structure.filter((s) => CONSUMING.has(s.keyword)).length;
    const led = instanceSegments.slice(0, Math.max(0, instanceSegments.length - after));
    const referrer = led.length === 0 ? undefined : stepsToReference(root, index, led, root);
    if (referrer !== undefined) {
      structure.unshift(...referrer, { keyword: '$ref', schema: root, path: 'root' });
    }
  }
  const lead = Math.max(
    0,
    instanceSegments.length - structure.filter((s) => CONSUMING.has(s.keyword)).length,
  );
  let instance: unknown = value;
  for (const segment of instanceSegments.slice(0, lead)) instance = memberOf(instance, segment);
  let next = lead;
  const steps: Step[] = [];
  const order: number[] = [];
  let current: JsonObject | boolean = root;
  const propertyName = (error as { propertyName?: unknown }).propertyName;
  for (const step of structure) {
    order.push(rankOf(step.keyword, draft07));
    const holder = isJsonObject(current) ? current : {};
    let at: string | undefined;
    if (CONSUMING.has(step.keyword)) {
      at = instanceSegments[next++] ?? '';
      const container = instance;
      instance = memberOf(instance, at);
      order.push(...positions(step, holder, container, at));
    } else if (step.keyword === 'propertyNames') {
      order.push(keyIndex(instance, typeof propertyName === 'string' ? propertyName : ''));
    } else {
      order.push(...positions(step, holder, instance, undefined));
    }
    steps.push(at === undefined ? step : { ...step, at });
    current = step.schema;
  }
  // Under propertyNames the value checked is a member's name.
  if (structure.some((s) => s.keyword === 'propertyNames') && typeof propertyName === 'string') {
    instance = propertyName;
  }
  const keyword = error.keyword;
  order.push(rankOf(keyword, draft07));
  return { error, steps, node, keyword, instance, order };
}

function rankOf(keyword: string, draft07: boolean): number {
  // Draft-07's `items` (one schema or a list) comes before `additionalItems`.
  if (draft07 && keyword === 'items') return RANK.prefixItems ?? UNRANKED;
  return RANK[keyword] ?? UNRANKED;
}

/** The position of a step among its keyword's subschemas, as jsonschema-go visits them. */
function positions(
  step: Structure,
  holder: JsonObject,
  container: unknown,
  at: string | undefined,
): number[] {
  const name = step.name ?? '';
  const held = holder[step.keyword];
  const names = isJsonObject(held) ? Object.keys(held) : [];
  switch (step.keyword) {
    case 'properties':
    case 'dependentSchemas':
    case 'dependencies':
      return [names.indexOf(name)];
    case 'patternProperties':
      return [keyIndex(container, at ?? ''), names.indexOf(name)];
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return [keyIndex(container, at ?? '')];
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems':
    case 'contains':
      return [Number(at ?? 0)];
    case 'prefixItems':
    case 'allOf':
    case 'anyOf':
    case 'oneOf':
      return [Number(name)];
    default:
      return [0];
  }
}

function keyIndex(object: unknown, key: string): number {
  return isJsonObject(object) ? Object.keys(object).indexOf(key) : 0;
}

function memberOf(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) return value[Number(segment)];
  if (isJsonObject(value)) return Object.hasOwn(value, segment) ? value[segment] : undefined;
  return undefined;
}

/** ajv's `instancePath` (`/a~1b/0`) as plain segments. */
function instancePathSegments(path: string): string[] {
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}
