import { type IncomingMessage } from 'node:http';
import { errorMessage } from '../../../core';
import { type Backlog } from '../calls';
import { type BodyAllowance } from './body-budget';

/** What a request brings besides its headers: its body, read and parsed once. */
export type Body = { readonly parsed: unknown } | undefined;

export const NOTHING = (): void => undefined;

/** Who waits for a streamed response's body to end, and the request's backlog. */
export interface Followers {
  readonly dones: (() => void)[];
  backlog: Backlog | undefined;
}

/**
 * Streamed responses whose followers are not yet told: {@link writeResponse} tells them
 * as it writes the body, and {@link settled} wraps the body once, in one stream that
 * tells them, for a response that leaves for a reader of its own.
 */
const followed = new WeakMap<Response, Followers>();

/** The followers of `response`, taken: its writer tells them now (see {@link whenDone}). */
export function takeFollowers(response: Response): Followers | undefined {
  const followers = followed.get(response);
  if (followers !== undefined) followed.delete(response);
  return followers;
}

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
export function once(dones: readonly (() => void)[]): () => void {
  let finished = false;
  return () => {
    if (finished) return;
    finished = true;
    for (const done of dones) done();
  };
}

// Node's fetch types a body's chunks as `any`; they are bytes.
export function bytes(stream: ReadableStream): ReadableStream<Uint8Array> {
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
