import { type AuthInfo, CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { isJsonObject } from '../../../core';
import { subjectOf } from '../auth';
import {
  CallShares,
  overLimit,
  overShare,
  requestId,
  type SessionShares,
  type ShareLimits,
  StreamShares,
  whenDone,
} from '../http';
import { type HandleSessions, type InstanceHost } from '../sessions';
import { SESSION_META_KEY, SESSIONS_EXTENSION } from '../session';
import { paramHeaderMismatch } from '../calls';
import { endingAt } from './token-expiry';

/**
 * What an endpoint lets in now, by its callers' shares: the calls in flight, the calls
 * waiting for answers, the sessions and the listening streams each caller holds, and a
 * call whose `Mcp-Param-*` headers disagree with its arguments. Each refusal is the
 * answer to send (429 past a caller's share, 503 past the endpoint's limit, naming it).
 */
export class Admission {
  /**
   * The calls in flight (tools' calls, prompts' gets, resources' reads), each caller's
   * and all, counted by the calls (see takeCallShare).
   */
  readonly calls: CallShares;
  readonly #streams: StreamShares;
  readonly #sessions: SessionShares;
  readonly #host: InstanceHost;
  readonly #handles: HandleSessions;
  readonly #stateless: boolean;

  constructor(
    host: InstanceHost,
    handles: HandleSessions,
    sessions: SessionShares,
    limits: ShareLimits,
    stateless: boolean,
  ) {
    this.#host = host;
    this.#handles = handles;
    this.#sessions = sessions;
    this.#stateless = stateless;
    this.calls = new CallShares(limits);
    this.#streams = new StreamShares(limits);
  }

  /**
   * Why a 2026-07-28 request may not be served now, or undefined. A new call (a tool's, a
   * prompt's `get`, a resource's `read`) is refused while its caller keeps its share of
   * calls waiting for answers (429; 503 past the server's limit) or of calls in flight
   * (429; 503 past the endpoint's `maxCalls`), and a tool's call when it would open a
   * session by handle past the caller's share of sessions (429).
   */
  modern(body: unknown, caller: string, authInfo: AuthInfo | undefined): Response | undefined {
    if (!isJsonObject(body) || !counted(body.method) || !isJsonObject(body.params)) {
      return undefined;
    }
    const params = body.params;
    if (typeof params.requestState === 'string') return undefined;
    const id = requestId(body);
    const trips = this.#host.trips;
    const parked = trips.refusal(caller);
    if (parked !== undefined) {
      const remedy = 'answer them, or let them go, first';
      return parked.perCaller
        ? overShare(
            caller,
            'calls waiting for answers',
            trips.maxParkedPerCaller,
            'maxParkedCallsPerSubject',
            remedy,
            id,
          )
        : overLimit('calls waiting for answers', trips.maxParked, 'maxParkedCalls', remedy, id);
    }
    const calls = this.calls.refusal(caller, id);
    if (calls !== undefined) return calls;
    if (body.method !== 'tools/call' || this.#stateless || !opensHandleSession(params)) {
      return undefined;
    }
    const handle = handleOf(params);
    if (handle !== undefined && this.#handles.holds(handle, subjectOf(authInfo))) return undefined;
    const limits = this.#sessions.limits;
    if (this.#sessions.heldBy(caller) < limits.sessionsPerCaller) return undefined;
    return overShare(
      caller,
      'sessions',
      limits.sessionsPerCaller,
      'maxSessionsPerSubject',
      'close a client (its session ends) or carry the handle of one it holds',
      id,
    );
  }

  /**
   * The 429 of a 2025-era `tools/call`, `prompts/get` or `resources/read` of a caller
   * that holds its share of calls in flight (503 when the endpoint holds its `maxCalls`),
   * or undefined. A batch is let in: its calls are refused one by one, when they start,
   * and the answers it may carry are always taken.
   */
  call(body: unknown, caller: string): Response | undefined {
    if (!isJsonObject(body) || !counted(body.method)) return undefined;
    return this.calls.refusal(caller, requestId(body));
  }

  /**
   * Serves a listening stream of `caller` (a 2025-era session's GET, a 2026-07-28
   * `subscriptions/listen`) within the shares, counted while it is open, and ended when
   * the token that opened it expires.
   */
  async stream(
    caller: string,
    id: unknown,
    authInfo: AuthInfo | undefined,
    serve: () => Promise<Response>,
  ): Promise<Response> {
    const refused = this.#streams.refusal(caller, id);
    if (refused !== undefined) return refused;
    const close = this.#streams.open(caller);
    let response: Response;
    try {
      response = await serve();
    } catch (error) {
      close();
      throw error;
    }
    return whenDone(endingAt(response, authInfo?.expiresAt), close);
  }

  /**
   * A 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with its arguments
   * is refused (400, `-32020`): a proxy may have routed on the headers.
   */
  paramHeaders(body: unknown, headers: Headers): Response | undefined {
    if (!isJsonObject(body) || body.method !== 'tools/call' || !isJsonObject(body.params)) {
      return undefined;
    }
    const name = body.params.name;
    const served = typeof name === 'string' ? this.#host.served(name) : undefined;
    if (served === undefined || served.paramHeaders.length === 0) return undefined;
    const mismatch = paramHeaderMismatch(served.paramHeaders, body.params.arguments, headers);
    if (mismatch === undefined) return undefined;
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
    return Response.json(
      {
        jsonrpc: '2.0',
        id,
        error: {
          code: -32020,
          message: mismatch.message,
          data: { mismatch: { header: mismatch.header } },
        },
      },
      { status: 400 },
    );
  }
}

/**
 * True for the methods that count among a caller's calls in flight: a tool's call, and
 * a prompt's `get` or a resource's `read`, which run the server's code as a call does.
 */
function counted(method: unknown): boolean {
  return method === 'tools/call' || method === 'resources/read' || method === 'prompts/get';
}

/** True for `tools/call` params of a client that carries session handles. */
function opensHandleSession(params: Record<string, unknown>): boolean {
  const meta = params._meta;
  if (!isJsonObject(meta)) return false;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  return (
    isJsonObject(capabilities) &&
    isJsonObject(capabilities.extensions) &&
    capabilities.extensions[SESSIONS_EXTENSION] !== undefined
  );
}

/** The session handle `tools/call` params carry, if any. */
function handleOf(params: Record<string, unknown>): string | undefined {
  const meta = params._meta;
  const handle = isJsonObject(meta) ? meta[SESSION_META_KEY] : undefined;
  return typeof handle === 'string' && handle !== '' ? handle : undefined;
}
