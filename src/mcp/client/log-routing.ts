import { type FetchLike } from '@modelcontextprotocol/client';

/**
 * Tells our fetch which call a `tools/call` POST belongs to. It never reaches the
 * server: the fetch takes it off before the request goes out.
 */
export const CALL_HEADER = 'x-agenttool-call';

/**
 * The `_meta` key our fetch adds to a log line, a question or a sampling request that came
 * on a call's own response stream.
 */
export const LOG_CALL_META_KEY = 'dev.agenttool/call';

/**
 * A fetch that lets the client tell which call a server's log line belongs to. MCP ties a
 * `notifications/message` to no request, but over Streamable HTTP a server sends a
 * request's lines on that request's response stream (the 2026-07-28 era requires it), and
 * the SDK does not say which stream carried a message. So for a POST marked with
 * {@link CALL_HEADER}, the mark is removed and each log line on the response's event
 * stream gets the call's number under `_meta[LOG_CALL_META_KEY]`, as does each question
 * or sampling request, which MCP does not tie to a call either. Every other request and
 * event passes through unchanged, byte for byte.
 */
export function routingLogLines(fetch: FetchLike): FetchLike {
  return async (url, init) => {
    const headers = new Headers(init?.headers);
    const call = headers.get(CALL_HEADER);
    if (call === null) return fetch(url, init);
    headers.delete(CALL_HEADER);
    const response = await fetch(url, { ...init, headers });
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || response.body === null || !/^\s*text\/event-stream/i.test(type)) {
      return response;
    }
    return new Response(response.body.pipeThrough(logLineTagger(call)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** An event ends at an empty line (SSE allows CRLF, LF or CR line ends). */
export const EVENT_END = /\r\n\r\n|\n\n|\r\r/;

/**
 * Rewrites the log lines of one event stream so that they name `call`; an event is
 * passed on as soon as its closing empty line arrives, so nothing waits longer than the
 * SDK's own parser would make it.
 */
export function logLineTagger(call: string): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  const pass = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    let out = '';
    for (let end = EVENT_END.exec(pending); end !== null; end = EVENT_END.exec(pending)) {
      const stop = end.index + end[0].length;
      out += tagged(pending.slice(0, end.index), call) + end[0];
      pending = pending.slice(stop);
    }
    if (out !== '') controller.enqueue(encoder.encode(out));
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      pass(controller);
    },
    flush(controller) {
      pending += decoder.decode();
      pass(controller);
      // An unfinished event is dropped by every SSE parser; pass it on as it came.
      if (pending !== '') controller.enqueue(encoder.encode(pending));
    },
  });
}

/**
 * The server's requests a 2025-era call's stream may carry that go to that call alone:
 * its questions and its requests for the model (`RemoteCalls.owner` reads the tag).
 */
const CALL_REQUESTS: ReadonlySet<string> = new Set([
  'elicitation/create',
  'sampling/createMessage',
]);

/**
 * One event's text (without its closing empty line), tagged when it is a log line or one
 * of the {@link CALL_REQUESTS}.
 */
function tagged(event: string, call: string): string {
  // A cheap test first; a server may escape the slash (`elicitation\/create`).
  if (
    !event.includes('notifications') &&
    !event.includes('elicitation') &&
    !event.includes('sampling')
  ) {
    return event;
  }
  const lines = event.split(/\r\n|\n|\r/);
  const data: string[] = [];
  let first = -1;
  lines.forEach((line, i) => {
    if (line === 'data' || line.startsWith('data:')) {
      if (first === -1) first = i;
      data.push(line.slice(5).replace(/^ /, ''));
    }
  });
  let message: unknown;
  try {
    message = JSON.parse(data.join('\n'));
  } catch {
    return event;
  }
  if (!isLogLine(message)) return event;
  message.params._meta = { ...message.params._meta, [LOG_CALL_META_KEY]: call };
  const kept = lines.filter((line) => !(line === 'data' || line.startsWith('data:')));
  kept.splice(first, 0, `data: ${JSON.stringify(message)}`);
  return kept.join('\n');
}

/** A log line, or one of the {@link CALL_REQUESTS}: what the tag is added to. */
interface LogLine {
  method: string;
  params: { _meta?: Record<string, unknown> };
}

function isLogLine(message: unknown): message is LogLine {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { method?: unknown; params?: unknown; id?: unknown };
  const request = typeof m.method === 'string' && CALL_REQUESTS.has(m.method) && 'id' in m;
  if (!request && (m.method !== 'notifications/message' || 'id' in m)) return false;
  if (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params)) return false;
  const meta = (m.params as { _meta?: unknown })._meta;
  return meta === undefined || (typeof meta === 'object' && meta !== null && !Array.isArray(meta));
}

/** `params` without the tag our fetch added (see {@link LOG_CALL_META_KEY}): what the server sent. */
export function withoutCallTag<T>(params: T): T {
  if (typeof params !== 'object' || params === null) return params;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null || !(LOG_CALL_META_KEY in meta)) return params;
  const { [LOG_CALL_META_KEY]: _tag, ...rest } = meta as Record<string, unknown>;
  const { _meta: _dropped, ...others } = params as Record<string, unknown>;
  return (Object.keys(rest).length === 0 ? others : { ...others, _meta: rest }) as T;
}
