import { type FetchLike } from '@modelcontextprotocol/client';
import { EVENT_END } from './log-routing';
import { notingRetryAfter } from './refusals';

/** How much of an HTTP error's body is kept: enough to say why, not a server's 50 MB. */
const MAX_ERROR_BODY_BYTES = 4096;

/** The JSON-RPC code of the error an answer too large is turned into (as over stdio). */
const TOO_LARGE = -32000;

/**
 * A fetch whose answers hold at most `limit` bytes a message, as a stdio connection
 * reads them (`maxMessageBytes`): the SDK's HTTP transport reads a body, or an event of
 * a stream, whole, however long, so one server could make the client hold gigabytes and
 * end the process. A JSON answer past the limit fails its request with an error that
 * says so; on an event stream, an event past it ends the stream with an error answer to
 * each request the POST carried (or, on the stream a GET opened, which answers no
 * request, is dropped, and the stream goes on); an error answer's body is cut at 4 KiB,
 * an empty one says its status, and a 429's or a 503's status text notes its
 * `Retry-After`.
 */
export function boundingAnswers(fetch: FetchLike, limit: number): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && !/^\s*text\/event-stream/i.test(type)) {
      const ids = requestIds(init?.body);
      const unanswered =
        response.body === null || response.status === 202 || response.status === 204;
      if (ids.length > 0 && (unanswered || /^\s*application\/json/i.test(type))) {
        return answering(response, ids, limit);
      }
    }
    // A refusal's Retry-After goes on in its status text, which the SDK's error keeps.
    const statusText = response.ok ? response.statusText : notingRetryAfter(response);
    if (response.body === null) {
      if (statusText === response.statusText) return response;
      return new Response(null, { status: response.status, statusText, headers: response.headers });
    }
    let body: ReadableStream<Uint8Array>;
    if (!response.ok) {
      // An empty one says its status: the SDK's error gives the body alone.
      const status = `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}, no body`;
      body = response.body.pipeThrough(cutAfter(MAX_ERROR_BODY_BYTES, status));
    } else if (/^\s*text\/event-stream/i.test(type)) {
      body = response.body.pipeThrough(boundedEvents(limit, requestIds(init?.body)));
    } else body = response.body.pipeThrough(failPast(limit));
    return new Response(body, { status: response.status, statusText, headers: response.headers });
  };
}

/** The JSON-RPC code of the error an answer that is missing or unreadable is turned into. */
const UNREADABLE = -32000;

/**
 * A successful response to a POST that carried the requests `ids`, as a JSON body in
 * which each of them is answered: a response with no body (HTTP 202, which answers
 * notifications only) or a JSON one that holds no answer to a request (another id, a
 * notification alone) would leave its call waiting for its timeout, since no answer can
 * come on a response that has ended; a message that is no JSON-RPC message would fail
 * with the SDK's schema dump. Each such request gets an error answer that says what the
 * server sent instead; the other messages pass as they came.
 */
async function answering(
  response: Response,
  ids: readonly (string | number)[],
  limit: number,
): Promise<Response> {
  const sent = `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  let messages: unknown[] = [];
  let text = '';
  let why = `the server's response (${sent}) held no answer to this request`;
  if (response.status === 202 || response.body === null) {
    why = `the server answered the request with ${sent}${response.status === 202 ? ', which answers notifications only' : ' and no body'}: a request is answered with JSON or an event stream`;
    await response.body?.cancel().catch(() => undefined);
  } else {
    try {
      text = await new Response(response.body.pipeThrough(failPast(limit))).text();
      if (text.trim() === '') {
        why = `the server answered the request with ${sent} and an empty body`;
      } else {
        const value: unknown = JSON.parse(text);
        messages = Array.isArray(value) ? value : [value];
      }
    } catch (error) {
      why =
        error instanceof SyntaxError
          ? `the server's answer is not JSON (${error.message})`
          : error instanceof Error
            ? error.message
            : String(error);
    }
  }
  const answered = new Set<string>();
  const kept: unknown[] = [];
  for (const message of messages) {
    // An error under no id: the server could not tell which request it answers, and says why.
    const said = unplacedError(message);
    if (said !== undefined) why = `the server answered with an error under no id: ${said}`;
    const id = idOf(message);
    const ours = id !== undefined && ids.some((wanted) => sameId(wanted, id));
    if (isMessage(message)) {
      kept.push(message);
      if (ours) answered.add(JSON.stringify(id));
    } else if (ours) {
      const result = (message as { result?: unknown }).result;
      kept.push(
        errorAnswer(
          id,
          result !== undefined
            ? `the server's answer could not be read: its result is not an object (${JSON.stringify(result)?.slice(0, 100)})`
            : "the server's answer could not be read: it is not a JSON-RPC message",
        ),
      );
      answered.add(JSON.stringify(id));
    }
  }
  for (const id of ids) {
    if (!answered.has(JSON.stringify(id))) kept.push(errorAnswer(id, why));
  }
  // The server's headers stay (its session id, among them); the body is another, or, as
  // it mostly is, the text as it came (nothing to write again).
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  const unchanged = kept.length === messages.length && kept.every((m, i) => m === messages[i]);
  return new Response(unchanged ? text : JSON.stringify(kept.length === 1 ? kept[0] : kept), {
    status: unchanged ? response.status : 200,
    headers,
  });
}

/** The message of a JSON-RPC error answer whose id is null (or missing). */
function unplacedError(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, error } = message as { id?: unknown; error?: unknown };
  if ((id !== null && id !== undefined) || typeof error !== 'object' || error === null) {
    return undefined;
  }
  const text = (error as { message?: unknown }).message;
  return typeof text === 'string' ? text : undefined;
}

function errorAnswer(id: string | number, message: string): object {
  return { jsonrpc: '2.0', id, error: { code: UNREADABLE, message } };
}

function idOf(message: unknown): string | number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id } = message as { id?: unknown };
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** JSON-RPC tells ids apart by type too: `1` and `"1"` are two. */
function sameId(a: string | number, b: string | number): boolean {
  return typeof a === typeof b && a === b;
}

/** A JSON-RPC 2.0 request, notification, result or error, by its members. */
function isMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  if (m['jsonrpc'] !== '2.0') return false;
  if (typeof m['method'] === 'string') return true;
  if (idOf(m) === undefined) return false;
  const { result, error } = m;
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message: text } = error as { code?: unknown; message?: unknown };
  return typeof code === 'number' && typeof text === 'string';
}

function tooLargeMessage(limit: number): string {
  return `mcp: the server's answer is a message of more than ${limit} bytes, the most this client reads (maxMessageBytes); ask for less, or raise maxMessageBytes`;
}

/** A body of at most `limit` bytes; past that, the read fails saying why. */
function failPast(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes > limit) controller.error(new Error(tooLargeMessage(limit)));
      else controller.enqueue(chunk);
    },
  });
}

/** The first `limit` bytes of a body, and a mark that the rest was left out; `empty` for none. */
function cutAfter(limit: number, empty: string): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  return new TransformStream({
    flush(controller) {
      if (bytes === 0) controller.enqueue(new TextEncoder().encode(empty));
    },
    transform(chunk, controller) {
      if (bytes >= limit) return;
      const room = limit - bytes;
      bytes += chunk.byteLength;
      if (chunk.byteLength <= room) {
        controller.enqueue(chunk);
        return;
      }
      controller.enqueue(chunk.subarray(0, room));
      controller.enqueue(new TextEncoder().encode(` [cut at ${limit} bytes]`));
    },
  });
}

/**
 * Passes events of at most `limit` bytes through as they came. An event past it: with
 * `ids` (the requests its POST carried), each gets an error answer and the stream ends;
 * without, it is dropped and the stream goes on. Holds at most `limit` bytes of an event.
 */
function boundedEvents(
  limit: number,
  ids: readonly (string | number)[],
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  /** Bytes of the event under way (counted as they came, in UTF-8). */
  let eventBytes = 0;
  let dropping = false;
  let ended = false;
  const pass = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    let out = '';
    for (let end = EVENT_END.exec(pending); end !== null; end = EVENT_END.exec(pending)) {
      const stop = end.index + end[0].length;
      if (!dropping) out += pending.slice(0, stop);
      dropping = false;
      pending = pending.slice(stop);
      eventBytes = encoder.encode(pending).byteLength;
    }
    if (out !== '') controller.enqueue(encoder.encode(out));
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (ended) return;
      eventBytes += chunk.byteLength;
      pending += decoder.decode(chunk, { stream: true });
      pass(controller);
      if (eventBytes <= limit || dropping) {
        if (dropping) pending = trailingLineEnds(pending);
        return;
      }
      if (ids.length > 0) {
        // The answer may be this event: the requests are answered with why, and the
        // stream ends (what comes after belongs to an answer that was given).
        const events = ids.map(
          (id) =>
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: TOO_LARGE, message: tooLargeMessage(limit) } })}\n\n`,
        );
        controller.enqueue(encoder.encode(events.join('')));
        ended = true;
        controller.terminate();
        return;
      }
      // A message no request waits for: dropped up to its end.
      dropping = true;
      pending = trailingLineEnds(pending);
    },
    flush(controller) {
      if (ended) return;
      pending += decoder.decode();
      pass(controller);
      // An unfinished event is dropped by every SSE parser; pass it on as it came.
      if (pending !== '' && !dropping) controller.enqueue(encoder.encode(pending));
    },
  });
}

/**
 * The line ends at the end of `text` (at most two, the start of an event's end that
 * the next chunk may finish): all that is kept of an event being dropped.
 */
function trailingLineEnds(text: string): string {
  return /[\r\n]{0,3}$/.exec(text)?.[0] ?? '';
}

/** The ids of the requests a POST body (a JSON-RPC message or a batch) carries. */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return [];
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: (string | number)[] = [];
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, method } = item as { id?: unknown; method?: unknown };
    if (typeof method !== 'string') continue;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}
