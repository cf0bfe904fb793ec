import { type EventStore, type Server, type Transport } from '@modelcontextprotocol/server';
import {
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type Session,
  type Tool,
  withTraceIds,
} from '../../core';
import { DEFAULT_CLOSE_GRACE_MS, DEFAULT_DRAIN_GRACE_MS, RoundTrips } from './calls';
import type * as Listener from './listener';
import { type HttpHandler, type HttpListener, type HttpServeOptions } from './http';
import { instanceHost, listPageSizeOf } from './instance-host';
import { buildInstance, ConnectionSession, type InstanceHost, SessionEventStore } from './sessions';
import { ScaleOut } from './scale';
import { ServedConnections } from './served-connections';
import { ServedSet } from './served-set';
import { closeServer, drainServer, type ServerParts } from './server-shutdown';
import { type ServedChanges } from './swap';
import { serveStdioConnection } from './stdio-serve';
import {
  type Closer,
  type McpServerOptions,
  type OpenedSession,
  type PinnedConnection,
  type ServeSource,
  type SessionOpening,
  type StdioConnection,
  type StdioServeOptions,
} from './server-options';
import { throttlingClientReports } from './plain-errors';
import { type ErrorReporter, McpSession } from './session';
import { observeServer, timeSession } from './telemetry';
import { forgetSubscriptions } from './primitives';

const defaultReporter: ErrorReporter = (message, error) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`${withTraceIds(message)}\n${detail}`);
};

/**
 * Serves a set of tools over MCP, to clients of the 2026-07-28 protocol and of the 2025
 * era alike, on any number of connections at once (stdio, Streamable HTTP, in-memory).
 * The set may change while it is served ({@link McpToolServer.addTools}, {@link McpToolServer.removeTools}); every
 * client that listens is then told the list changed. A source whose tools change by
 * themselves (`LiveTools`) is followed, and so is one whose prompts and resources do
 * (`LivePrimitives`): clients are told `prompts/list_changed` or
 * `resources/list_changed`.
 *
 * The server does not close the tools: whoever built them does.
 */
export class McpToolServer {
  readonly #served: ServedSet;
  readonly #sessions = new Set<McpSession>();
  /** SDK instances pinned to a connection, and the other listeners of changes. */
  readonly #connections = new ServedConnections();
  readonly #closers = new Set<Closer>();
  readonly #grace: number;
  readonly #scale: ScaleOut | undefined;
  #closing: Promise<void> | undefined;
  #draining: Promise<void> | undefined;
  /** @internal What every SDK instance of this server shares. */
  readonly host: InstanceHost;
  /** Withdraws the server's gauges from the meter provider (a no-op without one). */
  readonly #unobserve: () => void;
  /** Writes the default reporter's pending counts of left-out client reports (at close). */
  readonly #flushReports: (() => void) | undefined;

  constructor(source: ServeSource, options: McpServerOptions = {}) {
    const throttled =
      options.onError === undefined ? throttlingClientReports(defaultReporter) : undefined;
    this.#flushReports = throttled?.flush;
    const report = options.onError ?? throttled ?? defaultReporter;
    // Read once: an iterable given in the options serves every source a swap brings.
    const given = {
      onSession: options.onSession,
      recorder: options.recorder,
      prompts: [...(options.prompts ?? [])],
      resources: [...(options.resources ?? [])],
    };
    this.#served = new ServedSet(source, given, {
      toolsChanged: () => {
        this.#connections.toolsChanged();
        this.#scale?.publishListChanged();
      },
      primitivesChanged: (kind) => this.#connections.primitivesChanged(kind),
      report,
    });
    // Checked before the options below: a bad page size is the error reported first.
    const listPageSize = listPageSizeOf(options);
    this.#grace = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    const trips = new RoundTrips(options);
    this.#scale =
      options.scaleOut === undefined
        ? undefined
        : new ScaleOut(options.scaleOut, trips.abandonAfterMs, report);
    this.host = instanceHost(options, {
      report,
      trips: this.#scale === undefined ? trips : new RoundTrips(options, this.#scale.states),
      scale: this.#scale,
      served: this.#served,
      listPageSize,
      resourceChanged: (uri) => this.#tellResourceUpdatedLater(uri),
    });
    this.#served.start();
    this.#unobserve = observeServer({
      sessions: () => this.#sessions.size,
      parkedCalls: () => this.host.trips.parked,
      openTasks: () => this.host.tasks.running,
    });
  }

  /** The served tools, in the order they were added. */
  get tools(): readonly Tool[] {
    return this.#served.servedTools().map((served) => served.tool);
  }

  /**
   * The prompts served beside the tools: the source's (as they are now, for a source
   * whose prompts change: see `LivePrimitives`), then the options'.
   */
  get prompts(): readonly Prompt[] {
    return [...this.host.catalog.prompts.values()].map((entry) => entry.prompt);
  }

  /**
   * The resources and resource templates served beside the tools: the source's (as they
   * are now, for a source whose resources change), then the options'.
   */
  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    const catalog = this.host.catalog;
    return [
      ...[...catalog.resources.values()].map((entry) => entry.resource),
      ...catalog.templates.map((entry) => entry.template),
    ];
  }

  /**
   * Tells the clients that subscribed to `uri` that the resource changed; they read it
   * again: 2025-era connections that sent `resources/subscribe`, and 2026-07-28
   * `subscriptions/listen` streams (over HTTP and stdio) whose `resourceSubscriptions`
   * name it. Each is told only while its caller may still read the resource. Resolves
   * once this instance's notices have gone out. With `scaleOut`, the other instances are
   * told through the shared Redis and tell their own clients, each checking its callers'
   * access (only the URI crosses). A resource with `follow` tells the server itself,
   * through the `changed` it is given (on each instance that follows it, for that
   * instance's clients).
   */
  async resourceUpdated(uri: string): Promise<void> {
    this.#scale?.publishResourceUpdated(uri);
    await this.#tellResourceUpdated(uri);
  }

  /** Tells this instance's subscribers, for a caller that waits for nothing: failures reported. */
  #tellResourceUpdatedLater(uri: string): void {
    this.#tellResourceUpdated(uri).catch((error: unknown) =>
      this.host.report('mcp: telling of a resource change failed', error),
    );
  }

  /** Tells this instance's subscribers of `uri` that it changed. */
  async #tellResourceUpdated(uri: string): Promise<void> {
    await this.#connections.resourceUpdated(this.host, uri);
  }

  /** The sessions currently open. */
  get sessions(): readonly Session[] {
    return [...this.#sessions];
  }

  /**
   * Adds tools to the served set. Each tool's schemas (parameters, output schema) are
   * compiled first; if any tool is invalid (empty or duplicate name, a name outside
   * MCP's rule of 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`, unusable
   * schema, an output schema that is not an object schema) nothing is added and the
   * error says which and why. Clients that listen are told the list changed.
   */
  addTools(...tools: Tool[]): void {
    this.#served.addTools(...tools);
  }

  /**
   * Serves `source` in place of what is served, without ending a session or a
   * connection: its tools replace the served tools, its prompts and resources the
   * served ones (those of the options stay), its session hook and recorder the old
   * source's for the sessions and calls that start from now on. Everything is checked
   * first (as {@link McpToolServer.addTools} and the constructor check it); when
   * anything is refused, nothing changes and the error says what. Calls already running
   * finish on the tools they started with. Listening clients are told what changed:
   * `tools/list_changed`, and `prompts/list_changed` or `resources/list_changed` to
   * those that were offered prompts or resources when they connected (a client that was
   * not, because the old source had none, sees them once it reconnects). Announce
   * `listChanged: true` in the options so that clients listen from the start.
   * Returns what changed; nothing is sent when nothing did.
   */
  swap(source: ServeSource): ServedChanges {
    return this.#served.swap(source);
  }

  /** Removes tools by name; returns how many were served. Listening clients are told. */
  removeTools(...names: string[]): number {
    return this.#served.removeTools(...names);
  }

  /**
   * Serves one 2025-era connection over an SDK transport (e.g. one end of
   * `InMemoryTransport.createLinkedPair()`). Resolves once the transport has started;
   * the connection is one session, which ends when the transport closes.
   */
  async connect(transport: Transport): Promise<void> {
    const server = this.pinnedInstance('legacy', { sessionId: transport.sessionId ?? '' });
    await server.connect(transport);
  }

  /**
   * Serves one connection over stdio (the process's own stdin and stdout unless given),
   * in whichever era the client opens with. The connection is one session, which ends
   * when stdin ends (`closed` resolves then). Nothing else may write to stdout meanwhile.
   */
  serveStdio(io: StdioServeOptions = {}): Promise<StdioConnection> {
    return Promise.resolve(
      serveStdioConnection(
        {
          host: this.host,
          instance: (era, answersRead) =>
            this.pinnedInstance(era, { sessionId: '', whenAnswersRead: answersRead }),
          onResourceUpdated: (listener) => this.onResourceUpdated(listener),
          addCloser: (closer) => this.addCloser(closer),
        },
        io,
      ),
    );
  }

  /**
   * The server as an HTTP handler for both protocol eras, to mount in an HTTP server of
   * one's own: a web-standard `fetch(request)` and a Node `node(req, res)` listener,
   * with the same protections as {@link McpToolServer.listenHttp} (see {@link HttpServeOptions}).
   */
  handler(options: HttpServeOptions = {}): HttpHandler {
    const handler = loadHttp().httpHandler(this, options, undefined);
    if (this.#scale !== undefined) {
      const joined = this.#joinScaleOut().then(async () => {
        if (options.advertiseUrl !== undefined) await this.#scale?.announce(options.advertiseUrl);
      });
      joined.catch((error: unknown) => this.host.report('mcp: scale-out: joining failed', error));
    }
    return handler;
  }

  /**
   * Serves over Streamable HTTP on node's `http` server, bound to 127.0.0.1 unless
   * told otherwise, with DNS-rebinding protection on (see {@link HttpServeOptions}).
   * A server that scales out connects to its Redis first (and fails when it cannot),
   * then announces the listener to its peers.
   */
  async listenHttp(options: HttpServeOptions = {}): Promise<HttpListener> {
    await this.#joinScaleOut();
    const listener = await loadHttp().listenHttp(this, options);
    try {
      await this.#scale?.announce(options.advertiseUrl ?? listener.url);
    } catch (error) {
      await listener.close();
      throw error;
    }
    return listener;
  }

  /** This instance's name among its peers; undefined when it does not scale out. */
  get instanceId(): string | undefined {
    return this.#scale?.instanceId;
  }

  #joinScaleOut(): Promise<void> {
    return (
      this.#scale?.start(
        () => this.#connections.toolsChanged(),
        (uri) => this.#tellResourceUpdatedLater(uri),
      ) ?? Promise.resolve()
    );
  }

  /**
   * Leaves the pool, for a load balancer's sake, without stopping anything: the health
   * route answers 503, new calls are refused (new HTTP work gets 503, for the balancer
   * to send elsewhere; a new call in a 2025-era session is an isError result saying the
   * server is shutting down), while the calls running and those waiting for a client's
   * answers go on, and their answers are taken. Resolves once they are all done and a
   * balancer polling the health route has seen it fail, or after `graceMs` (default 30
   * s, {@link DEFAULT_DRAIN_GRACE_MS}). Then {@link McpToolServer.close} stops what is left. Draining
   * again returns the same promise.
   */
  drain(graceMs: number = DEFAULT_DRAIN_GRACE_MS): Promise<void> {
    this.#draining ??= drainServer(this.#parts(), graceMs);
    return this.#draining;
  }

  /**
   * Stops serving, in this order: new calls are refused (an isError result saying the
   * server is shutting down) and new HTTP requests get 503; running calls are aborted
   * (their `ctx.signal`) and each answers (a failure then says the server is shutting
   * down); calls waiting for a client's answers are stopped; once the answers have gone
   * out, or after `closeGraceMs` (5 s) whichever comes first, every transport and HTTP
   * listener is closed and every session ends (its `onClose` listeners have run when this
   * resolves). Closing again returns the same promise. The tools are not closed: whoever
   * built them closes them, after this.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#served.stop();
    await closeServer(this.#parts(), this.#grace);
    this.#unobserve();
    this.#flushReports?.();
  }

  #parts(): ServerParts {
    return {
      host: this.host,
      closers: this.#closers,
      connections: this.#connections,
      sessions: this.#sessions,
      scale: this.#scale,
    };
  }

  /**
   * @internal Opens a session: runs the `onSession` hook (calls wait for it), and keeps
   * the session in {@link McpToolServer.sessions} until it closes.
   */
  openSession(id: string, opening: SessionOpening = {}): OpenedSession {
    const { endsWithCall = false, callerKey, whenAnswersRead } = opening;
    const session: McpSession = new McpSession(
      id,
      this.host.report,
      () => this.#sessions.delete(session),
      { endsWithCall, handlePrefix: this.handlePrefix, callerKey, whenAnswersRead },
    );
    this.#sessions.add(session);
    timeSession(session);
    const hook = this.#served.onSession;
    // Without a hook there is nothing to wait for: a call awaits nothing for it.
    if (hook === undefined) return { session, ready: undefined };
    const ready = Promise.resolve().then(() => hook(session));
    // A failing hook fails the session's calls; keep it from being unhandled meanwhile.
    ready.catch(() => undefined);
    return { session, ready };
  }

  /**
   * @internal An SDK instance pinned to one connection, which is one session, opened
   * now and closed with the connection; `inbound` names the method of the one message
   * it serves, when it serves one (a stateless request).
   */
  pinnedInstance(era: 'legacy' | 'modern', connection: PinnedConnection): Server {
    const { sessionId, resumable = false, inbound } = connection;
    const identified = connection.identified ?? (this.host.localAuth?.subject ?? '') !== '';
    const opened = this.openSession(sessionId, connection);
    const binding = new ConnectionSession(opened, resumable);
    const server = buildInstance(this.host, binding, era, identified, inbound);
    opened.session.bindClient(() => server.getClientVersion());
    this.#connections.add(server);
    server.onclose = () => {
      this.#connections.delete(server);
      forgetSubscriptions(server);
      void opened.session.close();
    };
    return server;
  }

  /** @internal What a new 2026-07-28 session handle starts with: its instance, when scaled out. */
  get handlePrefix(): string {
    return this.#scale?.handlePrefix ?? '';
  }

  /** @internal Where the server forwards requests that belong to a peer; none alone. */
  get scaleOut(): ScaleOut | undefined {
    return this.#scale;
  }

  /**
   * @internal The event store of a resumable 2025-era session: in Redis when the server
   * scales out (kept `idleMs` past its last event), else in this process's memory.
   */
  async eventStoreFor(
    sessionId: string,
    idleMs: number,
  ): Promise<EventStore & { dispose?(): Promise<void> }> {
    if (this.#scale === undefined) return new SessionEventStore();
    const ttlSeconds = idleMs > 0 ? Math.ceil(idleMs / 1000) + 60 : 24 * 60 * 60;
    return this.#scale.eventStore(sessionId, ttlSeconds);
  }

  /** @internal The scopes the served tools require, each once. */
  toolScopes(): string[] {
    return this.#served.scopes();
  }

  /** @internal Registers something {@link McpToolServer.close} drains and closes (an HTTP listener). */
  addCloser(closer: Closer): () => void {
    this.#closers.add(closer);
    return () => this.#closers.delete(closer);
  }

  /** @internal Runs `listener` whenever the tool list changes; returns its remover. */
  onListChanged(listener: () => void): () => void {
    return this.#connections.onListChanged(listener);
  }

  /**
   * @internal Runs `listener` for each {@link McpToolServer.resourceUpdated} (an HTTP
   * endpoint's 2026-07-28 listen streams); returns its remover.
   */
  onResourceUpdated(listener: (uri: string) => Promise<void>): () => void {
    return this.#connections.onResourceUpdated(listener);
  }

  /** @internal Runs `listener` whenever the prompts or the resources listed change. */
  onPrimitivesChanged(listener: (kind: 'prompts' | 'resources') => void): () => void {
    return this.#connections.onPrimitivesChanged(listener);
  }
}

/**
 * A server for `source` (see {@link McpToolServer}). Serve it with `serveStdio`,
 * `listenHttp`, `handler` or `connect`.
 */
export function serveTools(source: ServeSource, options: McpServerOptions = {}): McpToolServer {
  return new McpToolServer(source, options);
}

// The HTTP side is loaded only by a server that serves HTTP.
function loadHttp(): typeof Listener {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
  return require('./listener') as typeof Listener;
}
