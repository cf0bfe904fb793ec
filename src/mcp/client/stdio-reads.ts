import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { errorMessage } from '../../core';
import { CUT_LINE_END, LineBound, scanTopLevel } from '../line-bound';
import { clientSdk } from './sdk-modules';

/** What the SDK's stdio client transport reads its messages through (its `_readBuffer`). */
interface ReadBufferLike {
  append(chunk: Buffer): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/** The JSON-RPC code of the error an answer that could not be read is turned into. */
const UNREADABLE_ANSWER = -32000;

/**
 * Makes a stdio client transport of the SDK's read messages of at most `limit` bytes
 * and go on past a longer one, and turns an answer it cannot read into an error for its
 * call. The SDK's own reader closes the connection when a message outgrows its buffer:
 * one result too large from a server (the SDK's server sends any size) would fail that
 * call as "connection closed", and every call after it; and it drops a line that is not
 * JSON, or not JSON-RPC, without a word, so that a call whose answer was such a line
 * (a `NaN` in it, a result that is not an object) waited for its timeout. Here, when
 * such a message is an answer (no top-level method) whose top-level id can be read
 * (wherever among its members it is: the line is scanned as it is dropped, in bounded
 * memory), its request is answered with
 * a JSON-RPC error (-32000) that says why (its size, or what is wrong with it), so that
 * the call fails saying so and the connection goes on. Other lines that cannot be read
 * (a server's log lines on stdout, its own malformed requests) are skipped, as before.
 *
 * The transport must have been made with a `maxBufferSize` above `limit`. A transport
 * whose reader is not where this looks keeps its own.
 */
export function boundStdioReads(transport: object, limit: number): void {
  const holder = transport as { _readBuffer?: unknown };
  const inner = holder._readBuffer as Partial<ReadBufferLike> | undefined;
  if (
    typeof inner?.append !== 'function' ||
    typeof inner.readMessage !== 'function' ||
    typeof inner.clear !== 'function'
  ) {
    return;
  }
  holder._readBuffer = new BoundedReadBuffer(limit);
}

class BoundedReadBuffer implements ReadBufferLike {
  /** The messages read, and the errors made for answers that could not be, in order. */
  #messages: JSONRPCMessage[] = [];
  /** The start of a line whose newline has not come yet. */
  #partial: Buffer[] = [];
  readonly #bound: LineBound;
  /** The id the line being dropped was refused under as it passed the limit. */
  #refusedEarly: string | number | undefined;
  readonly #parse = clientSdk().parseJSONRPCMessage;

  constructor(limit: number) {
    this.#bound = new LineBound(
      limit,
      (oversized) => {
        // A request of the server's carries an id of its own counting, which may be one
        // of a call's: an error under it would fail that call.
        const { id, request } = oversized.topLevel;
        const early = this.#refusedEarly;
        this.#refusedEarly = undefined;
        if (id === undefined || request || (early !== undefined && early === id)) return;
        this.#refuse(
          id,
          `Message too large: the server's answer was ${oversized.bytes} bytes, over the limit of ${limit} bytes this client reads over stdio`,
        );
      },
      // An answer whose id comes before its result (as Go's and Python's SDKs write
      // them) fails its call as it passes the limit, not when (if ever) it ends.
      ({ id, request }) => {
        if (id === undefined || request) return;
        this.#refusedEarly = id;
        this.#refuse(
          id,
          `Message too large: the server's answer passed the limit of ${limit} bytes this client reads over stdio`,
        );
      },
    );
  }

  append(chunk: Buffer): void {
    this.#bound.write(chunk, (part) => this.#take(part));
  }

  readMessage(): JSONRPCMessage | null {
    return this.#messages.shift() ?? null;
  }

  clear(): void {
    this.#messages = [];
    this.#partial = [];
  }

  /** Takes a part of the stream that LineBound passed on, line by line. */
  #take(part: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = part.indexOf(0x0a, start);
      if (newline < 0) {
        if (start < part.length) this.#partial.push(part.subarray(start));
        return;
      }
      const end = part.subarray(start, newline);
      const line = this.#partial.length === 0 ? end : Buffer.concat([...this.#partial, end]);
      this.#partial = [];
      this.#read(line.toString('utf8').replace(/\r$/, ''));
      start = newline + 1;
    }
  }

  #read(line: string): void {
    // The end of a line too long was answered already (LineBound's onOversized).
    if (line.trim() === '' || line.endsWith(CUT_LINE_END)) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#unreadable(line, `it is not JSON (${errorMessage(error)})`);
      return;
    }
    try {
      this.#messages.push(this.#parse(value));
    } catch {
      // A server's request the SDK's schema refuses (its params no object, say) goes on
      // as it came: the connection's dispatch answers it with an Invalid Request error
      // (see dispatch.ts), where dropped its server would wait for an answer.
      if (malformedRequest(value)) this.#messages.push(value as JSONRPCMessage);
      else this.#unreadable(line, 'it is not a JSON-RPC message');
    }
  }

  #unreadable(line: string, why: string): void {
    const { id, request } = scanTopLevel(line);
    if (id === undefined || request) return;
    this.#refuse(id, `the server's answer could not be read: ${why}`);
  }

  #refuse(id: string | number, message: string): void {
    this.#messages.push({ jsonrpc: '2.0', id, error: { code: UNREADABLE_ANSWER, message } });
  }
}

/** A message with a `method` and an id to answer under, and no `result` or `error`. */
function malformedRequest(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (!('method' in value) || 'result' in value || 'error' in value) return false;
  const { id } = value as { id?: unknown };
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}
