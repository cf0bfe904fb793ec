import { isJsonObject, jsonValueAt, scalarText } from '../../../core';

/**
 * An argument a 2026-07-28 client mirrors into an `Mcp-Param-<name>` HTTP header
 * (`x-mcp-header` on a property reached through `properties` alone, SEP-2243).
 */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly header: string;
  readonly numeric: boolean;
}

/** What the server answers when a request's headers and body disagree. */
export interface ParamHeaderMismatch {
  readonly header: string;
  readonly message: string;
}

const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The `x-mcp-header` declarations of a tool's input schema, found through chains of
 * `properties` (where the spec allows them; a client skips a tool that places them
 * elsewhere, and so does this check).
 */
export function paramHeadersOf(schema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const visit = (node: unknown, path: string[]): void => {
    if (!isJsonObject(node)) return;
    const header = node['x-mcp-header'];
    if (path.length > 0 && typeof header === 'string' && header !== '') {
      found.push({ path, header, numeric: node.type === 'integer' || node.type === 'number' });
    }
    const properties = node.properties;
    if (!isJsonObject(properties)) return;
    for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return found;
}

/**
 * The first disagreement between a `tools/call`'s arguments and its `Mcp-Param-*`
 * headers: a body value with no header, a header whose Base64 form (`=?base64?…?=`) is
 * not canonical, or one that decodes to another value. A value absent from the body
 * (or null) needs no header.
 */
export function paramHeaderMismatch(
  declared: readonly ParamHeader[],
  args: unknown,
  headers: Headers,
): ParamHeaderMismatch | undefined {
  for (const param of declared) {
    const name = `Mcp-Param-${param.header}`;
    const body = jsonValueAt(args, param.path);
    const text = scalarText(body);
    if (text === undefined) continue;
    const where = param.path.join('.');
    const sent = headers.get(name);
    if (sent === null) {
      return mismatch(
        name,
        `the body carries ${where}=${JSON.stringify(body)} but the ${name} header is absent`,
      );
    }
    const decoded = decode(sent);
    if (decoded === undefined) {
      return mismatch(name, `the ${name} header carries an invalid Base64 value`);
    }
    const equal =
      param.numeric && typeof body === 'number' && DECIMAL.test(decoded)
        ? Number(decoded) === body
        : decoded === text;
    if (!equal) {
      return mismatch(
        name,
        `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(body)}`,
      );
    }
  }
  return undefined;
}

function mismatch(header: string, detail: string): ParamHeaderMismatch {
  return { header, message: `Bad Request: the request headers and body disagree: ${detail}` };
}

function decode(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))) return value;
  const payload = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}
