import { type FetchLike } from '@modelcontextprotocol/client';

/**
 * Marks a `tools/call` POST as safe to send again (the tool is read-only or idempotent,
 * or the request carries the answers to a parked call, which a server takes once). It
 * never reaches the server: the fetch takes it off first.
 */
export const REPLAY_SAFE_HEADER = 'x-agenttool-replay-safe';

/**
 * Requests that change nothing a second copy would change again: asking for lists and
 * descriptions, opening a session or a stream, ending one, following a task, and
 * notifications.
 */
const SAFE_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'logging/setLevel',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
  'io.github.christopherdavenport.agenttool/sessions/end',
  // A task's status read again, its cancel made again (idempotent), and its answers
  // given again: keys already answered are no longer open, so a second copy is ignored.
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

/** Failures of a connection that broke before any of the answer came back. */
const BROKEN_CONNECTION: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * A fetch that sends a request once more, on a fresh connection, when its connection
 * broke before any byte of the answer arrived and sending it again is safe. That is the
 * race of HTTP keep-alive: a client writes a request onto an idle connection the server
 * is closing at that moment, and the request is lost unread. Safe: GET and DELETE, JSON-RPC
 * notifications, answers to the server's requests, the requests in {@link SAFE_METHODS},
 * and a `tools/call` marked with {@link REPLAY_SAFE_HEADER}; any other request (a call
 * that may have run) fails as it did.
 * Once per request; an abort is never retried.
 */
export function retryingSafely(fetch: FetchLike): FetchLike {
  return async (url, init) => {
    const headers = new Headers(init?.headers);
    const marked = headers.get(REPLAY_SAFE_HEADER) !== null;
    if (marked) headers.delete(REPLAY_SAFE_HEADER);
    const sent = marked ? { ...init, headers } : init;
    try {
      return await fetch(url, sent);
    } catch (error) {
      if (init?.signal?.aborted === true || !brokeBeforeAnswer(error)) throw error;
      if (!(marked || safeToSendAgain(sent))) throw error;
      return fetch(url, sent);
    }
  };
}

function brokeBeforeAnswer(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && BROKEN_CONNECTION.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function safeToSendAgain(init: RequestInit | undefined): boolean {
  const method = (init?.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'DELETE') return true;
  if (method !== 'POST' || typeof init?.body !== 'string') return false;
  let message: unknown;
  try {
    message = JSON.parse(init.body);
  } catch {
    return false;
  }
  const messages = Array.isArray(message) ? message : [message];
  return messages.length > 0 && messages.every(safeMessage);
}

function safeMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { method, id } = message as { method?: unknown; id?: unknown };
  // An answer to a server's request: the server takes the first of two with one id.
  if (method === undefined) return 'result' in message || 'error' in message;
  if (typeof method !== 'string') return false;
  // A notification asks for nothing back; a second copy tells the server nothing new.
  if (id === undefined) return true;
  return SAFE_METHODS.has(method);
}
