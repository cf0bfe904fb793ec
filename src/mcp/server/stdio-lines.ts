import { type Readable, Transform, type TransformCallback } from 'node:stream';

/**
 * The largest message a stdio connection reads by default: 10 MiB, the SDK's own
 * read buffer.
 */
export const DEFAULT_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A message longer than the bound, as far as it was seen. */
export interface OversizedMessage {
  /** Its length in bytes, up to its newline. */
  readonly bytes: number;
  /**
   * Its JSON-RPC id, where one could be read from its first or last bytes (where
   * clients put it), so that an error can answer it; undefined otherwise.
   */
  readonly id: string | number | undefined;
}

/** How much of a long line's start and end is kept to find its id. */
const KEPT = 256;
const NEWLINE = 0x0a;
const EMPTY: Buffer = Buffer.alloc(0);
/** An id as the first member of a message (after `"jsonrpc"` at most). */
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
/** An id as the last member of a message: after it, the message's own closing brace. */
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * `input` with every line longer than `limit` bytes taken out, and `onOversized` told
 * of each. The SDK's stdio transport closes the connection when a message outgrows its
 * read buffer, which ends the session (a shell's state with it) for one message too
 * large; here the line is cut off (the part already passed on is ended with a newline,
 * a fragment the SDK skips as unparseable JSON), the rest of it is dropped up to its
 * newline, and the connection goes on. `release` detaches `input` once the connection
 * is over.
 */
export function boundedLines(
  input: Readable,
  limit: number,
  onOversized: (message: OversizedMessage) => void,
): { readonly lines: Readable; release(): void } {
  let lineBytes = 0;
  let dropping = false;
  // The line's first part (a view, not a copy: most lines are never looked at again).
  let head = EMPTY;
  let tail = EMPTY;
  const keepTail = (part: Buffer): void => {
    tail = Buffer.concat([tail, part.subarray(Math.max(0, part.length - KEPT))]);
    if (tail.length > KEPT) tail = tail.subarray(tail.length - KEPT);
  };
  const filter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline;
        const part = chunk.subarray(start, end);
        if (lineBytes === 0) head = part.subarray(0, KEPT);
        if (!dropping && lineBytes + part.length > limit) {
          dropping = true;
          // What was passed on of this line ends here: the SDK skips the fragment.
          if (lineBytes > 0) this.push(Buffer.from('\n'));
        }
        lineBytes += part.length;
        if (dropping) keepTail(part);
        else this.push(newline === -1 ? part : chunk.subarray(start, newline + 1));
        if (newline === -1) break;
        if (dropping) onOversized({ bytes: lineBytes, id: idOf(head, tail) });
        lineBytes = 0;
        dropping = false;
        head = EMPTY;
        tail = EMPTY;
        start = newline + 1;
      }
      done();
    },
  });
  const onError = (error: Error): void => void filter.destroy(error);
  input.on('error', onError);
  return {
    lines: input.pipe(filter),
    // Once the connection is over, `input` is let go of as the SDK's transport lets go
    // of its own stdin: paused when nothing else reads it, so that it keeps no process
    // alive.
    release: () => {
      input.unpipe(filter);
      input.off('error', onError);
      if (input.listenerCount('data') === 0) input.pause();
    },
  };
}

function idOf(head: Buffer, tail: Buffer): string | number | undefined {
  const found =
    HEAD_ID.exec(head.toString('utf8'))?.[1] ?? TAIL_ID.exec(tail.toString('utf8'))?.[1];
  if (found === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(found);
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))
      ? id
      : undefined;
  } catch {
    return undefined;
  }
}
