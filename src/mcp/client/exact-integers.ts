import { AgentToolError, goQuote, type JsonValue } from '../../core';

/** An integer literal of 16 digits or more may be beyond 2^53; shorter ones never are. */
const MAYBE_UNSAFE = /\d{16}/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Node 21 and later: `JSON.rawJSON` (a number serialised as written) and the source
 * text of each value in a reviver. Not in the TypeScript lib this project targets.
 */
interface RawJsonApi {
  rawJSON(text: string): unknown;
}
type SourceReviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

const rawJson: RawJsonApi['rawJSON'] | undefined = (JSON as Partial<RawJsonApi>).rawJSON;

/** The integer literals of JSON text `text` beyond what a JavaScript number holds exactly. */
export function unsafeIntegers(text: string): string[] {
  if (!MAYBE_UNSAFE.test(text)) return [];
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote (the text is valid JSON already).
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) i++;
      }
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0] ?? '';
      if (isUnsafeInteger(token)) found.push(token);
      i += Math.max(token.length, 1) - 1;
    }
  }
  return found;
}

function isUnsafeInteger(token: string): boolean {
  return /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token));
}

/**
 * The decoded arguments `value` (decoded from `text`) to send, with every integer
 * beyond 2^53 kept as written, as the Go binding sends a call's arguments verbatim.
 * That needs `JSON.rawJSON` (Node 21+) and a transport that writes messages as JSON
 * text (`exact`); otherwise such an integer would reach the server changed, so the
 * call is refused with an error that says which number and why, instead.
 */
export function argumentsToSend(
  remote: string,
  text: string,
  value: JsonValue,
  exact: boolean,
): JsonValue {
  const unsafe = unsafeIntegers(text);
  if (unsafe.length === 0) return value;
  if (!exact || rawJson === undefined) {
    const where =
      rawJson === undefined
        ? 'this Node.js has no JSON.rawJSON (Node 21 and later do)'
        : 'this connection hands messages over as objects (a transport of your own), not as JSON text';
    throw new AgentToolError(
      'INVALID_ARGUMENTS',
      `mcp: call ${goQuote(remote)}: the integer ${unsafe[0] ?? ''} is beyond what a JavaScript number holds exactly (2^53) and cannot be sent as written: ${where}`,
    );
  }
  const keep = rawJson;
  const reviver: SourceReviver = (_key, member, context) =>
    typeof member === 'number' && context?.source !== undefined && isUnsafeInteger(context.source)
      ? keep(context.source)
      : member;
  return JSON.parse(text, reviver) as JsonValue;
}
