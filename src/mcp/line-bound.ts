import { type Readable, Transform, type TransformCallback } from 'node:stream';

/**
 * The largest message a stdio connection reads by default, server or client: 10 MiB,
 * the SDK's own read buffer.
 */
export const DEFAULT_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A message longer than the bound, as far as it was seen. */
export interface OversizedMessage {
  /** Its length in bytes, up to its newline. */
  readonly bytes: number;
  /**
   * Its JSON-RPC id, where one could be read from its first or last bytes (where
   * clients and servers put it), so that an error can answer it; undefined otherwise.
   */
  readonly id: string | number | undefined;
  /**
   * True when its first or last members name a method: a request (or a notification),
   * not an answer, so that its id is the sender's, not one of the reader's requests.
   */
  readonly request: boolean;
}

/** How much of a long line's start and end is kept to find its id. */
const KEPT = 256;
const NEWLINE = 0x0a;
const EMPTY: Buffer = Buffer.alloc(0);
const NEWLINE_BUFFER: Buffer = Buffer.from('\n');
/**
 * What ends the part of a line too long that was already passed on: a NUL, which no
 * JSON text holds outside a string (and none inside one unescaped), then the newline. A
 * reader skips such a fragment without answering it: its message was answered already.
 */
export const CUT_LINE_END = '\0';
const CUT_BUFFER: Buffer = Buffer.from(`${CUT_LINE_END}\n`);
/** An id as the first member of a message (after `"jsonrpc"` at most). */
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
/** A member of a message's first ones (`jsonrpc`, `id`), with the comma after it. */
const LEADING_MEMBER = String.raw`\s*"(?:jsonrpc|id)"\s*:\s*(?:-?\d+|"(?:[^"\\]|\\.)*")\s*,`;
/** `"method"` among a message's first members. */
const HEAD_METHOD = new RegExp(String.raw`^\s*\{(?:${LEADING_MEMBER})*\s*"method"\s*:`);
/** `"method"` among a message's last members (a string, then at most `jsonrpc` and `id`). */
const TAIL_METHOD = new RegExp(
  String.raw`[,{]\s*"method"\s*:\s*"(?:[^"\\]|\\.)*"\s*(?:,\s*"(?:jsonrpc|id)"\s*:\s*(?:-?\d+|"(?:[^"\\]|\\.)*")\s*)*\}\s*$`,
);
/** An id as the last member of a message: after it, the message's own closing brace. */
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * Splits a byte stream at its newlines and passes on what belongs to lines of at most
 * `limit` bytes, with `onOversized` told of each longer one. A stdio transport of the
 * SDK closes the connection when a message outgrows its read buffer, which ends the
 * session (a shell's state with it) for one message too large; here the line is cut off
 * (the part already passed on is ended with a newline, a fragment the SDK's reader skips
 * as unparseable JSON), the rest of it is dropped up to its newline, and what follows is
 * passed on as before. Parts are views of the chunks, not copies.
 *
 * A line that is a JSON array (a JSON-RPC batch, which revision 2025-03-26 requires a
 * receiver to take) is passed on as one line per element: the SDK's reader takes one
 * message per line and drops an array unanswered, so a client that batched its requests
 * would wait for answers forever. The answers go back one by one, as they do over HTTP.
 */
export class LineBound {
  #lineBytes = 0;
  #dropping = false;
  // The line's first part (a view, not a copy: most lines are never looked at again).
  #head = EMPTY;
  #tail = EMPTY;
  /** The parts of a line that starts as an array, kept until its end. */
  #batch: Buffer[] | undefined;

  constructor(
    private readonly limit: number,
    private readonly onOversized: (message: OversizedMessage) => void,
  ) {}

  /** Passes on, in order, the parts of `chunk` that belong to lines within the limit. */
  write(chunk: Buffer, pass: (part: Buffer) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const part = chunk.subarray(start, end);
      if (this.#lineBytes === 0) {
        this.#head = part.subarray(0, KEPT);
        if (startsArray(part)) this.#batch = [];
      }
      if (!this.#dropping && this.#lineBytes + part.length > this.limit) {
        this.#dropping = true;
        // What was passed on of this line ends here: the reader skips the fragment.
        if (this.#lineBytes > 0 && this.#batch === undefined) pass(CUT_BUFFER);
        this.#batch = undefined;
      }
      this.#lineBytes += part.length;
      if (this.#dropping) this.#keepTail(part);
      else if (this.#batch !== undefined) this.#batch.push(Buffer.from(part));
      else pass(newline === -1 ? part : chunk.subarray(start, newline + 1));
      if (newline === -1) break;
      if (this.#dropping) {
        const head = this.#head.toString('utf8');
        const tail = this.#tail.toString('utf8');
        this.onOversized({
          bytes: this.#lineBytes,
          id: idOfEnds(head, tail),
          request: methodAtEnds(head, tail),
        });
      }
      if (this.#batch !== undefined) passBatch(Buffer.concat(this.#batch), pass);
      this.#lineBytes = 0;
      this.#dropping = false;
      this.#head = EMPTY;
      this.#tail = EMPTY;
      this.#batch = undefined;
      start = newline + 1;
    }
  }

  #keepTail(part: Buffer): void {
    const tail = Buffer.concat([this.#tail, part.subarray(Math.max(0, part.length - KEPT))]);
    this.#tail = tail.length > KEPT ? tail.subarray(tail.length - KEPT) : tail;
  }
}

/**
 * `input` with every line longer than `limit` bytes taken out (see {@link LineBound}),
 * for the SDK's stdio server transport to read. `release` detaches `input` once the
 * connection is over.
 */
export function boundedLines(
  input: Readable,
  limit: number,
  onOversized: (message: OversizedMessage) => void,
): { readonly lines: Readable; release(): void } {
  const bound = new LineBound(limit, onOversized);
  const filter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
      bound.write(chunk, (part) => this.push(part));
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

const OPEN_BRACKET = 0x5b;

/** True when a line's first part begins, after blanks, with `[`. */
function startsArray(part: Buffer): boolean {
  for (const byte of part) {
    if (byte === OPEN_BRACKET) return true;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return false;
}

/**
 * A batch's elements, one line each; a line that is not a non-empty JSON array is passed
 * on as it came, for the reader to judge.
 */
function passBatch(line: Buffer, pass: (part: Buffer) => void): void {
  let elements: unknown;
  try {
    elements = JSON.parse(line.toString('utf8'));
  } catch {
    elements = undefined;
  }
  if (!Array.isArray(elements) || elements.length === 0) {
    pass(Buffer.concat([line, NEWLINE_BUFFER]));
    return;
  }
  for (const element of elements) pass(Buffer.from(`${JSON.stringify(element)}\n`));
}

/**
 * True when a message that cannot be read whole (too long, or not JSON) names a method
 * among its first or last members: a request or a notification, not an answer.
 */
export function namesMethod(line: string): boolean {
  return methodAtEnds(line.slice(0, KEPT), line.slice(-KEPT));
}

function methodAtEnds(head: string, tail: string): boolean {
  return HEAD_METHOD.test(head) || TAIL_METHOD.test(tail);
}

/**
 * The JSON-RPC id of a message that cannot be read whole (too long, or not JSON), where
 * its first or last bytes give one, as clients and servers put it there.
 */
export function idOfLine(line: string): string | number | undefined {
  return idOfEnds(line.slice(0, KEPT), line.slice(-KEPT));
}

function idOfEnds(head: string, tail: string): string | number | undefined {
  const found = HEAD_ID.exec(head)?.[1] ?? TAIL_ID.exec(tail)?.[1];
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
