/**
 * Writing an answer to a Node response: back-pressure honoured, a client that reads
 * nothing cut after a stall, and what clients leave unread counted against a budget
 * (all callers, and each caller's share), listening streams included.
 */
import { type ServerResponse } from 'node:http';
import { bytes, type Followers, once, takeFollowers } from './http-io';

/**
 * The bytes of answers clients have not read: a chunk written to a connection whose
 * buffers are full counts until they drain. All callers together hold at most `limit`,
 * one caller (a subject, or an address) at most `share`: a client that never reads
 * cannot make the server hold more for it than that, however many connections it opens.
 */
export class AnswerBudget {
  #used = 0;
  readonly #byCaller = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly share: number,
  ) {}

  /**
   * Counts `bytes` against `caller`; the limit it would pass (`share` or `limit`) when
   * they do not fit, and nothing counted.
   */
  hold(caller: string, bytes: number): 'share' | 'limit' | undefined {
    const held = this.#byCaller.get(caller) ?? 0;
    if (held > 0 && held + bytes > this.share) return 'share';
    if (this.#used > 0 && this.#used + bytes > this.limit) return 'limit';
    this.#byCaller.set(caller, held + bytes);
    this.#used += bytes;
    return undefined;
  }

  /** Gives back `bytes` {@link hold} counted against `caller`. */
  release(caller: string, bytes: number): void {
    const held = (this.#byCaller.get(caller) ?? 0) - bytes;
    if (held > 0) this.#byCaller.set(caller, held);
    else this.#byCaller.delete(caller);
    this.#used -= bytes;
  }

  /** What `caller` holds now (for tests and reports). */
  heldBy(caller: string): number {
    return this.#byCaller.get(caller) ?? 0;
  }

  /** Why an answer of `bytes` for `caller` was cut, past the `why` limit. */
  cut(caller: string, why: 'share' | 'limit', bytes: number): string {
    return why === 'share'
      ? `an answer was cut (its connection closed): ${caller} has not read ${this.heldBy(caller)} bytes of its answers, its share of ${this.share} (maxUnreadAnswerBytesPerSubject), and another ${bytes} waited`
      : `an answer was cut (its connection closed): clients have not read ${this.limit} bytes of answers at most (maxUnreadAnswerBytes), and another ${bytes} waited`;
  }
}

/** Who an answer is written for, and the budget of what it leaves unread. */
export interface UnreadAnswers {
  readonly budget: AnswerBudget;
  readonly caller: string;
  /** Told when the answer is cut because the budget has no room for it. */
  readonly onCut: (why: 'share' | 'limit', bytes: number) => void;
  /** A listening stream (see {@link writeResponse}), not an answer. */
  readonly listening?: boolean;
}

/** How long an answer may wait for its client to read any of it, by default (60 s). */
export const DEFAULT_WRITE_STALL_MS = 60_000;

/**
 * Writes `response` to `res`, honouring back-pressure, until its body ends or `signal`
 * aborts; `extra` headers go out first (the response's own override them). A followed
 * response (see {@link whenDone}) tells its followers as its body is written. A chunk
 * its client does not take at once counts against `unread`'s budget until it does; one
 * the budget has no room for ends the connection there.
 */
export function writeResponse(
  res: ServerResponse,
  response: Response,
  signal: AbortSignal,
  extra?: Readonly<Record<string, string>>,
  stallMs = DEFAULT_WRITE_STALL_MS,
  unread?: UnreadAnswers,
): Promise<void> {
  // One object to writeHead: headers set on `res` before would send every header
  // through setHeader's checks again.
  const headers: Record<string, string> = extra === undefined ? {} : { ...extra };
  for (const [name, value] of response.headers) {
    // Whether the connection stays open is the request's and this server's to say
    // (`extra`); an answer may only close it. The SDK's streams say keep-alive, which
    // kept open a connection whose client had asked for it to close.
    if (name === 'keep-alive' || (name === 'connection' && value.toLowerCase() !== 'close')) {
      continue;
    }
    headers[name] = value;
  }
  res.writeHead(response.status, headers);
  const body = response.body;
  const followers = takeFollowers(response);
  if (body === null) {
    res.end();
    return Promise.resolve();
  }
  // A stream's client learns it is open now, not with its first event (a listening
  // stream may wait long for one).
  if (headers['content-type']?.includes('text/event-stream') === true) res.flushHeaders();
  // The answer is not held while its body is written: what it was made from (a copy of
  // the body, for a body given whole) goes with it.
  if (unread?.listening === true) {
    return writeListening(res, bytes(body).getReader(), signal, followers, stallMs, unread);
  }
  return writeBody(res, bytes(body).getReader(), signal, followers, stallMs, unread);
}

/**
 * Writes a listening stream (a 2026-07-28 `subscriptions/listen`, a 2025-era session's
 * GET): its events are read as they come, whether or not the client takes them (the
 * SDK's streams queue what they are given without waiting, so waiting here left them
 * piling up unseen), and what then waits in the connection's buffer counts against the
 * caller's unread answers: past its share, or the server's limit, the stream is cut as
 * an answer is. A client that takes nothing of it for `stallMs` is cut too.
 */
async function writeListening(
  res: ServerResponse,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal,
  followers: Followers | undefined,
  stallMs: number,
  unread: UnreadAnswers,
): Promise<void> {
  const stop = (): void => void reader.cancel().catch(() => undefined);
  if (signal.aborted) stop();
  else res.on('close', stop);
  const { budget, caller } = unread;
  /** The bytes of the connection's buffer counted against the caller. */
  let counted = 0;
  const recount = (): 'share' | 'limit' | undefined => {
    const waiting = res.writableLength;
    if (waiting > counted) {
      const over = budget.hold(caller, waiting - counted);
      if (over !== undefined) return over;
    } else if (waiting < counted) {
      budget.release(caller, counted - waiting);
    }
    counted = waiting;
    return undefined;
  };
  const drained = (): void => void recount();
  res.on('drain', drained);
  const stall = cutWhenStalled(res, stallMs, () => counted > 0);
  stall.unref();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done || signal.aborted) break;
      followers?.backlog?.delivered();
      res.write(next.value);
      const over = recount();
      if (over !== undefined) {
        unread.onCut(over, res.writableLength - counted);
        res.destroy();
        break;
      }
    }
  } catch {
    // The stream failed or the client left: end what was written.
  } finally {
    clearInterval(stall);
    res.off('drain', drained);
    res.off('close', stop);
    if (counted > 0) budget.release(caller, counted);
    if (signal.aborted) await reader.cancel().catch(() => undefined);
    if (followers !== undefined) once(followers.dones)();
    res.end();
  }
}

/** Writes what `reader` reads to `res`, as {@link writeResponse} says. */
async function writeBody(
  res: ServerResponse,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal,
  followers: Followers | undefined,
  stallMs: number,
  unread: UnreadAnswers | undefined,
): Promise<void> {
  // The client leaving (the connection closes, which aborts `signal`) cancels the read
  // waiting for the body's next chunk: the read ends `done`.
  const stop = (): void => void reader.cancel().catch(() => undefined);
  if (signal.aborted) stop();
  else res.on('close', stop);
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done || signal.aborted) break;
      followers?.backlog?.delivered();
      if (res.write(next.value)) continue;
      // The client has not taken what was written: the chunk waits in memory.
      const bytes = next.value.byteLength;
      const over = unread?.budget.hold(unread.caller, bytes);
      if (over !== undefined) {
        unread?.onCut(over, bytes);
        res.destroy();
        break;
      }
      try {
        await drained(res, stallMs);
      } finally {
        unread?.budget.release(unread.caller, bytes);
      }
    }
  } catch {
    // The body failed or the client left: end what was written.
  } finally {
    res.off('close', stop);
    if (signal.aborted) await reader.cancel().catch(() => undefined);
    if (followers !== undefined) once(followers.dones)();
    res.end();
  }
}

/** Resolves once `res` drains, or its connection closes. */
function drained(res: ServerResponse, stallMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearInterval(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    const timer = cutWhenStalled(res, stallMs);
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Closes `res` once its client has taken nothing of it for `stallMs` while `waiting()`
 * (something of it is unread), and with the connection goes what it buffered. A client
 * that reads, however slowly, is never cut, however long one large chunk takes to drain.
 */
function cutWhenStalled(
  res: ServerResponse,
  stallMs: number,
  waiting: () => boolean = () => true,
): NodeJS.Timeout {
  let seen = progressOf(res);
  return setInterval(
    () => {
      const now = progressOf(res);
      if (waiting() && now === seen) res.destroy();
      seen = now;
    },
    Math.min(stallMs, 2 ** 31 - 1),
  );
}

/**
 * What moves while a connection's client takes what was written to it: the bytes handed
 * to the OS, those still buffered, and those the OS has yet to take of a write under
 * way (libuv's write queue, which Node keeps on the socket's handle and shows nowhere
 * else: a single large chunk is handed over whole, and drains from there).
 */
function progressOf(res: ServerResponse): string {
  const socket = res.socket;
  if (socket === null) return '';
  const handle = (socket as { _handle?: { writeQueueSize?: unknown } })._handle;
  const queued = typeof handle?.writeQueueSize === 'number' ? handle.writeQueueSize : -1;
  return `${socket.bytesWritten}:${socket.writableLength}:${queued}`;
}
