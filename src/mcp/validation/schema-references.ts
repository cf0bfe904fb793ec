import { isJsonObject, type JsonObject } from '../../core';
import { pointerSegment } from './go-format';

/*
 * Where each subschema of a schema is, and how a `$ref` is reached: for naming, as
 * google/jsonschema-go names them, the schemas entered on the way to a failing one.
 */

/** A step from a schema into one of its subschemas. */
export interface Structure {
  readonly keyword: string;
  /** The property name, pattern or index, for keywords that hold several subschemas. */
  readonly name?: string;
  /** The subschema entered. */
  readonly schema: JsonObject | boolean;
  /** For a `$ref` followed: the path of the schema it refers to. */
  readonly path?: string;
}

// Keywords whose value is one subschema.
const SINGLE = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
  'items',
]);
// Keywords whose value holds subschemas by name or index.
const SEVERAL = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
  'items',
]);
const DEFINITIONS = new Set(['$defs', 'definitions']);

/** Where each subschema of a root schema is, and the schemas named by `$id`. */
export interface SchemaIndex {
  readonly locations: Map<object, readonly string[]>;
  readonly ids: Map<string, readonly string[]>;
}

const indexes = new WeakMap<JsonObject, SchemaIndex>();

export function schemaIndex(root: JsonObject): SchemaIndex {
  let index = indexes.get(root);
  if (index === undefined) {
    const built: SchemaIndex = { locations: new Map(), ids: new Map() };
    const visit = (node: unknown, at: readonly string[]): void => {
      if (!isJsonObject(node) || built.locations.has(node)) return;
      built.locations.set(node, at);
      if (typeof node.$id === 'string' && node.$id !== '') built.ids.set(node.$id, at);
      for (const [keyword, held] of Object.entries(node)) {
        if (SEVERAL.has(keyword) && Array.isArray(held)) {
          held.forEach((child, i) => visit(child, [...at, keyword, String(i)]));
        } else if (SEVERAL.has(keyword) && isJsonObject(held) && keyword !== 'items') {
          for (const [name, child] of Object.entries(held)) visit(child, [...at, keyword, name]);
        } else if (SINGLE.has(keyword)) visit(held, [...at, keyword]);
      }
    };
    visit(root, []);
    index = built;
    indexes.set(root, index);
  }
  return index;
}

/**
 * The steps from the root to the schema at `location` (JSON Pointer segments). A
 * location among the definitions (`$defs`, `definitions`) is one step, a `$ref` to it.
 */
export function structureAt(
  root: JsonObject,
  location: readonly string[],
): { structure: Structure[]; node: JsonObject | boolean } | undefined {
  const structure: Structure[] = [];
  let node: JsonObject | boolean = root;
  let path = '';
  for (let i = 0; i < location.length; i++) {
    if (!isJsonObject(node)) return undefined;
    const keyword = location[i]!;
    const held: unknown = node[keyword];
    path += `/${pointerSegment(keyword)}`;
    if (
      SEVERAL.has(keyword) &&
      (Array.isArray(held) || (isJsonObject(held) && keyword !== 'items'))
    ) {
      const name = location[++i] ?? '';
      const child: unknown = (held as Record<string, unknown>)[name];
      if (!isSchema(child)) return undefined;
      path += `/${pointerSegment(name)}`;
      if (DEFINITIONS.has(keyword)) {
        // Everything before a definition is where it is kept, not a way to it.
        structure.length = 0;
        structure.push({ keyword: '$ref', schema: child, path });
      } else structure.push({ keyword, name, schema: child });
      node = child;
    } else if (SINGLE.has(keyword) && isSchema(held)) {
      structure.push({ keyword, schema: held });
      node = held;
    } else return undefined;
  }
  return { structure, node };
}

/**
 * The steps from the root to the schema whose `$ref` leads to `target`, following the
 * arguments' path through `properties`, `items` and `additionalProperties` and the
 * references met on the way, then the subschemas that apply to the same value
 * (`allOf`, `then`, `else`, `dependentSchemas`); undefined when the path does not lead
 * there.
 */
export function stepsToReference(
  root: JsonObject,
  index: SchemaIndex,
  path: readonly string[],
  target: JsonObject | boolean,
): Structure[] | undefined {
  const steps: Structure[] = [];
  let node: unknown = root;
  for (const segment of path) {
    node = followReference(root, index, node, steps);
    if (!isJsonObject(node)) return undefined;
    const properties = node.properties;
    if (isJsonObject(properties) && isSchema(properties[segment])) {
      steps.push({ keyword: 'properties', name: segment, schema: properties[segment] });
      node = properties[segment];
    } else if (isSchema(node.items) && /^\d+$/.test(segment)) {
      steps.push({ keyword: 'items', schema: node.items });
      node = node.items;
    } else if (isSchema(node.additionalProperties)) {
      steps.push({ keyword: 'additionalProperties', schema: node.additionalProperties });
      node = node.additionalProperties;
    } else return undefined;
  }
  const applied = referrerAmong(root, index, node, target, APPLICATOR_DEPTH);
  return applied === undefined ? undefined : [...steps, ...applied];
}

// How deep the subschemas applied to one value are searched for a reference.
const APPLICATOR_DEPTH = 4;

/** The steps from `node` through subschemas applied to its value to a `$ref` to `target`. */
function referrerAmong(
  root: JsonObject,
  index: SchemaIndex,
  node: unknown,
  target: JsonObject | boolean,
  depth: number,
): Structure[] | undefined {
  if (!isJsonObject(node)) return undefined;
  if (
    typeof node.$ref === 'string' &&
    resolveReference(root, index, node.$ref)?.schema === target
  ) {
    return [];
  }
  if (depth === 0) return undefined;
  const children: Structure[] = [];
  if (Array.isArray(node.allOf)) {
    node.allOf.forEach((child, i) => {
      if (isSchema(child)) children.push({ keyword: 'allOf', name: String(i), schema: child });
    });
  }
  for (const keyword of ['then', 'else'] as const) {
    const child = node[keyword];
    if (isSchema(child)) children.push({ keyword, schema: child });
  }
  if (isJsonObject(node.dependentSchemas)) {
    for (const [name, child] of Object.entries(node.dependentSchemas)) {
      if (isSchema(child)) children.push({ keyword: 'dependentSchemas', name, schema: child });
    }
  }
  for (const child of children) {
    const below = referrerAmong(root, index, child.schema, target, depth - 1);
    if (below !== undefined) return [child, ...below];
  }
  return undefined;
}

/** The schema a `$ref` leads to (a step into it added), or the schema itself. */
function followReference(
  root: JsonObject,
  index: SchemaIndex,
  node: unknown,
  steps: Structure[],
): unknown {
  if (!isJsonObject(node) || typeof node.$ref !== 'string') return node;
  const step = resolveReference(root, index, node.$ref);
  if (step === undefined) return node;
  steps.push(step);
  return step.schema;
}

function resolveReference(
  root: JsonObject,
  index: SchemaIndex,
  ref: string,
): Structure | undefined {
  let location = index.ids.get(ref);
  if (location === undefined && ref.startsWith('#')) {
    const segments = schemaPathSegments(ref);
    location = segments;
  }
  if (location === undefined) return undefined;
  let node: unknown = root;
  for (const segment of location) {
    node = Array.isArray(node)
      ? node[Number(segment)]
      : isJsonObject(node)
        ? node[segment]
        : undefined;
  }
  if (!isSchema(node)) return undefined;
  const path = location.length === 0 ? 'root' : `/${location.map(pointerSegment).join('/')}`;
  return { keyword: '$ref', schema: node, path };
}

function isSchema(value: unknown): value is JsonObject | boolean {
  return typeof value === 'boolean' || isJsonObject(value);
}

/** ajv's `schemaPath` or a `$ref` (`#/properties/a~1b/type`, URI-encoded) as plain segments. */
export function schemaPathSegments(path: string): string[] | undefined {
  if (!path.startsWith('#')) return undefined;
  const rest = path.slice(1);
  if (rest === '' || rest === '/') return [];
  try {
    return rest
      .slice(1)
      .split('/')
      .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    return undefined;
  }
}
