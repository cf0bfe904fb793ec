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
import { refusingParamsAsInvalid, rewordWireRefusal } from './invalid-params';

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

/** The method the instance being made answers only (see `RequestFirstServer.answering`). */
let making: string | undefined;

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
  /** The one method this instance is asked; undefined: any. */
  private answering: string | undefined;

  /**
   * The instance `make` returns, made to answer `method` only: it has the request and
   * notification handlers of `method` and no other, the SDK's own included. An instance
   * made for one inbound message (a 2026-07-28 HTTP request) is asked nothing else, and
   * every handler the SDK wraps and files is made again for every request (a fifth of
   * such a request's CPU, with the young collections that move it).
   */
  static answeringOnly<T extends RequestFirstServer>(method: string, make: () => T): T {
    making = method;
    try {
      const server = make();
      server.answering = method;
      return server;
    } finally {
      making = undefined;
    }
  }

  static {
    // Set on the prototype rather than declared as overrides, so the methods keep the
    // SDK's overloads (one signature here would take their types from every caller).
    type Register = (this: Server, method: string, ...rest: unknown[]) => void;
    const only = (register: Register) =>
      function answered(this: RequestFirstServer, method: string, ...rest: unknown[]): void {
        const answering = this.answering ?? making;
        if (answering !== undefined && method !== answering) return;
        register.call(this, method, ...rest);
      };
    const prototype = Server.prototype;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on the instance
    RequestFirstServer.prototype.setRequestHandler = only(prototype.setRequestHandler as Register);
    RequestFirstServer.prototype.setNotificationHandler = only(
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called on the instance
      prototype.setNotificationHandler as Register,
    );
  }

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
    const inner = super._wrapHandler(method, refusingParamsAsInvalid(method, handler));
    // The SDK checks tools/call's params itself, before the handler (see rewordWireRefusal).
    const reword =
      method === 'tools/call' ? (error: unknown) => rewordWireRefusal(method, error) : undefined;
    return (request, ctx) => {
      const settled = inner(request, ctx);
      // Told first of a refusal (the SDK reads its message after): no turn is added.
      if (reword !== undefined) void settled.catch(reword);
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
