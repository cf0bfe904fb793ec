import { deserializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { CUT_LINE_END } from '../line-bound';
import { nestedTooDeep } from '../message-depth';

const NEWLINE = 0x0a;

/**
 * A line read that is no message: not JSON (`parse`), JSON that is not a JSON-RPC
 * message (`invalid`, with the id it carries where it has one), or a message nested too
 * deep to be handled (`deep`).
 */
export type UnreadableLine =
  | { readonly kind: 'parse'; readonly line: string; readonly error: Error }
  | {
      readonly kind: 'invalid';
      readonly line: string;
      readonly id: string | number | undefined;
      readonly response: boolean;
      readonly error: Error;
      /** What is wrong, for a request well formed but for a member of its params. */
      readonly why?: string;
    }
  | {
      /** A message nested deeper than the SDK's schemas can walk (see `nestedTooDeep`). */
      readonly kind: 'deep';
      readonly line: string;
      readonly id: string | number | undefined;
      readonly response: boolean;
    };

/**
 * Makes a stdio server transport of the SDK's tell of each line that is no message,
 * rather than skip it: its reader drops a line that is not JSON in silence and hands
 * one that is JSON but no message to the transport's error handler, and a client whose
 * request was malformed would wait for an answer forever. Blank lines and the fragments
 * of lines cut for being too long (answered already, see `LineBound`) are skipped as
 * before. Each line is read as the SDK's reader reads it (`deserializeMessage`); a
 * transport whose reader is not where this looks keeps its own.
 */
export function tellUnreadableLines(
  transport: object,
  onUnreadable: (unreadable: UnreadableLine) => void,
): void {
  const holder = transport as { _readBuffer?: unknown };
  const own = holder._readBuffer as { append?: unknown; readMessage?: unknown } | undefined;
  if (typeof own?.append !== 'function' || typeof own.readMessage !== 'function') return;
  holder._readBuffer = new TellingReadBuffer(onUnreadable);
}

class TellingReadBuffer {
  /** What came and was not read yet, in order; a line starts at its beginning. */
  #pending: Buffer[] = [];
  /** True when what is pending holds a newline. */
  #complete = false;

  constructor(private readonly onUnreadable: (unreadable: UnreadableLine) => void) {}

  append(chunk: Buffer): void {
    this.#pending.push(chunk);
    if (chunk.includes(NEWLINE)) this.#complete = true;
  }

  readMessage(): JSONRPCMessage | null {
    while (this.#complete) {
      const all =
        this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending);
      const end = all.indexOf(NEWLINE);
      if (end === -1) {
        this.#pending = [all];
        this.#complete = false;
        return null;
      }
      const line = all.toString('utf8', 0, end).replace(/\r$/, '');
      const rest = all.subarray(end + 1);
      this.#pending = rest.length > 0 ? [rest] : [];
      this.#complete = rest.includes(NEWLINE);
      if (line.trim() === '' || line.endsWith(CUT_LINE_END)) continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        this.onUnreadable(unreadable(line, error));
        continue;
      }
      if (!nestedTooDeep(message)) return message;
      const { id } = message as { id?: unknown };
      this.onUnreadable({
        kind: 'deep',
        line,
        id: typeof id === 'string' || typeof id === 'number' ? id : undefined,
        response: !('method' in message),
      });
    }
    return null;
  }

  clear(): void {
    this.#pending = [];
    this.#complete = false;
  }
}

/** What was wrong with a line the SDK's reader refused. */
function unreadable(line: string, error: unknown): UnreadableLine {
  const cause = error instanceof Error ? error : new Error(String(error));
  if (error instanceof SyntaxError) return { kind: 'parse', line, error: cause };
  // JSON (the reader parsed it before its schema refused it): what id, if any, it has.
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'parse', line, error: cause };
  }
  const object =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const id = object?.['id'];
  return {
    kind: 'invalid',
    line,
    id:
      typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))
        ? id
        : undefined,
    response:
      object !== undefined && ('result' in object || 'error' in object) && !('method' in object),
    error: cause,
    ...(object === undefined ? {} : paramsFault(object)),
  };
}

/**
 * What is wrong with a request that has `jsonrpc`, a string `method` and an id, yet
 * the protocol's schema refused: its `params`, or their `_meta`, or the progress token
 * in it (the schema's own error is a hundred lines, naming every kind of message).
 */
function paramsFault(message: Record<string, unknown>): { why?: string } {
  const id = message['id'];
  if (
    message['jsonrpc'] !== '2.0' ||
    typeof message['method'] !== 'string' ||
    !(typeof id === 'string' || typeof id === 'number')
  ) {
    return {};
  }
  const params = message['params'];
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null) {
    return { why: 'params is neither an object nor an array' };
  }
  const meta = (params as Record<string, unknown>)['_meta'];
  if (meta === undefined) return {};
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    return { why: 'params._meta is not an object' };
  }
  const token = (meta as Record<string, unknown>)['progressToken'];
  if (token !== undefined && typeof token !== 'string' && typeof token !== 'number') {
    return { why: 'params._meta.progressToken is neither a string nor a number' };
  }
  return {};
}
