import { type Client } from '@modelcontextprotocol/client';
import { isJsonObject, type JsonObject, jsonValueAt, scalarText } from '../../core';
import { excerpt, jsonExcerpt, MAX_QUOTED_CHARS } from './excerpts';

/**
 * An argument a tool's input schema marks with `x-mcp-header` (SEP-2243, revision
 * 2026-07-28): a 2026-07-28 client over HTTP mirrors its value into the header
 * `Mcp-Param-<name>` of each `tools/call` of the tool.
 */
export interface ParamHeader {
  /** The property's keys from the arguments' root, each reached through `properties`. */
  readonly path: readonly string[];
  /** The header's name after `Mcp-Param-`, as the schema spells it. */
  readonly name: string;
}

/** What a tool's `x-mcp-header` declarations come to: the headers, or why the tool is invalid. */
export type ParamHeaderScan =
  | { readonly valid: true; readonly headers: readonly ParamHeader[] }
  | { readonly valid: false; readonly reason: string };

/** The schema keyword SEP-2243 adds. */
const X_MCP_HEADER = 'x-mcp-header';

/** The prefix of the header each declared argument travels in. */
const PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** RFC 9110 `token` (`1*tchar`): no space, control character, delimiter or non-ASCII. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The JSON Schema types a declared property may have; `number` is not among them (its
 * decimal text is not one value), nor are objects, arrays and null.
 */
const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);

/**
 * The keywords whose subschemas are not reached through a chain of `properties`: a
 * declaration under any of them makes the tool invalid.
 */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;

/** Of those, the keywords whose value maps names to subschemas. */
const NAMED_SUBSCHEMAS: ReadonlySet<string> = new Set([
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
]);

const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';

/**
 * True when the connection mirrors `x-mcp-header` arguments and leaves out the tools
 * whose declarations are invalid: a 2026-07-28 connection over anything but stdio (HTTP,
 * or a transport of the caller's own, as the SDK's client decides). A 2025-era
 * connection does neither.
 */
export function mirrorsParamHeaders(client: Client): boolean {
  if (client.getProtocolEra() !== 'modern') return false;
  const transport = client.transport;
  if (transport === undefined) return false;
  // The SDK's stdio transport, as the SDK's client tells it: a child process's.
  return !('stderr' in transport && 'pid' in transport);
}

/**
 * The `x-mcp-header` declarations of a tool's input schema, checked as SEP-2243 has a
 * client check them: each on a property reached from the root through `properties`
 * alone (at any depth; not the root, not under `items`, `anyOf`, `$defs` and the like),
 * a non-empty RFC 9110 token, on a property of type `string`, `integer` or `boolean`,
 * and no two names equal ignoring case. The first fault makes the tool invalid; a
 * schema that is not an object declares nothing. The reason quotes what the schema
 * holds cut short (see excerpts.ts).
 */
export function scanParamHeaders(schema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const visit = (
    node: unknown,
    path: readonly string[],
    reachable: boolean,
  ): string | undefined => {
    if (!isJsonObject(node)) return undefined;
    if (X_MCP_HEADER in node) {
      const where =
        path.length === 0
          ? 'the schema root'
          : `property ${excerpt(path.join('.'), MAX_QUOTED_CHARS)}`;
      if (!reachable || path.length === 0) {
        return `${where}: x-mcp-header is only allowed on a property reached through "properties" alone (not at the root, nor under items, additionalProperties, oneOf/anyOf/allOf/not, if/then/else or $defs)`;
      }
      const name = node[X_MCP_HEADER];
      if (typeof name !== 'string' || name === '') {
        return `${where}: x-mcp-header must be a non-empty string`;
      }
      if (!TOKEN.test(name)) {
        return `${where}: x-mcp-header ${jsonExcerpt(name)} is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`;
      }
      const type = node.type;
      if (typeof type !== 'string' || !PRIMITIVE_TYPES.has(type)) {
        return `${where}: x-mcp-header is only allowed on a property of type string, integer or boolean, not ${type === undefined ? 'an untyped one' : jsonExcerpt(type)}`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) {
        return `${where}: x-mcp-header ${jsonExcerpt(name)} repeats ${jsonExcerpt(prior)} (header names are compared ignoring case)`;
      }
      seen.set(name.toLowerCase(), name);
      headers.push({ path, name });
    }
    const properties = node.properties;
    if (isJsonObject(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED_SUBSCHEMAS.has(keyword) && isJsonObject(sub)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(schema, [], true);
  return fault === undefined ? { valid: true, headers } : { valid: false, reason: fault };
}

/**
 * The `Mcp-Param-*` headers of one `tools/call` with `args`: one per declared argument
 * the call carries as a string, a boolean (`true`/`false`) or a number (its decimal
 * text). An argument that is absent, null, an object or an array, or an integer beyond
 * 2^53 (which no server reads exactly), gets none. Values go as {@link encodeParamValue}
 * writes them.
 */
export function paramHeaderValues(
  declared: readonly ParamHeader[],
  args: JsonObject,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of declared) {
    const text = scalarText(jsonValueAt(args, header.path));
    if (text !== undefined) out[`${PARAM_HEADER_PREFIX}${header.name}`] = encodeParamValue(text);
  }
  return out;
}

/**
 * A value as an HTTP field value: as it is when it is printable ASCII (0x20 to 0x7E)
 * with no space at either end; otherwise (non-ASCII, a control character or a tab, a
 * space at an end, the empty string, or text that already looks like the Base64 form)
 * `=?base64?<Base64 of its UTF-8>?=`.
 */
export function encodeParamValue(value: string): string {
  return needsBase64(value)
    ? `${BASE64_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${BASE64_SUFFIX}`
    : value;
}

function needsBase64(value: string): boolean {
  if (value === '' || value.startsWith(' ') || value.endsWith(' ')) return true;
  if (value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX)) return true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return true;
  }
  return false;
}
