import {
  type AuthInfo,
  type EventStore,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import { isJsonObject } from '../../../core';
import { randomUuid } from '../../random';
import { subjectOf } from '../auth';
import { type PinnedConnection } from '../server-options';
import {
  type Body,
  requestCallers,
  type HttpServeOptions,
  jsonRpcError,
  requestId,
  type SessionShares,
  whenDone,
} from '../http';
import { IdleClock } from './handle-sessions';
import { SessionTransport } from './session-transport';

/** How long a 2025-era session may sit unused before it ends, by default (30 min). */
export const DEFAULT_IDLE_MS = 30 * 60 * 1000;

/** A 2025-era session: its transport, its idle clock, and whose it is. */
export interface LegacySession {
  readonly transport: SessionTransport;
  readonly idle: IdleClock;
  /** The subject whose session it is; undefined without authorization. */
  readonly owner: string | undefined;
}

/**
 * The 2025-era leg of an HTTP endpoint: sessions opened by `initialize` and named by
 * `Mcp-Session-Id` (one SDK transport each, ended on DELETE, on idle timeout, or when
 * the endpoint closes), or, with `stateless`, a transport per request.
 */
/** What the 2025-era sessions need of the tool server. */
export interface LegacyHost {
  /**
   * An SDK instance pinned to one connection, which is one session, opened now;
   * `identified` when its callers carry an auth subject (they may list their tasks);
   * `inbound` names the method of the one message it serves, when it serves one.
   */
  pinnedInstance(era: 'legacy', connection: PinnedConnection): Server;
  /** The event store of a resumable session, kept `idleMs` past its last event. */
  eventStoreFor(
    sessionId: string,
    idleMs: number,
  ): Promise<EventStore & { dispose?(): Promise<void> }>;
}

export class LegacyLeg {
  readonly #sessions = new Map<string, LegacySession>();
  readonly #stateless = new Set<SessionTransport>();

  /** `shares` holds the endpoint's session limit and each caller's share. */
  constructor(
    private readonly server: LegacyHost,
    private readonly options: HttpServeOptions,
    private readonly bodyLimit: number,
    private readonly shares: SessionShares,
  ) {}

  /**
   * Sessions being opened: each holds its place under the limit from the moment its
   * `initialize` is let in, so initializes that arrive together cannot overrun it.
   */
  #opening = 0;

  /** How many sessions are held, those being opened included. */
  get size(): number {
    return this.#sessions.size + this.#opening;
  }

  /** The session named `id`, if it is held. */
  get(id: string): LegacySession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Opens a session with an `initialize` request of `caller` and answers it (kept if the
   * SDK accepted it). Past the endpoint's session limit the answer is 503, past the
   * caller's share 429.
   */
  async open(
    request: Request,
    body: Body,
    authInfo: AuthInfo | undefined,
    caller: string,
  ): Promise<Response> {
    const refused = this.shares.refusal(
      caller,
      requestId(body?.parsed),
      'end one (DELETE, or close a client) or try again later',
    );
    if (refused !== undefined) return refused;
    // Taken before the first await, given back once the session is refused or ends.
    this.#opening++;
    const share = this.shares.open(caller);
    let transport: SessionTransport | undefined;
    let kept = false;
    try {
      const sessionId = randomUuid();
      const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
      const events =
        this.options.resumable === true
          ? await this.server.eventStoreFor(sessionId, idleMs)
          : undefined;
      const opened = this.#transport(() => sessionId, events);
      transport = opened;
      const idle = new IdleClock(idleMs, () => {
        void opened.close();
      });
      const session: LegacySession = { transport: opened, idle, owner: subjectOf(authInfo) };
      // Only callers told apart by their subject list their tasks (2025-11-25 tasks/list).
      // The caller goes with the session: its handle kinds' instances count against it.
      const instance = this.server.pinnedInstance('legacy', {
        sessionId,
        resumable: this.options.resumable === true,
        identified: session.owner !== undefined && session.owner !== '',
        callerKey: caller,
      });
      const closed = instance.onclose;
      instance.onclose = () => {
        this.#sessions.delete(sessionId);
        share();
        idle.stop();
        void events?.dispose?.().catch(() => undefined);
        closed?.();
      };
      await instance.connect(opened);
      const response = await this.serve(session, request, body, authInfo);
      // Only a session the SDK accepted is kept: a refused initialize leaves nothing behind.
      if (opened.sessionId === sessionId) {
        this.#sessions.set(sessionId, session);
        kept = true;
      }
      return response;
    } finally {
      this.#opening--;
      if (!kept) {
        share();
        void transport?.close();
      }
    }
  }

  /** Answers a request of `session`; it is in flight until its response is done. */
  async serve(
    session: LegacySession,
    request: Request,
    body: Body,
    authInfo: AuthInfo | undefined,
  ): Promise<Response> {
    const reused = reusedId(body?.parsed, (id) => session.transport.awaitsAnswer(id));
    if (reused !== undefined) return reused;
    session.idle.busy();
    let response: Response;
    try {
      response = await session.transport.handleRequest(request, handleOptions(body, authInfo));
    } catch (error) {
      session.idle.done();
      throw error;
    }
    // A response streamed over SSE ends after handleRequest returns; the request is in
    // flight until the response is done.
    return whenDone(response, () => session.idle.done());
  }

  /** Answers a request of a stateless endpoint on a transport of its own. */
  async serveStateless(
    request: Request,
    body: Body,
    authInfo: AuthInfo | undefined,
  ): Promise<Response> {
    if (request.method !== 'POST') {
      return jsonRpcError(405, -32000, 'Method not allowed: the server is stateless', {
        Allow: 'POST',
      });
    }
    const reused = reusedId(body?.parsed, () => false);
    if (reused !== undefined) return reused;
    const transport = this.#transport(undefined);
    const subject = subjectOf(authInfo);
    // Each request is its own session, which ends with it. A message alone (not a batch)
    // is all its instance serves: it has that method's handlers only.
    const parsed = body?.parsed;
    const instance = this.server.pinnedInstance('legacy', {
      sessionId: '',
      identified: subject !== undefined && subject !== '',
      endsWithCall: true,
      callerKey: requestCallers.get(request)?.key,
      inbound:
        isJsonObject(parsed) && typeof parsed.method === 'string' ? parsed.method : undefined,
    });
    this.#stateless.add(transport);
    const end = (): void => {
      this.#stateless.delete(transport);
      void transport.close();
    };
    try {
      await instance.connect(transport);
      const response = await transport.handleRequest(request, handleOptions(body, authInfo));
      return whenDone(response, end);
    } catch (error) {
      end();
      throw error;
    }
  }

  #transport(
    sessionIdGenerator: (() => string) | undefined,
    eventStore?: EventStore,
  ): SessionTransport {
    return new SessionTransport({
      sessionIdGenerator,
      maxRequestBodySize: this.bodyLimit,
      ...(eventStore === undefined ? {} : { eventStore }),
      ...(this.options.retryIntervalMs === undefined
        ? {}
        : { retryInterval: this.options.retryIntervalMs }),
    });
  }

  /** Closes every session and stateless transport. */
  async close(): Promise<void> {
    await Promise.allSettled([
      ...[...this.#stateless].map((t) => t.close()),
      ...[...this.#sessions.values()].map((s) => s.transport.close()),
    ]);
  }
}

/**
 * The refusal of a POST whose requests reuse an id: one a request still waiting for its
 * answer holds (`waiting`), or another request of the same batch has. The SDK files a
 * request's answer by its id: the later request took the earlier one's place, which was
 * left unanswered (its stream held open, and a server's close waiting for it).
 */
function reusedId(parsed: unknown, waiting: (id: RequestId) => boolean): Response | undefined {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const seen = new Set<RequestId>();
  for (const message of messages) {
    if (!isJsonObject(message) || typeof message.method !== 'string') continue;
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    if (seen.has(id) || waiting(id)) {
      return jsonRpcError(
        400,
        -32600,
        `Invalid request: the id ${JSON.stringify(id)} is already used by ${seen.has(id) ? 'another request of the batch' : 'a request of this session that has not been answered'}; give each request in flight an id of its own`,
        {},
        Array.isArray(parsed) ? null : id,
      );
    }
    seen.add(id);
  }
  return undefined;
}

function handleOptions(
  body: Body,
  authInfo: AuthInfo | undefined,
): { parsedBody?: unknown; authInfo?: AuthInfo } {
  return {
    ...(body === undefined ? {} : { parsedBody: body.parsed }),
    ...(authInfo === undefined ? {} : { authInfo }),
  };
}
