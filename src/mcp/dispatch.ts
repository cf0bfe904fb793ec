/**
 * The SDK's dispatch of what arrives on a connection (its `Protocol`, in the server's
 * and in the client's package alike), told a request or a notification from a response
 * first.
 *
 * Why: the SDK finds a message's kind by trying its zod schemas in turn, a result first,
 * then an error, then a request, then a notification: every request fails two of them,
 * every notification three. Since zod 4.6 a `safeParse` that fails returns an object
 * with a getter, and V8 gives each such object a map of its own, in the old generation;
 * that map keeps the failed value (the whole message and what it reaches) alive through
 * every young collection until the next full one. In a busy server each young
 * collection then moved megabytes to the old generation and paused for about 10 ms.
 *
 * The kinds are told apart by the members the JSON-RPC shapes require (a request has
 * `method` and `id`, a notification `method` and no `id`, and neither a `result` nor an
 * `error`), then checked with the SDK's own guard, so a message goes where the SDK
 * would send it; anything else (responses, batches, malformed messages) takes the SDK's
 * dispatch as before.
 */

/** The SDK's guards of the package whose `Protocol` dispatches. */
export interface MessageGuards {
  isJSONRPCRequest(value: unknown): boolean;
  isJSONRPCNotification(value: unknown): boolean;
}

/** A transport as far as its listener goes. */
export interface Listened {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  send?: (message: never) => Promise<void>;
}

type Entry = (this: object, message: unknown, extra?: unknown) => void;

/**
 * Makes `protocol` (an SDK `Server` or `Client`, connected to `transport` already) tell
 * requests and notifications first. Where the SDK's entry points are not found (another
 * SDK release) the SDK's dispatch is kept as it is.
 */
export function dispatchRequestsFirst(
  protocol: object,
  transport: Listened,
  guards: MessageGuards,
): void {
  const dispatch = transport.onmessage as ((message: unknown, extra?: unknown) => void) | undefined;
  // Private and protected in the SDK's types, methods of the class at run time (the
  // entry points the SDK's own dispatch calls).
  const entries = protocol as { _onrequest?: unknown; _onnotification?: unknown };
  const onRequest = entries._onrequest;
  const onNotification = entries._onnotification;
  if (
    dispatch === undefined ||
    typeof onRequest !== 'function' ||
    typeof onNotification !== 'function'
  ) {
    return;
  }
  const request = onRequest as Entry;
  const notification = onNotification as Entry;
  const send = transport.send?.bind(transport) as ((message: unknown) => Promise<void>) | undefined;
  transport.onmessage = (message: unknown, extra?: unknown) => {
    const kind = messageKind(message);
    if (kind === 'request' && guards.isJSONRPCRequest(message)) {
      request.call(protocol, message, extra);
    } else if (kind === 'notification' && guards.isJSONRPCNotification(message)) {
      notification.call(protocol, message, extra);
    } else if (
      kind === 'request' &&
      send !== undefined &&
      invalidRequest(message as object, send)
    ) {
      return;
    } else dispatch(message, extra);
  };
}

/**
 * Answers a request the SDK's guard refused (`params` that is not an object, a
 * `jsonrpc` that is not "2.0", a `method` that is not a string) with JSON-RPC's Invalid
 * Request error, under its id, saying which member is wrong; the SDK's dispatch drops
 * such a message unanswered, and its sender waits for its timeout. False, leaving it to
 * the SDK, when its id is no id (there is none to answer under) or nothing is wrong.
 */
function invalidRequest(message: object, send: (message: unknown) => Promise<void>): boolean {
  const { id, jsonrpc, method, params } = message as Record<string, unknown>;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  const wrong =
    jsonrpc !== '2.0'
      ? `"jsonrpc" must be "2.0", got ${JSON.stringify(jsonrpc) ?? 'nothing'}`
      : typeof method !== 'string'
        ? '"method" must be a string'
        : params !== undefined &&
            (typeof params !== 'object' || params === null || Array.isArray(params))
          ? `the "params" of ${JSON.stringify(method)} must be an object, got ${JSON.stringify(params)?.slice(0, 100)}`
          : undefined;
  if (wrong === undefined) return false;
  void send({
    jsonrpc: '2.0',
    id,
    error: { code: INVALID_REQUEST, message: `Invalid Request: ${wrong}` },
  }).catch(() => undefined);
  return true;
}

/** JSON-RPC's code for a message that is no valid request. */
const INVALID_REQUEST = -32600;

/** What a message claims to be by its members alone; `other` for responses and the rest. */
function messageKind(message: unknown): 'request' | 'notification' | 'other' {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'other';
  if (!('method' in message) || 'result' in message || 'error' in message) return 'other';
  return 'id' in message ? 'request' : 'notification';
}
