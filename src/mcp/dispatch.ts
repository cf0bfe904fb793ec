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
  transport.onmessage = (message: unknown, extra?: unknown) => {
    const kind = messageKind(message);
    if (kind === 'request' && guards.isJSONRPCRequest(message)) {
      request.call(protocol, message, extra);
    } else if (kind === 'notification' && guards.isJSONRPCNotification(message)) {
      notification.call(protocol, message, extra);
    } else dispatch(message, extra);
  };
}

/** What a message claims to be by its members alone; `other` for responses and the rest. */
function messageKind(message: unknown): 'request' | 'notification' | 'other' {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'other';
  if (!('method' in message) || 'result' in message || 'error' in message) return 'other';
  return 'id' in message ? 'request' : 'notification';
}
