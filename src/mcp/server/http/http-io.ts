import { type IncomingMessage, type ServerResponse } from 'node:http';
import { errorMessage } from '../../../core';
import { type Backlog } from '../calls';
import { type BodyAllowance } from './body-budget';

/** What a request brings besides its headers: its body, read and parsed once. */
export type Body = { readonly parsed: unknown } | undefined;

export const NOTHING = (): void => undefined;

/** Who waits for a streamed response's body to end, and the request's backlog. */
interface Followers {
  readonly dones: (() => void)[];
  backlog: Backlog | undefined;
}

/**
 * Streamed responses whose followers are not yet told: {@link writeResponse} tells them
 * as it writes the body, and {@link settled} wraps the body once, in one stream that
 * tells them, for a response that leaves for a reader of its own.
 */
const followed = new WeakMap<Response, Followers>();

/**
 * `response`, calling `done` once its body has been read to the end or cancelled, and
 * telling the request's backlog of each chunk the client reads. The body is followed
 * where it is read (see {@link settled}), so a response answered through several
 * layers is not wrapped in a stream per layer.
 */
export function whenDone(response: Response, done: () => void, backlog?: Backlog): Response {
  if (response.body === null || !isEventStream(response)) {
    done();
    return response;
  }
  const followers = followed.get(response);
  if (followers === undefined) followed.set(response, { dones: [done], backlog });
  else {
    followers.dones.push(done);
    if (backlog !== undefined) followers.backlog = backlog;
  }
  return response;
}

export function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.includes('text/event-stream') === true;
}

/**
 * `response` as it leaves for a reader of its own (a web-standard handler's caller):
 * when it is followed (see {@link whenDone}), its body in one stream that tells the
 * followers as it is read.
 */
export function settled(response: Response): Response {
  const followers = followed.get(response);
  if (followers === undefined) return response;
  followed.delete(response);
  const finish = once(followers.dones);
  const reader = bytes(response.body!).getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          finish();
        } else {
          controller.enqueue(next.value);
          followers.backlog?.delivered();
        }
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Calls every one of `dones` once, the first time it is called. */
function once(dones: readonly (() => void)[]): () => void {
  let finished = false;
  return () => {
    if (finished) return;
    finished = true;
    for (const done of dones) done();
  };
}

// Node's fetch types a body's chunks as `any`; they are bytes.
function bytes(stream: ReadableStream): ReadableStream<Uint8Array> {
  return stream as ReadableStream<Uint8Array>;
}

export function parseBody(text: string): Body | Response {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return jsonRpcError(400, -32700, `Parse error: ${errorMessage(error)}`);
  }
  if (Array.isArray(parsed) && parsed.length === 0) {
    return jsonRpcError(400, -32600, 'Invalid Request: an empty batch');
  }
  return idRefusal(parsed) ?? { parsed };
}

/** The answer to a body (parsed) whose message, or one of whose messages, has an id MCP does not take. */
export function idRefusal(parsed: unknown): Response | undefined {
  const messages: readonly unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  for (const [index, message] of messages.entries()) {
    const badId = invalidId(message);
    if (badId === undefined) continue;
    const which = Array.isArray(parsed) ? `message ${index} of the batch` : 'the message';
    return jsonRpcError(
      400,
      -32600,
      `Invalid Request: the id of ${which} must be a string or an integer, got ${badId}`,
    );
  }
  return undefined;
}

/**
 * What is wrong with `message`'s id, said plainly, when it has one MCP does not take (a
 * string or a safe integer; null, which an error answer may carry, is left to the SDK).
 */
function invalidId(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || !('id' in message)) return undefined;
  const id: unknown = message.id;
  if (typeof id === 'string' || id === null || Number.isSafeInteger(id)) return undefined;
  if (typeof id === 'number') {
    if (!Number.isFinite(id)) return 'a number too large for a double (read as Infinity)';
    return Number.isInteger(id) ? `${id}, past 2^53 where integers stay exact` : String(id);
  }
  if (Array.isArray(id)) return 'an array';
  return typeof id === 'object' ? 'an object' : JSON.stringify(id);
}

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

/** What a body read gets when the body budget has no room for it (see `overBudget`). */
export const OVER_BUDGET: unique symbol = Symbol('over the body budget');

/**
 * The body of a web request as text, undefined past `limit` bytes,
 * {@link OVER_BUDGET} when `budget` has no room for it (its bytes are held from the
 * budget while they are read, and given back once they are text), or the 400 answer
 * when its stream fails part-way.
 */
export async function readLimited(
  request: Request,
  limit: number,
  budget?: BodyAllowance,
): Promise<string | undefined | typeof OVER_BUDGET | Response> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > limit) return undefined;
  if (request.body === null) return '';
  if (budget?.wouldExceed(declared) === true) {
    await request.body.cancel().catch(() => undefined);
    return OVER_BUDGET;
  }
  // A reader, not `for await`: the stream's async iterator costs a promise and a
  // wrapper per chunk more, paid on every request.
  const reader = bytes(request.body).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        // The body's stream failed (its source gave up part-way): nothing to parse.
        return unreadableBody(error);
      }
      if (next.done) break;
      const chunk = next.value;
      if (budget !== undefined && !budget.take(chunk.byteLength)) {
        await reader.cancel().catch(() => undefined);
        return OVER_BUDGET;
      }
      size += chunk.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(chunk);
    }
    return textOf(chunks);
  } finally {
    budget?.give(size);
  }
}

/** The answer to a request whose body's stream failed while it was read. */
function unreadableBody(error: unknown): Response {
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: the request's body could not be read: ${errorMessage(error)}`,
  );
}

/** UTF-8 text of `chunks`; one chunk (most bodies) is decoded where it is, not copied first. */
function textOf(chunks: readonly Uint8Array[]): string {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  const bytes =
    only === undefined
      ? Buffer.concat(chunks)
      : Buffer.from(only.buffer, only.byteOffset, only.byteLength);
  return bytes.toString('utf8');
}

/** The client left before its request's body was read: there is no one to answer. */
export class ClientGone extends Error {
  constructor() {
    super('mcp: http: the client closed the connection before its request was read');
  }
}

/**
 * The body of a Node request as text, or undefined past `limit` bytes: at once when its
 * Content-Length says so, else as soon as what arrives crosses it; the rest is not read
 * (the caller answers 413 and closes the connection). Rejects with {@link ClientGone}
 * when the connection ends before the body does.
 */
export function readNodeBody(
  req: IncomingMessage,
  limit: number,
  budget?: BodyAllowance,
): Promise<string | undefined | typeof OVER_BUDGET> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.resolve(undefined);
  if (req.destroyed) return Promise.reject(new ClientGone());
  if (budget?.wouldExceed(declared) === true) return Promise.resolve(OVER_BUDGET);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      // What was read is held while it is read, and given back once it is text.
      budget?.give(size);
    };
    const onData = (chunk: Buffer): void => {
      if (budget !== undefined && !budget.take(chunk.length)) {
        stop();
        req.pause();
        resolve(OVER_BUDGET);
        return;
      }
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      resolve(undefined);
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onGone = (): void => {
      stop();
      reject(new ClientGone());
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onGone);
    req.once('close', onGone);
  });
}

export function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
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
  const followers = followed.get(response);
  if (followers !== undefined) followed.delete(response);
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
  let seen = progressOf(res);
  const stall = setInterval(
    () => {
      const now = progressOf(res);
      if (counted > 0 && now === seen) res.destroy();
      seen = now;
    },
    Math.min(stallMs, 2 ** 31 - 1),
  );
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
    // Nothing taken by the client for `stallMs`: the connection goes, and with it what
    // it buffered. A client that reads, however slowly, is never cut, however long one
    // large chunk takes to drain.
    let seen = progressOf(res);
    const timer = setInterval(
      () => {
        const now = progressOf(res);
        if (now === seen) res.destroy();
        seen = now;
      },
      Math.min(stallMs, 2 ** 31 - 1),
    );
    res.on('drain', done);
    res.on('close', done);
  });
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

/** The 413 answer; `headers` adds `Connection: close` where the rest of the body is not read. */
export function tooLarge(limit: number, headers: Record<string, string> = {}): Response {
  return jsonRpcError(413, -32000, `Request body too large: the limit is ${limit} bytes`, headers);
}

/**
 * A JSON-RPC error as an HTTP answer. `id` is the request's, when the body was read and
 * it has one (a string or a number); null otherwise.
 */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: unknown = null,
): Response {
  const echoed = typeof id === 'string' || typeof id === 'number' ? id : null;
  return Response.json(
    { jsonrpc: '2.0', error: { code, message }, id: echoed },
    { status, headers },
  );
}

/** The id of a single JSON-RPC request body; undefined for a batch, a notification, none. */
export function requestId(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as { id?: unknown }).id
    : undefined;
}

/** A body this short is drained after a refusal, so a keep-alive connection stays usable. */
const DRAINED_BODY_BYTES = 64 * 1024;

/**
 * After a refusal that left the body unread, how much more of it is read and thrown
 * away before the connection is closed: twice the limit (the limit at least 1 MiB), so
 * that a client sending a body somewhat over the limit finishes sending and reads the
 * answer instead of a connection reset; and how long that may take (see
 * {@link discardTimeoutMs}).
 */
const DISCARD_FLOOR_BYTES = 1024 * 1024;
const DISCARD_TIMEOUT_MS = 10_000;

/**
 * How long a refused body is read and thrown away at most: 10 s, and half the time a
 * whole request may take to arrive (`requestTimeoutMs`), since Node answers a request
 * still arriving then with 408 and closes its connection, before the refusal is out.
 */
export function discardTimeoutMs(requestTimeoutMs: number): number {
  return Math.min(DISCARD_TIMEOUT_MS, Math.max(1, Math.floor(requestTimeoutMs / 2)));
}

/**
 * Reads what is left of `req`'s body and throws it away, up to twice `limit` (at least
 * 1 MiB) and `timeoutMs`; resolves when the body has ended or either bound is reached
 * (the caller then closes the connection).
 */
export function discardBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  const bound = 2 * Math.max(limit, DISCARD_FLOOR_BYTES);
  return new Promise((resolve) => {
    let read = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > bound) done();
    };
    const timer = setTimeout(done, timeoutMs);
    timer.unref();
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/**
 * `response` to a request refused before its body was read. A short declared body (or
 * none) is drained and the connection kept; a longer or chunked one, which may never
 * end, is left unread and the connection closes once the answer is out.
 */
export function refusedUnread(req: IncomingMessage, response: Response): Response {
  const declared = Number(req.headers['content-length'] ?? '0');
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (req.complete || (!chunked && declared >= 0 && declared <= DRAINED_BODY_BYTES)) {
    req.resume();
    return response;
  }
  const headers = new Headers(response.headers);
  headers.set('Connection', 'close');
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
