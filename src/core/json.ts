/** A JSON value as `JSON.parse` produces it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How deeply JSON may nest (objects and arrays inside one another) wherever agenttool
 * reads or writes it: arguments, records, results, definitions. Deeper input is
 * refused with an error naming this limit. The walks that need it (`JSON.stringify`,
 * `structuredClone`, canonical JSON, schema compilation) are recursive, and on Node's
 * default stack they overflow between about 2,000 and 4,000 levels, fewer when the
 * caller is itself deep; 1000 leaves them room while being far beyond any real tool
 * arguments. (Go's encoding/json stops at 10000.)
 */
export const MAX_JSON_DEPTH = 1000;

/** What is wrong with JSON nested too deeply: `exceeded max depth of 1000`. */
export const DEPTH_EXCEEDED = `exceeded max depth of ${MAX_JSON_DEPTH}`;

/**
 * The phrase of refused JSON text or arguments, naming the character that opened the
 * level too many: Go's scanner phrase (`invalid character '[' exceeded max depth`)
 * with the limit named.
 */
export function depthExceededText(opening: '{' | '['): string {
  return `invalid character '${opening}' ${DEPTH_EXCEEDED}`;
}

/**
 * Whether a decoded value nests objects and arrays more than {@link MAX_JSON_DEPTH}
 * deep: the opening character of the first level too many, or undefined. The walk
 * stops at the first level too many, so it never recurses deeper than the limit
 * however deep the value is (and a cycle counts as too deep).
 */
export function depthExceeded(value: unknown): '{' | '[' | undefined {
  return typeof value === 'object' && value !== null ? walkDepth(value, 1) : undefined;
}

function walkDepth(container: object, depth: number): '{' | '[' | undefined {
  const array = Array.isArray(container);
  if (depth > MAX_JSON_DEPTH) return array ? '[' : '{';
  if (array) {
    const items = container as unknown[];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item === 'object' && item !== null) {
        const found = walkDepth(item, depth + 1);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }
  const members = container as Record<string, unknown>;
  // for-in walks no array of keys; an inherited enumerable member is only walked too.
  for (const key in members) {
    const item = members[key];
    if (typeof item === 'object' && item !== null) {
      const found = walkDepth(item, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Whether JSON text nests more than {@link MAX_JSON_DEPTH} deep: the opening character
 * of the first level too many, or undefined. Text no longer than the limit cannot, so
 * it is not read; longer text is scanned once, strings skipped.
 */
export function textDepthExceeded(text: string): '{' | '[' | undefined {
  if (text.length <= MAX_JSON_DEPTH) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to its closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return c === 0x7b ? '{' : '[';
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

/**
 * Go's `json: unsupported value: NaN` (`+Inf`, `-Inf`) for the first number of `value`
 * that JSON has no form for, as `JSON.stringify` meets it (after `toJSON`; a `Number`
 * object too); undefined when every number is finite. `JSON.stringify` writes such a
 * number as `null`, so a caller looks only when its text holds one.
 */
export function nonFiniteProblem(value: unknown): string | undefined {
  let problem: string | undefined;
  JSON.stringify(value, (_key, member: unknown) => {
    if (problem !== undefined) return undefined;
    const number =
      typeof member === 'number' ? member : member instanceof Number ? member.valueOf() : 0;
    if (Number.isFinite(number)) return member;
    problem = `json: unsupported value: ${Number.isNaN(number) ? 'NaN' : number > 0 ? '+Inf' : '-Inf'}`;
    return undefined;
  });
  return problem;
}

/** The value at `path` (member names from the root) in a JSON value; undefined where a step is missing. */
export function jsonValueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isJsonObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * A string, boolean or finite number as its text (an integer past 2^53 has none: its
 * digits would not be exact); undefined for anything else.
 */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
  }
  return undefined;
}

/**
 * A deep copy of plain JSON data (objects, arrays, strings, numbers, booleans, null),
 * such as a schema this package built: on a tool's small schemas several times faster
 * than `structuredClone`, which serializes. Meant for data known to be plain: an object
 * that is not (a Date, a Map) is copied by `structuredClone`, and `structuredClone` is
 * the copy for data someone else owns. A member named `__proto__` stays a member.
 */
export function copyJson<T extends JsonValue>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyValue);
  // Not plain JSON (a Date, a Map, a class instance): copied the general way, never shared.
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setMember(copy, key, copyValue((value as Record<string, unknown>)[key]));
  }
  return copy;
}

/**
 * `target[key] = value` as an own, enumerable member, `__proto__` included: assigning
 * that name would set the object's prototype instead.
 */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
