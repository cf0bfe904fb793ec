import { depthExceeded, MAX_JSON_DEPTH } from '../core';

/**
 * The refusal of a message nested deeper than {@link MAX_JSON_DEPTH} outside a tool's
 * arguments: the SDK's schemas walk such members (capabilities, `_meta`) recursively and
 * would overflow the stack on them, failing the request as the server's fault.
 */
export const TOO_DEEP_MESSAGE = `Invalid request: the message nests objects and arrays more than ${MAX_JSON_DEPTH} deep outside a tool's arguments`;

/**
 * True when a parsed message (or a batch of them) nests objects and arrays more than
 * {@link MAX_JSON_DEPTH} deep anywhere but in a request's `params.arguments`, which stay
 * the tool's to refuse in the contract's words (`exceeded max depth`). The walk stops at
 * the first level too many.
 */
export function nestedTooDeep(message: unknown): boolean {
  if (Array.isArray(message)) return message.some(nestedTooDeep);
  if (typeof message !== 'object' || message === null) return false;
  const members = message as Record<string, unknown>;
  // for-in: no array of keys per message, on every request's path.
  for (const key in members) {
    const member = members[key];
    if (typeof member !== 'object' || member === null) continue;
    if (key !== 'params' || Array.isArray(member)) {
      // The message is the first level; its member starts the second.
      if (depthExceeded([member]) !== undefined) return true;
      continue;
    }
    const params = member as Record<string, unknown>;
    for (const name in params) {
      const value = params[name];
      if (name === 'arguments' || typeof value !== 'object' || value === null) continue;
      if (depthExceeded([[value]]) !== undefined) return true;
    }
  }
  return false;
}
