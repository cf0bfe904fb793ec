import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type UnansweredRequests } from '../telemetry';

/**
 * What the SDK's transport keeps of the response streams of POSTs (private in its
 * types; the fields of the class at run time in the pinned 2.4.0): the stream of each
 * request not yet answered, the answers of a batch's requests held until the last one
 * of the batch is answered, and each open stream.
 */
interface StreamBooks {
  readonly _requestToStreamMapping?: unknown;
  readonly _requestResponseMap?: unknown;
  readonly _streamMapping?: unknown;
}

/**
 * The SDK's Streamable HTTP transport of a 2025-era session, which also ends the
 * response stream of a request its client cancelled once the request has settled.
 *
 * The SDK ends a POST's SSE stream when every request it carried has been answered.
 * A request cancelled with `notifications/cancelled` is never answered (the protocol's
 * receiver SHOULD NOT answer it, and the SDK does not), so its stream stayed open until
 * the client let it go: the SDK's own client keeps reading it after a cancel, holding a
 * socket on both sides, and a server's close waited its whole grace for it. Told that
 * the request settled unanswered (see `RequestFirstServer`), the transport forgets it as
 * it forgets an answered one, and ends the stream when nothing else on it is due (other
 * requests of the same batch keep it open until they are answered). A resumable
 * session's events of it stay as those of any stream that ended: a client that resumes
 * it (the SDK's does, as it was handed an event id and no answer) is sent what it missed
 * and the end, since nothing more is due on it.
 */
export class SessionTransport
  extends WebStandardStreamableHTTPServerTransport
  implements UnansweredRequests
{
  /** Requests whose answer has been handed to `send` and is not through it yet. */
  readonly #answering = new Set<RequestId>();

  override async send(
    message: JSONRPCMessage,
    options?: { relatedRequestId?: RequestId },
  ): Promise<void> {
    const id =
      isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
    if (id === undefined) return super.send(message, options);
    // An answer waits for its event to be stored (resumable) before the SDK books it.
    this.#answering.add(id);
    try {
      await super.send(message, options);
    } finally {
      this.#answering.delete(id);
    }
  }

  /**
   * True while a request of this id, come on a POST of the session, waits for its answer
   * on a stream still open: the SDK files each request's stream by its id, so a second
   * request of the same id would take the first one's place and leave it unanswered. A
   * request whose client has gone (its stream cancelled) can be answered to no one: a
   * retry of it may take its id.
   */
  awaitsAnswer(id: RequestId): boolean {
    const books = this as unknown as StreamBooks;
    const byRequest = books._requestToStreamMapping;
    const streams = books._streamMapping;
    if (!(byRequest instanceof Map) || !(streams instanceof Map)) return false;
    const stream: unknown = byRequest.get(id);
    return stream !== undefined && streams.has(stream);
  }

  requestUnanswered(id: RequestId): void {
    if (this.#answering.has(id)) return;
    const books = this as unknown as StreamBooks;
    const byRequest = books._requestToStreamMapping;
    const answers = books._requestResponseMap;
    const streams = books._streamMapping;
    // Another SDK release: its streams are left as it keeps them.
    if (!(byRequest instanceof Map) || !(answers instanceof Map) || !(streams instanceof Map)) {
      return;
    }
    const streamId: unknown = byRequest.get(id);
    // Answered after all, or its session closed.
    if (streamId === undefined || answers.has(id)) return;
    byRequest.delete(id);
    const others = [...(byRequest as Map<RequestId, unknown>)]
      .filter(([, stream]) => stream === streamId)
      .map(([other]) => other);
    // The last answer of a batch ends its stream, as the SDK ends an answered one.
    if (!others.every((other) => answers.has(other))) return;
    (streams.get(streamId) as { cleanup?: () => void } | undefined)?.cleanup?.();
    for (const other of others) {
      answers.delete(other);
      byRequest.delete(other);
    }
  }
}
