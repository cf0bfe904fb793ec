import { isJsonObject, type JsonObject } from '../../core';

/**
 * The most subschemas a check of one value may pass through, references expanded: past
 * it, a schema from elsewhere is not checked. A chain of definitions each naming the
 * last twice (`allOf: [{$ref: d29}, {$ref: d29}]`) is a few lines and 2^30 subschemas;
 * a check of `{}` against it held the process for minutes.
 */
export const MAX_EXPANDED_SUBSCHEMAS = 10_000;

/**
 * The longest array a value checked against a schema with `uniqueItems` may hold: the
 * check compares every pair of objects (200,000 of them ran for minutes), so a longer
 * one is not checked.
 */
export const MAX_UNIQUE_ITEMS_CHECKED = 1000;

/** The keywords whose values are subschemas, or maps or lists of them. */
const SUBSCHEMA_KEYWORDS: readonly string[] = [
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];

/** Keywords whose value is a map of names to subschemas. */
const MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
]);

/**
 * How many subschemas `schema` holds with its local references (`#/...`) expanded, up
 * to a little past `limit` (counting stops there). A reference back to a schema being
 * expanded (recursion, which follows the value's own depth) counts once; definitions
 * count where they are referenced, not where they are kept.
 */
export function expandedSubschemas(schema: JsonObject, limit = MAX_EXPANDED_SUBSCHEMAS): number {
  const sizes = new Map<object, number>();
  const expanding = new Set<object>();
  const size = (node: unknown): number => {
    if (!isJsonObject(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (expanding.has(node)) return 1;
    expanding.add(node);
    let total = 1;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#')) total += size(pointed(schema, ref));
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      if (total > limit) break;
      const value = node[keyword];
      if (value === undefined) continue;
      const children = MAPS.has(keyword) && isJsonObject(value) ? Object.values(value) : value;
      for (const child of Array.isArray(children) ? children : [children]) {
        total += size(child);
        if (total > limit) break;
      }
    }
    expanding.delete(node);
    const capped = Math.min(total, limit + 1);
    sizes.set(node, capped);
    return capped;
  };
  return size(schema);
}

/** What a local reference (`#`, `#/a/b`) points at in `root`; undefined when nothing. */
function pointed(root: JsonObject, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isJsonObject(node)) node = Object.hasOwn(node, token) ? node[token] : undefined;
    else return undefined;
  }
  return node;
}

/** Whether `schema` says `uniqueItems: true` anywhere. */
export function requiresUniqueItems(schema: unknown): boolean {
  const seen = new Set<object>();
  const visit = (node: unknown): boolean => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return false;
    seen.add(node);
    if (!Array.isArray(node) && (node as Record<string, unknown>)['uniqueItems'] === true) {
      return true;
    }
    return Object.values(node).some(visit);
  };
  return visit(schema);
}

/** Whether `value` holds an array longer than `limit`, at any depth. */
export function holdsArrayLongerThan(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node) && node.length > limit) return true;
    // One by one: a spread of a large object's members would overflow the call's arguments.
    for (const member of Array.isArray(node) ? (node as unknown[]) : Object.values(node)) {
      stack.push(member);
    }
  }
  return false;
}

/**
 * The check of a schema written elsewhere (a remote server's: see `isForeignSchema`),
 * which no check may let hold the process: `compile` (which must match patterns in
 * linear time) is not called for one whose references expand past
 * {@link MAX_EXPANDED_SUBSCHEMAS}, and a value holding an array longer than
 * {@link MAX_UNIQUE_ITEMS_CHECKED} is not checked where the schema asks `uniqueItems`.
 * Such a schema, or one that cannot be compiled (a look-around RE2 lacks), checks
 * nothing: the server that wrote it checks its own.
 */
export function foreignCheck<E>(
  schema: JsonObject,
  compile: () => (value: unknown) => E | undefined,
): (value: unknown) => E | undefined {
  let check: (value: unknown) => E | undefined;
  try {
    if (expandedSubschemas(schema) > MAX_EXPANDED_SUBSCHEMAS) return () => undefined;
    check = compile();
  } catch {
    return () => undefined;
  }
  if (!requiresUniqueItems(schema)) return check;
  return (value) =>
    holdsArrayLongerThan(value, MAX_UNIQUE_ITEMS_CHECKED) ? undefined : check(value);
}
