import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { LineBound } from '../line-bound';

/** What the SDK's stdio client transport reads its messages through (its `_readBuffer`). */
interface ReadBufferLike {
  append(chunk: Buffer): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/**
 * Makes a stdio client transport of the SDK's read messages of at most `limit` bytes
 * and go on past a longer one. Its own reader closes the connection when a message
 * outgrows its buffer: one result too large from a server (the SDK's server sends any
 * size) would fail that call as "connection closed", and every call after it. Here the
 * message is dropped, and when it is an answer whose id can be read (its first or last
 * bytes, where servers put it), its request is answered with a JSON-RPC error (-32000) that gives
 * its size, so that the call fails saying why and the connection goes on.
 *
 * The transport must have been made with a `maxBufferSize` above `limit` (what this
 * passes on to the SDK's reader is a line of at most `limit` bytes and one chunk's
 * remainder). A transport whose reader is not where this looks keeps its own.
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
  holder._readBuffer = new BoundedReadBuffer(inner as ReadBufferLike, limit);
}

class BoundedReadBuffer implements ReadBufferLike {
  /** Answers to requests whose response was too long, in the order they came. */
  #refusals: JSONRPCMessage[] = [];
  readonly #bound: LineBound;

  constructor(
    private readonly inner: ReadBufferLike,
    limit: number,
  ) {
    this.#bound = new LineBound(limit, (oversized) => {
      // A request of the server's carries an id of its own counting, which may be one
      // of a call's: an error under it would fail that call.
      if (oversized.id === undefined || oversized.request) return;
      this.#refusals.push({
        jsonrpc: '2.0',
        id: oversized.id,
        error: {
          code: -32000,
          message: `Message too large: the server's answer was ${oversized.bytes} bytes, over the limit of ${limit} bytes this client reads over stdio`,
        },
      });
    });
  }

  append(chunk: Buffer): void {
    this.#bound.write(chunk, (part) => this.inner.append(part));
  }

  readMessage(): JSONRPCMessage | null {
    return this.inner.readMessage() ?? this.#refusals.shift() ?? null;
  }

  clear(): void {
    this.inner.clear();
    this.#refusals = [];
  }
}
