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
   * What a reading of the whole message found at its top level, wherever its members
   * are: its `id` (a string or a safe integer, undefined when it has none or another
   * kind of one, or when the message is no JSON object) and whether it has a `method`.
   */
  readonly topLevel: TopLevelMembers;
}

/** The members of a message that say whose it is: see {@link scanTopLevel}. */
export interface TopLevelMembers {
  readonly id: string | number | undefined;
  /** True when it has a `method` member: a request or a notification, not an answer. */
  readonly request: boolean;
}

const NEWLINE = 0x0a;
const NEWLINE_BUFFER: Buffer = Buffer.from('\n');
/**
 * What ends the part of a line too long that was already passed on: a NUL, which no
 * JSON text holds outside a string (and none inside one unescaped), then the newline. A
 * reader skips such a fragment without answering it: its message was answered already.
 */
export const CUT_LINE_END = '\0';
const CUT_BUFFER: Buffer = Buffer.from(`${CUT_LINE_END}\n`);

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
  /** The parts of a line that starts as an array, kept until its end. */
  #batch: Buffer[] | undefined;
  /**
   * The parts of the line passed on so far (views), for the scan of a line that turns
   * out too long to begin at its start; the scan once it is too long.
   */
  #passed: Buffer[] = [];
  #scan: TopLevelScan | undefined;
  /** Whether `onPassedLimit` was told of the line being dropped. */
  #told = false;

  constructor(
    private readonly limit: number,
    private readonly onOversized: (message: OversizedMessage) => void,
    /**
     * Told once, of a line past the limit that has not ended, as soon as its top-level id
     * has been read whole or a method seen: a reader that knows whose message it is can
     * answer before the line ends, which may be long after, or never.
     */
    private readonly onPassedLimit?: (members: TopLevelMembers) => void,
  ) {}

  /** Passes on, in order, the parts of `chunk` that belong to lines within the limit. */
  write(chunk: Buffer, pass: (part: Buffer) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const part = chunk.subarray(start, end);
      if (this.#lineBytes === 0 && startsArray(part)) this.#batch = [];
      if (!this.#dropping && this.#lineBytes + part.length > this.limit) {
        this.#dropping = true;
        // What was passed on of this line ends here: the reader skips the fragment.
        if (this.#lineBytes > 0 && this.#batch === undefined) pass(CUT_BUFFER);
        this.#batch = undefined;
        this.#scan = new TopLevelScan();
        for (const passed of this.#passed) this.#scan.write(passed);
        this.#passed = [];
      }
      this.#lineBytes += part.length;
      if (this.#dropping) {
        this.#scan?.write(part);
        // Told only of a line that goes on past this chunk: one that ends in it is told
        // whole below, with its size.
        // Told once its id is read (or a method says it is a request), chunk by chunk.
        if (newline === -1 && !this.#told && this.#scan !== undefined) {
          const members = this.#scan.readSoFar();
          if (members.id !== undefined || members.request) {
            this.#told = true;
            this.onPassedLimit?.(members);
          }
        }
      } else {
        if (part.length > 0) this.#passed.push(part);
        if (this.#batch !== undefined) this.#batch.push(Buffer.from(part));
        else pass(newline === -1 ? part : chunk.subarray(start, newline + 1));
      }
      if (newline === -1) break;
      if (this.#dropping) {
        this.onOversized({
          bytes: this.#lineBytes,
          topLevel: this.#scan?.members() ?? { id: undefined, request: false },
        });
      }
      if (this.#batch !== undefined) passBatch(Buffer.concat(this.#batch), pass);
      this.#lineBytes = 0;
      this.#dropping = false;
      this.#told = false;
      this.#batch = undefined;
      this.#passed = [];
      this.#scan = undefined;
      start = newline + 1;
    }
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

/** An id's raw JSON text as an id: a string or a safe integer; undefined otherwise. */
function parseId(found: string | undefined): string | number | undefined {
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

/**
 * The top-level `id` and `method` of a message read whole (see {@link TopLevelScan}):
 * for a line that cannot be parsed, where its members may be anywhere.
 */
export function scanTopLevel(line: string | Buffer): TopLevelMembers {
  const scan = new TopLevelScan();
  scan.write(typeof line === 'string' ? Buffer.from(line, 'utf8') : line);
  return scan.members();
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** The longest key kept (raw, escapes undone after): `"method"` and `"id"` are short. */
const KEPT_KEY = 32;
/** The longest id kept (raw): a longer one is taken for none. */
const KEPT_ID = 256;

function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

/**
 * Reads a message's bytes as they come, in any number of parts, and keeps only what
 * says whose it is: the value of its top-level `id` (the last, as `JSON.parse` takes
 * it) and whether it has a top-level `method`, wherever among its members they are. It
 * follows strings (with their escapes) and the depth of objects and arrays, and checks
 * nothing else: a message that is not JSON gives what its shape suggests. Memory is
 * bounded (a key and an id of a few hundred bytes at most), whatever the message's
 * length; the text of strings is skipped with `indexOf`, not byte by byte.
 */
class TopLevelScan {
  /** Objects and arrays open, the message's own object counted. */
  #depth = 0;
  /** Before the message's first byte that is not blank; after its object closes. */
  #phase: 'before' | 'inside' | 'done' = 'before';
  #inString = false;
  /** Backslashes just before the current byte inside a string, across parts. */
  #backslashes = 0;
  /** At the top level: a key comes next (after `{` or `,`), else a value. */
  #expectKey = false;
  /** What is being kept: the top-level key being read, or the id's value. */
  #keeping: 'key' | 'id' | undefined;
  #kept: Buffer[] = [];
  #keptBytes = 0;
  #keptTooLong = false;
  /** The last top-level key read, its value to come. */
  #key: string | undefined;
  /** The raw text of the id's value; undefined when there is none, or too long. */
  #id: string | undefined;
  #method = false;

  write(part: Buffer): void {
    let i = 0;
    while (i < part.length && this.#phase !== 'done') {
      if (this.#inString) {
        i = this.#inStringUntil(part, i);
        continue;
      }
      const byte = part[i] as number;
      if (this.#phase === 'before') {
        if (byte === OPEN_BRACE) {
          this.#phase = 'inside';
          this.#depth = 1;
          this.#expectKey = true;
        } else if (!isBlank(byte)) {
          this.#phase = 'done';
        }
        i++;
        continue;
      }
      if (this.#keeping === 'id' && this.#depth === 1) {
        // A value that is no string (a number, or a word), up to what ends it.
        if (byte === COMMA || byte === CLOSE_BRACE || isBlank(byte)) this.#endId();
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.#dropId();
        else {
          this.#keep(part.subarray(i, i + 1));
          i++;
          continue;
        }
      }
      if (byte === QUOTE) {
        this.#inString = true;
        this.#backslashes = 0;
        if (this.#depth === 1 && this.#expectKey) {
          this.#startKeeping('key');
        } else if (this.#depth === 1 && this.#key === 'id' && !this.#expectKey) {
          this.#startKeeping('id');
          this.#keep(part.subarray(i, i + 1));
        }
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        // An id that is an object or an array is none.
        if (this.#depth === 1 && this.#key === 'id' && !this.#expectKey) this.#id = undefined;
        this.#depth++;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.#depth--;
        if (this.#depth <= 0) this.#phase = 'done';
      } else if (this.#depth === 1) {
        if (byte === COMMA) {
          this.#expectKey = true;
          this.#key = undefined;
        } else if (byte === COLON) {
          this.#expectKey = false;
          if (this.#key === 'method') this.#method = true;
        } else if (this.#key === 'id' && !this.#expectKey && !isBlank(byte)) {
          this.#startKeeping('id');
          this.#keep(part.subarray(i, i + 1));
        }
      }
      i++;
    }
  }

  /** The members read whole so far, the scan left as it is: an id still being read is none. */
  readSoFar(): TopLevelMembers {
    return { id: this.#keeping === 'id' ? undefined : parseId(this.#id), request: this.#method };
  }

  members(): TopLevelMembers {
    if (this.#keeping === 'id') this.#endId();
    return { id: parseId(this.#id), request: this.#method };
  }

  /** Reads a string's bytes from `i`; returns where to go on. */
  #inStringUntil(part: Buffer, i: number): number {
    let from = i;
    for (;;) {
      const quote = part.indexOf(QUOTE, from);
      const end = quote === -1 ? part.length : quote;
      // The backslashes right before `end`: escapes are pairs, one more escapes it.
      let run = 0;
      while (end - run - 1 >= from && part[end - run - 1] === BACKSLASH) run++;
      const backslashes = run === end - from ? this.#backslashes + run : run;
      if (quote === -1) {
        this.#keepString(part.subarray(i, end));
        this.#backslashes = backslashes;
        return part.length;
      }
      if (backslashes % 2 === 1) {
        // An escaped quote: the string goes on.
        this.#backslashes = 0;
        from = quote + 1;
        continue;
      }
      this.#keepString(part.subarray(i, quote + 1));
      this.#inString = false;
      this.#backslashes = 0;
      this.#endString();
      return quote + 1;
    }
  }

  #keepString(bytes: Buffer): void {
    if (this.#keeping !== undefined) this.#keep(bytes);
  }

  #endString(): void {
    if (this.#keeping === 'key') {
      this.#key = this.#keptTooLong ? undefined : decodeKey(Buffer.concat(this.#kept));
      this.#keeping = undefined;
    } else if (this.#keeping === 'id') {
      this.#endId();
    }
  }

  #startKeeping(what: 'key' | 'id'): void {
    this.#keeping = what;
    this.#kept = [];
    this.#keptBytes = 0;
    this.#keptTooLong = false;
    // The key's opening quote is kept with it, to be read as JSON.
    if (what === 'key') this.#kept.push(Buffer.from('"'));
  }

  #keep(bytes: Buffer): void {
    if (this.#keptTooLong) return;
    const cap = this.#keeping === 'key' ? KEPT_KEY : KEPT_ID;
    if (this.#keptBytes + bytes.length > cap) {
      this.#keptTooLong = true;
      this.#kept = [];
      return;
    }
    // A copy: the part it is a view of is let go of.
    this.#kept.push(Buffer.from(bytes));
    this.#keptBytes += bytes.length;
  }

  #endId(): void {
    this.#id = this.#keptTooLong ? undefined : Buffer.concat(this.#kept).toString('utf8');
    this.#keeping = undefined;
    this.#kept = [];
  }

  #dropId(): void {
    this.#id = undefined;
    this.#keeping = undefined;
    this.#kept = [];
  }
}

/** A key's raw text (its quotes included) as JSON reads it; undefined if it cannot be. */
function decodeKey(raw: Buffer): string | undefined {
  const text = raw.toString('utf8');
  if (!text.includes('\\')) return text.slice(1, -1);
  try {
    const key: unknown = JSON.parse(text);
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
