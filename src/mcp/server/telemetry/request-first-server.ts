import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCRequest,
  type RequestId,
  type Result,
  Server,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { dispatchRequestsFirst } from '../../dispatch';

const GUARDS = { isJSONRPCRequest, isJSONRPCNotification };

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * A transport told of the requests that settled without an answer: the client cancelled
 * them (`notifications/cancelled`), so the SDK sends none, as the protocol says.
 */
export interface UnansweredRequests {
  /**
   * `id` settled and no answer of it was handed to the transport; told once the SDK
   * has decided not to send one.
   */
  requestUnanswered(id: RequestId): void;
}

/**
 * The SDK's low-level `Server`, told a request or a notification from a response before
 * it dispatches a message (see {@link dispatchRequestsFirst}: the SDK's order made every
 * request fail two zod schemas, which kept it alive through young collections). Where
 * the transport already had a listener of its own, the SDK's dispatch is kept.
 *
 * A request whose handler settles after its client cancelled it gets no answer (the SDK
 * drops it); a transport that keeps something per request until it is answered (a
 * response stream, see {@link UnansweredRequests}) is told, after the SDK's decision.
 */
export class RequestFirstServer extends Server {
  /**
   * The SDK's close makes a "connection closed" error first thing, for the requests and
   * questions still open, and makes it on every close: every 2026-07-28 HTTP request's
   * instance closes after its answer, and the error's stack trace (frames of the SDK's
   * close path only) cost ~2% of such a call's CPU. It is made without one; the limit of
   * frames is the process's again before anything else runs (the close's listener, the
   * open requests' abort listeners, which see the error's message).
   */
  protected override _onclose(): void {
    const limit = Error.stackTraceLimit;
    const onclose = this.onclose;
    const restore = (): void => {
      Error.stackTraceLimit = limit;
      if (onclose === undefined) delete this.onclose;
      else this.onclose = onclose;
    };
    this.onclose = () => {
      restore();
      onclose?.();
    };
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      restore();
    }
  }

  override async connect(transport: Transport): Promise<void> {
    const earlier = transport.onmessage;
    await super.connect(transport);
    if (earlier === undefined) dispatchRequestsFirst(this, transport, GUARDS);
  }

  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const inner = super._wrapHandler(method, handler);
    return (request, ctx) => {
      const settled = inner(request, ctx);
      const transport = this.transport as Partial<UnansweredRequests> | undefined;
      if (typeof transport?.requestUnanswered === 'function') {
        const told = transport as UnansweredRequests;
        const signal = ctx.mcpReq.signal;
        const after = (): void => {
          // Cancelled now, the SDK drops the answer (it checks the same signal in a
          // microtask after this one); told in the next turn, once it has.
          if (signal.aborted) setImmediate(() => told.requestUnanswered(request.id));
        };
        settled.then(after, after);
      }
      return settled;
    };
  }
}
