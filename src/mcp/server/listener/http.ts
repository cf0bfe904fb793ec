import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isJsonContentType,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { handleArgumentOf, isJsonObject } from '../../../core';
import { type AuthGate, authGate, fromSdkAuth, namelessCaller, subjectOf } from '../auth';
import { bringsNewWork, drainingRefusal, HealthRoute } from './health';
import { FORWARDED_CALLER_HEADER, type ScaleOut, serveElsewhere } from '../scale';
import {
  type AddressFinder,
  addressFinder,
  type Body,
  callerAddress,
  callerKey,
  requestCallers,
  ClientGone,
  discardBody,
  discardTimeoutMs,
  DEFAULT_REQUEST_TIMEOUT_MS,
  headersOf,
  type HttpHandler,
  type HttpRequestExtras,
  type HttpServeOptions,
  jsonRpcError,
  NOTHING,
  idRefusal,
  isEventStream,
  parseBody,
  readLimited,
  type AnswerBudget,
  answerBudgetOf,
  BodyBudget,
  bodyBudgetOf,
  OVER_BUDGET,
  overBudget,
  readNodeBody,
  refusedUnread,
  requestId,
  SessionShares,
  settled,
  shareLimits,
  tooLarge,
  type UnreadAnswers,
  whenDone,
  writeResponse,
  DEFAULT_WRITE_STALL_MS,
} from '../http';
import {
  buildInstance,
  DEFAULT_IDLE_MS,
  HandleSessions,
  type InstanceHost,
  type LegacyHost,
  LegacyLeg,
  type SessionOpener,
} from '../sessions';
import { Backlog, backlogs, countLimit } from '../calls';
import { RebindingGuard } from './rebinding-guard';
import { listenRefusal } from '../tasks';
import { Admission } from './admission';
import { nestedTooDeep, TOO_DEEP_MESSAGE } from '../../message-depth';
import { type Closer } from '../server-options';
import { plainError, withoutClientStack } from '../plain-errors';
import { malformedInitialize, unnamedVersion } from './refusals';
import { checkListen, ResourceListeners } from '../primitives';

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** What a `Host` header may hold: a registered name, an IPv4 or bracketed IP literal, a port. */
const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.vV]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::[0-9]*)?$/;
/** What the HTTP endpoint needs of the tool server it serves. */
export interface ServedServer extends SessionOpener, LegacyHost {
  readonly host: InstanceHost;
  /** Where requests that belong to a peer instance go; none alone. */
  readonly scaleOut: ScaleOut | undefined;
  /** Registers the endpoint for the server's close to drain and close. */
  addCloser(closer: Closer): () => void;
  /** Runs `listener` whenever the tool list changes; returns its remover. */
  onListChanged(listener: () => void): () => void;
  /** Runs `listener` whenever the prompts or the resources listed change; returns its remover. */
  onPrimitivesChanged(listener: (kind: 'prompts' | 'resources') => void): () => void;
  /**
   * Runs `listener` for each `resourceUpdated(uri)`, whose promise waits for what it
   * returns; returns its remover.
   */
  onResourceUpdated(listener: (uri: string) => Promise<void>): () => void;
  /** The scopes the served tools require, each once. */
  toolScopes(): readonly string[];
}

/**
 * `server` as an HTTP handler (see {@link HttpHandler}). `port`, when known, narrows the
 * default allowed hosts to the loopback names with that port.
 */
export function httpHandler(
  server: ServedServer,
  options: HttpServeOptions,
  port: number | undefined,
  keepAliveHint?: string,
): HttpHandler & { drain(): Promise<void> } {
  const endpoint = new HttpEndpoint(server, options, port, keepAliveHint);
  const unregister = server.addCloser(endpoint);
  return {
    paths: endpoint.paths,
    fetch: (request, extras) => endpoint.fetch(request, extras),
    node: (req, res, parsedBody) => endpoint.node(req, res, parsedBody),
    drain: () => endpoint.drain(),
    close: async () => {
      unregister();
      await endpoint.close();
    },
  };
}

class HttpEndpoint {
  readonly #server: ServedServer;
  readonly #options: HttpServeOptions;
  readonly #path: string;
  readonly #limit: number;
  /** How long a body refused unread is read and thrown away at most (see discardTimeoutMs). */
  readonly #discardMs: number;
  readonly #writeStallMs: number;
  /** The answers clients have not read, all callers together and each one's. */
  readonly #unread: AnswerBudget;
  /** The bytes of request bodies read at once, all requests together. */
  readonly #bodies: BodyBudget;
  /** The Host and Origin check; undefined when DNS-rebinding protection is off. */
  readonly #guard: RebindingGuard | undefined;
  /** The 2025-era leg: sessions by `Mcp-Session-Id`, and stateless requests. */
  readonly #legacy: LegacyLeg;
  readonly #handles: HandleSessions;
  readonly #modern: McpHttpHandler;
  /** The 2026-07-28 listen streams' resource subscriptions: the entry's bus. */
  readonly #listeners: ResourceListeners;
  readonly #unlisten: () => void;
  readonly #health: HealthRoute;
  readonly #gate: AuthGate | undefined;
  /** The callers' shares, and the requests refused for them now. */
  readonly #admission: Admission;
  readonly #address: AddressFinder;
  #closing: Promise<void> | undefined;
  /** Requests that carry an answer (POSTs but `subscriptions/listen`) not yet answered. */
  #answering = 0;
  #draining: Promise<void> | undefined;
  #drained: (() => void) | undefined;
  /**
   * The `Keep-Alive` answers of our own listener carry (`timeout=<s>`); undefined for a
   * handler mounted in someone else's server, whose answers are left as Node makes them.
   */
  readonly #keepAliveHint: string | undefined;

  constructor(
    server: ServedServer,
    options: HttpServeOptions,
    port: number | undefined,
    keepAliveHint?: string,
  ) {
    this.#server = server;
    this.#keepAliveHint = keepAliveHint;
    this.#options = options;
    this.#path = options.path ?? '/mcp';
    this.#limit = options.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
    this.#discardMs = discardTimeoutMs(
      countLimit('requestTimeoutMs', options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS),
    );
    this.#writeStallMs = countLimit(
      'writeStallTimeoutMs',
      options.writeStallTimeoutMs,
      DEFAULT_WRITE_STALL_MS,
    );
    this.#bodies = bodyBudgetOf(options, this.#limit);
    this.#unread = answerBudgetOf(options);
    this.#health = new HealthRoute(options.healthPath);
    if (options.dnsRebindingProtection ?? true) this.#guard = new RebindingGuard(options, port);
    const limits = shareLimits(options);
    this.#address = addressFinder(options.trustProxy);
    const sessionShares = new SessionShares(limits, () => this.#legacy.size + this.#handles.size);
    this.#handles = new HandleSessions(
      server,
      options.idleTimeoutMs ?? DEFAULT_IDLE_MS,
      options.stateless === true,
    );
    this.#handles.shares = sessionShares;
    this.#legacy = new LegacyLeg(server, options, this.#limit, sessionShares);
    this.#admission = new Admission(
      server.host,
      this.#handles,
      sessionShares,
      limits,
      options.stateless === true,
    );
    const reportHttp = (error: Error): void =>
      server.host.report('mcp: http', withoutClientStack(error));
    this.#listeners = new ResourceListeners(server.host, reportHttp);
    // A 2026-07-28 request is one message, its method named by the Mcp-Method header,
    // which the SDK has checked against the body before it asks for the instance.
    this.#modern = createMcpHandler(
      ({ requestInfo }) =>
        buildInstance(
          server.host,
          this.#handles,
          'modern',
          false,
          requestInfo?.headers.get('mcp-method') ?? undefined,
        ),
      {
        legacy: 'reject',
        onerror: reportHttp,
        // A resource update reaches a listen stream while its caller may read it.
        bus: this.#listeners,
        maxRequestBodySize: this.#limit,
        // The stream shares decide (503 or 429, naming the limit); the SDK's own cap
        // (1024 by default) would refuse past it in-band, whatever maxStreams says.
        maxSubscriptions: Number.MAX_SAFE_INTEGER,
      },
    );
    const unlistenTools = server.onListChanged(() => this.#modern.notify.toolsChanged());
    const unlistenPrimitives = server.onPrimitivesChanged((kind) =>
      kind === 'prompts'
        ? this.#modern.notify.promptsChanged()
        : this.#modern.notify.resourcesChanged(),
    );
    const unlistenUpdates = server.onResourceUpdated((uri) => this.#listeners.resourceUpdated(uri));
    this.#unlisten = () => {
      unlistenTools();
      unlistenPrimitives();
      unlistenUpdates();
    };
    this.#gate = authGate(options, this.#path, port, {
      toolScopes: () => server.toolScopes(),
      report: server.host.report,
    });
  }

  /** The paths answered: the endpoint's, the health route's, the metadata's (with `auth`). */
  get paths(): readonly string[] {
    const health = this.#health.path === undefined ? [] : [this.#health.path];
    return [this.#path, ...health, ...(this.#gate?.paths ?? [])];
  }

  /**
   * The caller of a request, or the answer that refuses it: with `auth`, every request
   * is verified (see auth/gate); without, the caller a framework in front verified.
   */
  async #authorize(
    request: Request,
    given: AuthInfo | undefined,
  ): Promise<AuthInfo | undefined | Response> {
    return this.#gate === undefined ? this.#named(given) : this.#gate.authenticate(request);
  }

  /**
   * The caller a framework in front verified, or the answer that refuses it when it names
   * no subject (see `fromSdkAuth`): 500, as the gate answers a verifier's caller without
   * one, the why reported. Served, every such caller would be the subject "", and each
   * would use the others' sessions and handles.
   */
  #named(given: AuthInfo | undefined): AuthInfo | undefined | Response {
    const nameless = given === undefined ? undefined : namelessCaller(given);
    if (nameless === undefined) return given;
    this.#server.host.report('mcp: http: the verified caller', nameless);
    return jsonRpcError(500, -32603, 'Internal error: the verified caller names no subject');
  }

  async fetch(request: Request, extras: HttpRequestExtras = {}): Promise<Response> {
    // A web-standard request built in process may carry its host in its URL only.
    const url = new URL(request.url);
    const early =
      this.#gate?.metadataResponse(url, request.method) ??
      this.#screen(url, request.method, request.headers, url.host);
    if (early !== undefined) return early;
    // Without a gate nothing is awaited for the caller.
    const authInfo =
      this.#gate === undefined
        ? this.#named(extras.authInfo)
        : await this.#authorize(request, extras.authInfo);
    if (authInfo instanceof Response) return authInfo;
    const caller = callerKey(authInfo, this.#clientAddress(request.headers, extras.clientAddress));
    this.#identify(request, caller);
    let body: Body;
    if (request.method === 'POST') {
      // Each caller reads its share of the bodies at once: one cannot shut the others out.
      const allowance = this.#bodies.for(caller);
      const read = await readLimited(request, this.#limit, allowance);
      if (read === undefined) return tooLarge(this.#limit);
      if (read === OVER_BUDGET) return overBudget(allowance);
      if (read instanceof Response) return read;
      const parsed = parseBody(read);
      if (parsed instanceof Response) return parsed;
      body = parsed;
    }
    if (!answers(body)) return settled(await this.#dispatch(request, body, authInfo));
    // A drain waits for this answer: produced, and sent when it streams.
    this.#answering++;
    const backlog = this.#backlog(request);
    let response: Response;
    try {
      response = await this.#dispatch(request, body, authInfo);
    } catch (error) {
      this.#answered();
      throw error;
    }
    return settled(whenDone(response, () => this.#answered(), backlog));
  }

  async node(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const abort = new AbortController();
    let finished = false;
    res.once('close', () => {
      if (!finished) abort.abort();
    });
    // A drain waits for this answer until it is written: counted once the body is read.
    let counted = false;
    let caller: string | undefined;
    let listening = false;
    const count = (key: string): void => {
      counted = true;
      caller = key;
      this.#answering++;
    };
    // A listening stream is no answer a drain waits for, but what its client leaves
    // unread counts against its caller's share as an answer's does.
    const listen = (key: string): void => {
      caller = key;
      listening = true;
    };
    let response: Response | undefined;
    try {
      response = await this.#nodeResponse(req, parsedBody, abort.signal, count, listen);
    } catch (error) {
      // A client that left mid-upload is no failure of ours, and has no one to answer.
      if (error instanceof ClientGone) return;
      this.#server.host.report('mcp: http: request failed', error);
      response = jsonRpcError(500, -32603, 'Internal error');
    }
    // A body refused unread (too large, or a request refused before its body is read):
    // what the client still sends is read and thrown away first, up to a bound, so the
    // connection closes cleanly after the answer and the client reads it rather than a
    // reset (a socket closed with unread bytes is reset, and Node closes it as soon as an
    // answer saying `Connection: close` is out). A body past the bound is left unread.
    const refusedUnread = response.headers.get('connection') === 'close';
    if (refusedUnread) await discardBody(req, this.#limit, this.#discardMs);
    try {
      // An answer that closes the connection offers no keep-alive.
      const keepAlive = refusedUnread ? undefined : this.#keepAlive(req);
      const writing = writeResponse(
        res,
        response,
        abort.signal,
        keepAlive,
        this.#writeStallMs,
        caller === undefined ? undefined : this.#unreadAnswers(caller, listening),
      );
      // Not held while it is written (see writeResponse).
      response = undefined;
      await writing;
    } finally {
      finished = true;
      if (counted) this.#answered();
    }
    // The connection goes, so a client that keeps sending holds nothing.
    if (refusedUnread) {
      await written(res);
      req.destroy();
    }
  }

  /** What an answer for `caller` may leave unread, and the report when it is cut. */
  #unreadAnswers(caller: string, listening: boolean): UnreadAnswers {
    const budget = this.#unread;
    const report = (why: 'share' | 'limit', bytes: number): void =>
      this.#server.host.report('mcp: http', plainError(budget.cut(caller, why, bytes)));
    return { budget, caller, onCut: report, listening };
  }

  /**
   * The keep-alive headers of an answer of our listener: clients that honour the hint
   * (Node's fetch and http.Agent) let an idle connection go well before the server closes
   * it, so no request is written onto a closing one. A client that keeps no connection
   * (HTTP/1.0, `Connection: close`) is left as Node answers it.
   */
  #keepAlive(req: IncomingMessage): Record<string, string> | undefined {
    const hint = this.#keepAliveHint;
    if (hint === undefined || req.httpVersion !== '1.1') return undefined;
    if (/\bclose\b/i.test(req.headers.connection ?? '')) return undefined;
    return { connection: 'keep-alive', 'keep-alive': hint };
  }

  async #nodeResponse(
    req: IncomingMessage,
    parsedBody: unknown,
    signal: AbortSignal,
    count: (caller: string) => void,
    listen: (caller: string) => void,
  ): Promise<Response> {
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = headersOf(req);
    let url: URL;
    const host = headers.get('host');
    try {
      // A Host is a name or address and a port (RFC 9110): with `#`, `@`, `/` or `?` in
      // it, the URL built from it would read part of it as the path or the fragment.
      if (host !== null && !HOST_SYNTAX.test(host)) throw new Error('not a host');
      url = new URL(`http://${host ?? 'localhost'}${req.url ?? '/'}`);
    } catch {
      return refusedUnread(
        req,
        jsonRpcError(400, -32000, 'Bad Request: the Host header or the path is not valid'),
      );
    }
    // A Node request without a Host header has no host at all.
    const early =
      this.#gate?.metadataResponse(url, method) ?? this.#screen(url, method, headers, '');
    if (early !== undefined) return refusedUnread(req, early);
    const request = new Request(url, { method, headers, signal });
    const given = (req as { auth?: AuthInfo }).auth;
    // Without a gate nothing is awaited for the caller.
    const authInfo =
      this.#gate === undefined ? this.#named(given) : await this.#authorize(request, given);
    if (authInfo instanceof Response) return refusedUnread(req, authInfo);
    const address = this.#clientAddress(headers, req.socket?.remoteAddress);
    const caller = callerKey(authInfo, address);
    this.#identify(request, caller);
    let body: Body;
    if (method === 'POST') {
      if (parsedBody !== undefined && typeof parsedBody !== 'function') {
        const refused = idRefusal(parsedBody);
        if (refused !== undefined) return refused;
        body = { parsed: parsedBody };
      } else {
        const allowance = this.#bodies.for(caller);
        const text = await readNodeBody(req, this.#limit, allowance);
        if (text === undefined) return tooLarge(this.#limit, { Connection: 'close' });
        if (text === OVER_BUDGET) return overBudget(allowance);
        const parsed = parseBody(text);
        if (parsed instanceof Response) return parsed;
        body = parsed;
      }
    }
    if (!answers(body)) {
      const response = await this.#dispatch(request, body, authInfo);
      // A `subscriptions/listen` or a session's GET: a stream its client may never read.
      if (isEventStream(response)) listen(requestCallers.get(request)?.key ?? caller);
      return response;
    }
    count(requestCallers.get(request)?.key ?? callerKey(authInfo, address));
    // writeResponse tells the backlog as it writes: the answer is not wrapped for it.
    const backlog = this.#backlog(request);
    return whenDone(await this.#dispatch(request, body, authInfo), NOTHING, backlog);
  }

  /**
   * The client address a request is counted by without authorization: the one another
   * instance of the deployment forwarded it for, when it carries that instance's signed
   * word for it (see `serveElsewhere`), else the connection's peer (`peer`), or the
   * address `X-Forwarded-For` names as `trustProxy` allows.
   */
  #clientAddress(headers: Headers, peer: string | undefined): string {
    const forwardedFor = this.#server.scaleOut?.callers.read(headers.get(FORWARDED_CALLER_HEADER));
    return forwardedFor ?? this.#address(peer, headers.get('x-forwarded-for'));
  }

  /**
   * Names the caller `request` counts against, for the shares, and the endpoint whose
   * calls in flight its calls count among.
   */
  #identify(request: Request, caller: string): void {
    requestCallers.set(request, { key: caller, calls: this.#admission.calls });
  }

  /** The answer to a request refused before its body is read, if it is. */
  #screen(target: URL, method: string, headers: Headers, urlHost: string): Response | undefined {
    if (target.pathname === this.#health.path && (method === 'GET' || method === 'HEAD')) {
      return this.#health.answer(!this.#leaving);
    }
    if (this.#closing !== undefined || this.#draining !== undefined) {
      return jsonRpcError(503, -32000, 'Service unavailable: the server is shutting down');
    }
    if (target.pathname !== this.#path) return jsonRpcError(404, -32000, 'Not found');
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') {
      return jsonRpcError(405, -32000, `Method not allowed: ${method}; use POST, GET or DELETE`, {
        Allow: 'GET, POST, DELETE',
      });
    }
    const refused = this.#guard?.refusal(headers, urlHost);
    if (refused !== undefined) return jsonRpcError(403, -32000, refused);
    if (method === 'POST' && !isJsonContentType(headers.get('content-type') ?? '')) {
      return jsonRpcError(
        415,
        -32000,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    }
    // A 2025-era session's request: a 2026-07-28 one has no session id, and the SDK
    // answers its unknown version as that revision asks (the versions it serves, the id).
    return headers.has('mcp-session-id')
      ? unnamedVersion(headers.get('mcp-protocol-version'))
      : undefined;
  }

  /** True once the server drains or closes: new work is refused, the health route fails. */
  get #leaving(): boolean {
    return this.#server.host.calls.refusing || this.#closing !== undefined;
  }

  /** True when nothing is in flight and a balancer polling the health route was told. */
  quiet(): boolean {
    return this.#answering === 0 && this.#health.told;
  }

  #answered(): void {
    this.#answering--;
    if (this.#answering === 0) this.#drained?.();
  }

  /**
   * Refuses new requests (503) and resolves once every request in flight has been
   * answered: the server's close waits for it before it closes the transports.
   */
  drain(): Promise<void> {
    this.#draining ??=
      this.#answering === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => (this.#drained = resolve));
    return this.#draining;
  }

  /**
   * The backlog of a request that is answered: how far the client lags behind the
   * notifications its streamed answer carries (the calls' notices read it).
   */
  #backlog(request: Request): Backlog {
    const backlog = new Backlog();
    backlogs.set(request, backlog);
    return backlog;
  }

  async #dispatch(request: Request, body: Body, authInfo: AuthInfo | undefined): Promise<Response> {
    const parsed = body?.parsed;
    if (nestedTooDeep(parsed)) {
      return jsonRpcError(400, -32600, TOO_DEEP_MESSAGE, {}, requestId(parsed));
    }
    const caller =
      requestCallers.get(request)?.key ?? callerKey(authInfo, this.#address(undefined, null));
    if (
      claimsModern(parsed) ||
      !(await isLegacyRequest(request, parsed, { maxRequestBodySize: this.#limit }))
    ) {
      const mismatch = this.#admission.paramHeaders(parsed, request.headers);
      if (mismatch !== undefined) return mismatch;
      if (this.#leaving && bringsNewWork(parsed)) return drainingRefusal();
      const scale = this.#server.scaleOut;
      const elsewhere =
        scale &&
        (await serveElsewhere(
          scale,
          request,
          parsed,
          (name) => {
            const served = this.#server.host.served(name);
            return served === undefined ? undefined : handleArgumentOf(served.tool);
          },
          // The owner counts the call against the client's shares, not this instance's.
          callerAddress(caller),
        ));
      if (elsewhere !== undefined) return elsewhere;
      const refused = this.#admission.modern(parsed, caller, authInfo);
      if (refused !== undefined) return refused;
      const serve = (): Promise<Response> =>
        this.#modern.fetch(request, {
          ...(authInfo === undefined ? {} : { authInfo }),
          ...(body === undefined ? {} : { parsedBody: parsed }),
        });
      if (isJsonObject(parsed) && parsed.method === 'subscriptions/listen') {
        const refusal = listenRefusal(parsed);
        if (refusal !== undefined) return Response.json(refusal, { status: 400 });
        // Its resource subscriptions are checked as resources/subscribe checks one.
        const listener = authInfo === undefined ? undefined : fromSdkAuth(authInfo);
        const checked = await checkListen(this.#server.host, parsed, listener, caller);
        if (checked !== undefined && 'error' in checked) return Response.json(checked);
        const listen =
          checked === undefined ? serve : () => this.#listeners.open(checked, parsed.id, serve);
        return this.#admission.stream(caller, requestId(parsed), authInfo, listen);
      }
      return serve();
    }
    if (this.#options.stateless === true) {
      if (this.#leaving && request.method === 'POST') return drainingRefusal();
      return (
        this.#admission.call(parsed, caller) ?? this.#legacy.serveStateless(request, body, authInfo)
      );
    }
    const id = request.headers.get('mcp-session-id');
    if (id !== null && id !== '') {
      const session = this.#legacy.get(id);
      // Another subject's session is not found either: it belongs to whoever opened it.
      if (session === undefined || session.owner !== subjectOf(authInfo)) {
        return jsonRpcError(404, -32001, 'Session not found');
      }
      const serve = (): Promise<Response> => this.#legacy.serve(session, request, body, authInfo);
      // A session's GET is its listening stream.
      if (request.method === 'GET')
        return this.#admission.stream(caller, undefined, authInfo, serve);
      return this.#admission.call(parsed, caller) ?? serve();
    }
    if (request.method === 'POST' && isInitialize(parsed)) {
      if (this.#leaving) return drainingRefusal();
      return this.#legacy.open(request, body, authInfo, caller);
    }
    if (request.method === 'POST') {
      const malformed = malformedInitialize(parsed);
      if (malformed !== undefined) return malformed;
    }
    return jsonRpcError(400, -32000, 'Bad Request: No valid session ID provided');
  }

  async close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#unlisten();
      await Promise.allSettled([this.#modern.close(), this.#legacy.close(), this.#handles.close()]);
    })();
    return this.#closing;
  }
}

/**
 * True for a single request that carries the 2026-07-28 envelope's protocol-version
 * claim: the SDK's classification routes every such request to the modern path (which
 * answers a malformed or unserved claim itself), so it need not run twice for it.
 */
function claimsModern(body: unknown): boolean {
  if (!isJsonObject(body) || !isJsonObject(body.params)) return false;
  const meta = body.params._meta;
  return isJsonObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * True for a request whose answer a drain waits for: a POST, but `subscriptions/listen`,
 * whose stream lasts as long as its client.
 */
function answers(body: Body): boolean {
  if (body === undefined) return false;
  return !(isJsonObject(body.parsed) && body.parsed.method === 'subscriptions/listen');
}

/** Resolves once `res` is handed to the OS whole, or its connection is gone. */
function written(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}

/** True for an `initialize` request, alone or in a batch. */
function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((message) => isInitializeRequest(message));
  return isInitializeRequest(body);
}
