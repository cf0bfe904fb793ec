import { type FetchLike } from '@modelcontextprotocol/client';
import { excerpt, jsonExcerpt } from './excerpts';
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
    if (said !== undefined) why = `the server answered with an error under no id: ${excerpt(said)}`;
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
            ? `the server's answer could not be read: its result is not an object (${jsonExcerpt(result)})`
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
 * Passes events of at most `limit` bytes through as they came, byte for byte, each once
 * its closing empty line has come. An event past it: with `ids` (the requests its POST
 * carried), each gets an error answer and the stream ends; without, it is dropped and the
 * stream goes on. Holds at most `limit` bytes of an event, reads each byte once and
 * copies it at most once: fetch inflates a gzip answer as it comes, so a server can
 * send an event far faster than it could be scanned again and again.
 */
function boundedEvents(
  limit: number,
  ids: readonly (string | number)[],
): TransformStream<Uint8Array, Uint8Array> {
  const ends = new EventEnds();
  /** The bytes of the event under way, as they came (none while it is dropped). */
  const held = new HeldBytes();
  /** Bytes of the event under way, held or dropped. */
  let eventBytes = 0;
  let dropping = false;
  let ended = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (ended) return;
      /** The bytes passed on for this chunk: the events it ends, in order. */
      const out: Uint8Array[] = [];
      /** The events of this chunk, one after another, passed on as one view of it. */
      let run: { from: number; to: number } | undefined;
      const endRun = (): void => {
        if (run !== undefined) out.push(chunk.subarray(run.from, run.to));
        run = undefined;
      };
      const found = ends.in(chunk);
      for (let k = 0, start = 0; start < chunk.byteLength; k++) {
        const end = found[k] ?? -1;
        const stop = end < 0 ? chunk.byteLength : end;
        eventBytes += stop - start;
        if (!dropping && eventBytes > limit) {
          held.clear();
          if (ids.length > 0) {
            // The answer may be this event: the requests are answered with why, and the
            // stream ends (what comes after belongs to an answer that was given).
            const events = ids.map(
              (id) =>
                `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: TOO_LARGE, message: tooLargeMessage(limit) } })}\n\n`,
            );
            endRun();
            out.push(new TextEncoder().encode(events.join('')));
            for (const bytes of out) controller.enqueue(bytes);
            ended = true;
            controller.terminate();
            return;
          }
          // A message no request waits for: dropped up to its end.
          dropping = true;
          endRun();
        }
        if (!dropping) {
          if (end < 0) held.append(chunk.subarray(start, stop));
          else if (held.length > 0) {
            held.append(chunk.subarray(start, stop));
            out.push(...held.take());
          } else if (run === undefined) run = { from: start, to: stop };
          else run.to = stop;
        }
        if (end < 0) break;
        eventBytes = 0;
        dropping = false;
        start = end;
      }
      endRun();
      for (const bytes of out) controller.enqueue(bytes);
    },
    flush(controller) {
      // An unfinished event is dropped by every SSE parser; pass it on as it came.
      if (ended || dropping) return;
      for (const bytes of held.take()) controller.enqueue(bytes);
    },
  });
}

/** The size of the blocks small parts of an event are copied into. */
const HELD_BLOCK = 64 * 1024;

/**
 * The bytes of one event as they come, each copied once at most: a chunk that is a
 * whole buffer is kept as it is, a part of one copied (a view would keep the whole
 * buffer), and small parts are gathered into blocks of 64 KiB, so that a server that
 * sends an event a byte at a time costs no more than one that sends it at once.
 */
class HeldBytes {
  #blocks: Uint8Array[] = [];
  #block: Uint8Array | undefined;
  #used = 0;
  #length = 0;

  /** How many bytes are held. */
  get length(): number {
    return this.#length;
  }

  append(part: Uint8Array): void {
    this.#length += part.byteLength;
    if (part.byteLength >= HELD_BLOCK) {
      this.#seal();
      const whole = part.byteOffset === 0 && part.byteLength === part.buffer.byteLength;
      this.#blocks.push(whole ? part : part.slice());
      return;
    }
    if (this.#block === undefined || this.#used + part.byteLength > HELD_BLOCK) {
      this.#seal();
      this.#block = new Uint8Array(HELD_BLOCK);
    }
    this.#block.set(part, this.#used);
    this.#used += part.byteLength;
  }

  /** The bytes held, in order, which are then no longer held. */
  take(): Uint8Array[] {
    this.#seal();
    const blocks = this.#blocks;
    this.clear();
    return blocks;
  }

  clear(): void {
    this.#blocks = [];
    this.#block = undefined;
    this.#used = 0;
    this.#length = 0;
  }

  #seal(): void {
    if (this.#block !== undefined && this.#used > 0) {
      this.#blocks.push(this.#block.subarray(0, this.#used));
    }
    this.#block = undefined;
    this.#used = 0;
  }
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Finds where events end in a stream of bytes read once, chunk after chunk: at an empty
 * line, the first of `\r\n\r\n`, `\n\n` or `\r\r` (as `EVENT_END` finds it in
 * text: those bytes are never part of a longer UTF-8 character).
 */
class EventEnds {
  /** The CR and LF bytes just read, last at the end: at most three, as an end is four. */
  #run: number[] = [];

  /** The index just past each event end in `chunk`, in order. */
  in(chunk: Uint8Array): number[] {
    const found: number[] = [];
    const run = this.#run;
    // Where the next CR and LF are: -1 none; each sought once a chunk, not line by line.
    let cr = -2;
    let lf = -2;
    for (let i = 0; i < chunk.byteLength;) {
      const byte = chunk[i]!;
      if (byte !== CR && byte !== LF) {
        // Any other byte ends the run; the next CR or LF is found natively.
        run.length = 0;
        if (cr !== -1 && cr < i) cr = chunk.indexOf(CR, i);
        if (lf !== -1 && lf < i) lf = chunk.indexOf(LF, i);
        i = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
        if (i < 0) break;
        continue;
      }
      const n = run.length;
      const last = run[n - 1];
      const ends =
        byte === LF
          ? last === LF || (last === CR && run[n - 2] === LF && run[n - 3] === CR)
          : last === CR;
      i++;
      if (ends) {
        run.length = 0;
        found.push(i);
        continue;
      }
      run.push(byte);
      if (run.length > 3) run.shift();
    }
    return found;
  }
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
