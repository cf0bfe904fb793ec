import { goQuote, isJsonObject, type JsonObject } from '../../core';
import { type AjvError, type Located, locateErrors, type Step } from './ajv-errors';
import {
  goFixed,
  goInstance,
  goInstanceS,
  goQuoteList,
  goRat,
  goValue,
  jsonTypeOf,
  jsonValuesEqual,
  pointerSegment,
} from './go-format';

/*
 * ajv gives the verdict on a schema outside the contract's subset; this file says
 * what google/jsonschema-go would have said. jsonschema-go stops at the first failing
 * keyword of each schema, in a fixed order (type, enum, const, numbers, strings, allOf,
 * anyOf, oneOf, not, if/then/else, arrays, objects: properties, patternProperties,
 * additionalProperties, propertyNames, min/maxProperties, required, dependencies); ajv,
 * asked for every error, reports them all. Of those, the one jsonschema-go meets first is
 * phrased in its words, under the `validating <schema path>: ` of each schema entered.
 */

// Subschemas whose own errors jsonschema-go does not report: only the keyword's verdict.
const BRANCHES = new Set(['anyOf', 'oneOf', 'not', 'if', 'contains']);
// ajv's summaries of errors it also reports one by one: jsonschema-go reports those.
const SUMMARIES = new Set(['if', 'propertyNames']);

/**
 * The text google/jsonschema-go gives for `value`, which ajv (asked for every error)
 * refused against `root`, e.g. `validating root: validating /properties/n: minimum: 0/1
 * is less than 1.000000`.
 */
export function goPhrasing(
  root: JsonObject,
  value: unknown,
  errors: readonly AjvError[],
  draft07: boolean,
): string {
  const located = locateErrors(root, value, errors, draft07);
  const first = firstReported(located, 0);
  if (first === undefined) {
    const error = errors[0];
    const detail = error === undefined ? 'invalid' : `${error.keyword}: ${error.message ?? ''}`;
    return `validating ${schemaLabel(root, 'root')}: ${detail}`;
  }
  return `validating ${schemaLabel(root, 'root')}: ${phrase(first, 0, located)}`;
}

/** The error jsonschema-go meets first among those whose steps are below `depth`. */
function firstReported(located: readonly Located[], depth: number): Located | undefined {
  let first: Located | undefined;
  for (const entry of located) {
    if (SUMMARIES.has(entry.keyword)) continue;
    if (entry.steps.slice(depth).some((step) => BRANCHES.has(step.keyword))) continue;
    if (first === undefined || compareOrder(entry.order, first.order) < 0) first = entry;
  }
  return first;
}

function compareOrder(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const difference = a[i]! - b[i]!;
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/** The error with `validating <path>: ` for each schema entered from step `from` on. */
function phrase(entry: Located, from: number, all: readonly Located[]): string {
  let text = '';
  let path = '';
  entry.steps.forEach((step, i) => {
    path = stepPath(path, step);
    if (i >= from) text += `validating ${schemaLabel(step.schema, path)}: `;
  });
  return text + message(entry, path, all);
}

function stepPath(parent: string, step: Step): string {
  if (step.path !== undefined) return step.path;
  const name = step.name === undefined ? '' : `/${pointerSegment(step.name)}`;
  // Below the root (entered again through `"$ref": "#"`), paths start at "".
  return `${parent === 'root' ? '' : parent}/${step.keyword}${name}`;
}

/** How jsonschema-go names a schema in `validating …`: its `$id`, else its path. */
function schemaLabel(schema: JsonObject | boolean | undefined, path: string): string {
  if (isJsonObject(schema) && typeof schema.$id === 'string' && schema.$id !== '') {
    return schema.$id;
  }
  return path;
}

/** A schema as `%v` prints a `*Schema`: its `$id`, `anchor <a>`, or `<anonymous schema>`. */
function schemaName(schema: unknown): string {
  if (isJsonObject(schema)) {
    if (typeof schema.$id === 'string' && schema.$id !== '') return schema.$id;
    const anchor = [schema.$anchor, schema.$dynamicAnchor].find(
      (a) => typeof a === 'string' && a !== '',
    );
    if (typeof anchor === 'string') return `anchor ${anchor}`;
  }
  return '<anonymous schema>';
}

function schemaNames(schemas: unknown): string {
  return `[${(Array.isArray(schemas) ? schemas : []).map(schemaName).join(' ')}]`;
}

function message(entry: Located, path: string, all: readonly Located[]): string {
  const { keyword, instance } = entry;
  const node: JsonObject = isJsonObject(entry.node) ? entry.node : {};
  const limit = node[keyword];
  switch (keyword) {
    case 'type': {
      const want = Array.isArray(limit)
        ? `one of ${goQuote(limit.map(textOf).join(', '))}`
        : goQuote(textOf(limit));
      return `type: ${goInstance(instance)} has type ${goQuote(jsonTypeOf(instance))}, want ${want}`;
    }
    case 'enum':
      return `enum: ${goInstance(instance)} does not equal any of: ${goValue(limit)}`;
    case 'const':
      return `const: ${goInstance(instance)} does not equal ${goValue(limit)}`;
    case 'multipleOf':
      return `multipleOf: ${goRat(Number(instance))} is not a multiple of ${goFixed(Number(limit))}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${keyword}: ${goRat(Number(instance))} is ${BOUND_WORDS[keyword]} ${goFixed(Number(limit))}`;
    case 'minLength':
    case 'maxLength':
      return `${keyword}: ${goQuote(String(instance))} contains ${[...String(instance)].length} Unicode code points, ${keyword === 'minLength' ? 'fewer' : 'more'} than ${intOf(limit)}`;
    case 'pattern':
      return `pattern: ${goQuote(String(instance))} does not match regular expression ${goQuote(textOf(limit))}`;
    case 'false schema':
      return 'not: validated against <anonymous schema>';
    case 'not':
      return `not: validated against ${schemaName(limit)}`;
    case 'anyOf':
      return anyOfMessage(entry, limit, all);
    case 'oneOf': {
      const passing = (entry.error.params as { passingSchemas?: unknown }).passingSchemas;
      const list = Array.isArray(limit) ? (limit as unknown[]) : [];
      if (Array.isArray(passing) && passing.length >= 2) {
        return `oneOf: validated against both ${schemaName(list[Number(passing[0])])} and ${schemaName(list[Number(passing[1])])}`;
      }
      return `oneOf: did not validate against any of ${schemaNames(limit)}`;
    }
    case 'contains':
      return containsMessage(entry, node, all);
    case 'minItems':
    case 'maxItems':
      return `${keyword}: array length ${arrayLength(instance)} is ${keyword === 'minItems' ? 'less' : 'greater'} than ${intOf(limit)}`;
    case 'uniqueItems':
      return uniqueItemsMessage(instance);
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems':
    case 'unevaluatedProperties':
      // A `false` subschema, which jsonschema-go reads as {"not": {}}.
      return `validating ${path}/${keyword}: not: validated against <anonymous schema>`;
    case 'additionalProperties':
      return `unexpected additional properties ${goQuoteList(additionalNames(entry, all))}`;
    case 'minProperties':
    case 'maxProperties':
      return `${keyword}: object has ${propertyCount(instance)} properties, ${keyword === 'minProperties' ? 'less' : 'greater'} than ${intOf(limit)}`;
    case 'required':
      return `required: missing properties: ${goQuoteList(missing(instance, limit))}`;
    case 'dependentRequired':
    case 'dependencies': {
      const property = String((entry.error.params as { property?: unknown }).property);
      const needed = isJsonObject(limit) ? limit[property] : undefined;
      return `dependentRequired[${goQuote(property)}]: missing properties ${goQuoteList(missing(instance, needed))}`;
    }
    default:
      return `${keyword}: ${entry.error.message ?? 'invalid'}`;
  }
}

/** A keyword's string value (a type name, a pattern). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** `%d` of an integer keyword (jsonschema-go reads minLength, minItems, … as int). */
function intOf(value: unknown): string {
  return typeof value === 'number' ? Math.trunc(value).toString() : textOf(value);
}

const BOUND_WORDS: Readonly<Record<string, string>> = {
  minimum: 'less than',
  maximum: 'greater than',
  exclusiveMinimum: 'less than or equal to',
  exclusiveMaximum: 'greater than or equal to',
};

function anyOfMessage(entry: Located, schemas: unknown, all: readonly Located[]): string {
  const depth = entry.steps.length;
  const branches = (Array.isArray(schemas) ? schemas : []).flatMap((_schema, i) => {
    const under = all.filter(
      (other) =>
        other.steps.length > depth &&
        sameSteps(other.steps, entry.steps, depth) &&
        other.steps[depth]?.keyword === 'anyOf' &&
        other.steps[depth]?.name === String(i),
    );
    const first = firstReported(under, depth + 1);
    return first === undefined ? [] : [phrase(first, depth, all)];
  });
  return `anyOf: did not validate against any of ${schemaNames(schemas)}:\n${branches.join('\n')}`;
}

function containsMessage(entry: Located, node: JsonObject, all: readonly Located[]): string {
  const items = Array.isArray(entry.instance) ? (entry.instance as unknown[]) : [];
  const depth = entry.steps.length;
  const failing = new Set<number>();
  for (const other of all) {
    if (other.steps[depth]?.keyword === 'contains' && sameSteps(other.steps, entry.steps, depth)) {
      const index = other.steps[depth]?.at;
      if (index !== undefined) failing.add(Number(index));
    }
  }
  const matched = items.length - failing.size;
  const min = node.minContains;
  const max = node.maxContains;
  if (matched === 0 && (typeof min !== 'number' || min > 0)) {
    return `contains: ${goInstanceS(entry.instance)} does not have an item matching ${schemaName(node.contains)}`;
  }
  if (typeof min === 'number' && matched < min) {
    return `minContains: contains validated ${matched} items, less than ${min}`;
  }
  return `maxContains: contains validated ${matched} items, greater than ${intOf(max)}`;
}

function uniqueItemsMessage(instance: unknown): string {
  const items = Array.isArray(instance) ? (instance as unknown[]) : [];
  for (let i = 1; i < items.length; i++) {
    for (let j = 0; j < i; j++) {
      if (jsonValuesEqual(items[i], items[j]))
        return `uniqueItems: array items ${i} and ${j} are equal`;
    }
  }
  return 'uniqueItems: array items are not unique';
}

/** Every property `additionalProperties: false` refused in the same object, in its order. */
function additionalNames(entry: Located, all: readonly Located[]): string[] {
  const names: string[] = [];
  for (const other of all) {
    if (
      other.keyword === 'additionalProperties' &&
      other.error.instancePath === entry.error.instancePath &&
      other.steps.length === entry.steps.length &&
      sameSteps(other.steps, entry.steps, entry.steps.length)
    ) {
      names.push(
        String((other.error.params as { additionalProperty?: unknown }).additionalProperty),
      );
    }
  }
  return names;
}

function missing(instance: unknown, names: unknown): string[] {
  if (!Array.isArray(names)) return [];
  const object = isJsonObject(instance) ? instance : {};
  return names.map(String).filter((name) => !Object.hasOwn(object, name));
}

function arrayLength(instance: unknown): number {
  return Array.isArray(instance) ? instance.length : 0;
}

function propertyCount(instance: unknown): number {
  return isJsonObject(instance) ? Object.keys(instance).length : 0;
}

function sameSteps(a: readonly Step[], b: readonly Step[], count: number): boolean {
  for (let i = 0; i < count; i++) {
    const x = a[i];
    const y = b[i];
    if (x?.keyword !== y?.keyword || x?.name !== y?.name || x?.path !== y?.path) return false;
  }
  return true;
}
