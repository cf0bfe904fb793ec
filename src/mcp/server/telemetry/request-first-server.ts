import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  Server,
  type Transport,
} from '@modelcontextprotocol/server';

type RequestDispatch = (request: JSONRPCRequest, extra?: MessageExtraInfo) => void;

/**
 * The SDK's low-level `Server`, told a request or a notification from a response before
 * it dispatches a message.
 *
 * Why: the SDK finds a message's kind by trying its zod schemas in turn, a result first,
 * then an error, then a request, so every request fails two of them. A zod 4 `safeParse`
 * that fails returns an object with a getter, and V8 gives each such object a map of its
 * own, in the old generation; that map keeps the failed value (the whole request, its
 * arguments and what they reach) alive through every young collection until the next
 * full one. In a busy server each young collection then moved megabytes to the old
 * generation and paused for about 10 ms; told first, a request passes its own schema
 * once, and the collections move almost nothing.
 *
 * The kinds are told apart by the members the JSON-RPC shapes require (a request has
 * `method` and `id`, a notification `method` and no `id`, and neither a `result` nor an
 * `error`), then checked with the SDK's own guard, so a message goes where the SDK
 * would send it; anything else (responses, batches, malformed messages) takes the
 * SDK's dispatch as before. Where the SDK's request dispatch is not found (another SDK
 * release), or the transport already had a listener of its own, the SDK's dispatch is
 * kept as it is.
 */
export class RequestFirstServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    const earlier = transport.onmessage;
    await super.connect(transport);
    const dispatch = transport.onmessage;
    // Private in the SDK's types, a method of the class at run time (the entry
    // point the SDK's own dispatch calls for a request).
    const onRequest = (this as unknown as { _onrequest?: unknown })._onrequest;
    if (earlier !== undefined || dispatch === undefined || typeof onRequest !== 'function') return;
    const request = onRequest as RequestDispatch;
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      const kind = messageKind(message);
      if (kind === 'request' && isJSONRPCRequest(message)) request.call(this, message, extra);
      else if (kind === 'notification' && isJSONRPCNotification(message)) {
        this._onnotification(message, extra);
      } else dispatch(message, extra);
    };
  }
}

/** What a message claims to be by its members alone; `other` for responses and the rest. */
function messageKind(message: unknown): 'request' | 'notification' | 'other' {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'other';
  if (!('method' in message) || 'result' in message || 'error' in message) return 'other';
  return 'id' in message ? 'request' : 'notification';
}
