// Requests the listener refuses itself, with answers that say what was wrong, where the
// SDK's would not.
import { SUPPORTED_PROTOCOL_VERSIONS, specTypeSchemas } from '@modelcontextprotocol/server';
import { isJsonObject } from '../../../core';
import { jsonRpcError } from '../http';

/** The most of the issues' text an answer quotes (characters). */
const ISSUES_LIMIT = 500;

/**
 * The answer to a 2025-era POST without a session that names `initialize` but that the
 * SDK does not take for one (its params are not an initialize's: no `clientInfo`, a
 * `protocolVersion` that is no string): 400 with invalid params (-32602) naming what is
 * wrong and where, where the SDK would answer that no valid session ID was given.
 * Undefined for anything else.
 */
export function malformedInitialize(parsed: unknown): Response | undefined {
  const messages = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
  for (const message of messages) {
    if (!isJsonObject(message) || message.method !== 'initialize') continue;
    const checked = specTypeSchemas.InitializeRequest['~standard'].validate(message);
    if (checked instanceof Promise || checked.issues === undefined) continue;
    let text = checked.issues
      .map((issue) => {
        const path = (issue.path ?? [])
          .map((part) => (typeof part === 'object' ? String(part.key) : String(part)))
          .join('.');
        return path === '' ? issue.message : `${path}: ${issue.message}`;
      })
      .join('; ');
    if (text.length > ISSUES_LIMIT) text = `${text.slice(0, ISSUES_LIMIT)}...`;
    return jsonRpcError(400, -32602, `Invalid params for initialize: ${text}`, {}, message.id);
  }
  return undefined;
}

/**
 * The answer to an `MCP-Protocol-Version` header of a 2025-era session's request that
 * names no revision at all (a revision is a date, `2025-06-18`): the SDK took any value
 * it did not know for a later revision's, and asked the request for that revision's
 * `_meta`. A date it does not serve is the SDK's to refuse, naming the ones it does.
 */
export function unnamedVersion(version: string | null): Response | undefined {
  if (version === null || /^\d{4}-\d{2}-\d{2}$/.test(version)) return undefined;
  const supported = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS].join(', ');
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${JSON.stringify(version)} is no protocol revision (supported versions: ${supported})`,
  );
}
