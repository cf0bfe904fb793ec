import {
  type Implementation,
  type Server,
  type EventStore,
  type Tool as McpTool,
  type Transport,
} from '@modelcontextprotocol/server';
import { setImmediate as realSetImmediate } from 'node:timers';
import {
  accessOf,
  AgentToolError,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type RecordFunc,
  type Session,
  type LivePrimitives,
  type LiveTools,
  type Tool,
  withTraceIds,
} from '../../core';
import { randomHex } from '../random';
import {
  bounded,
  CallTracker,
  countLimit,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_PROGRESS_BUDGET_BYTES,
  keepaliveInterval,
  RoundTrips,
  type ServedTool,
} from './calls';
import type * as Listener from './listener';
import { type HttpHandler, type HttpListener, type HttpServeOptions } from './http';
import {
  buildInstance,
  type InstanceHost,
  type SessionBinding,
  SessionEventStore,
} from './sessions';
import { ScaleOut } from './scale';
import { composeHooks, readSource } from './serve-source';
import { catalogChanges, compileServedTools, type ServedChanges, toolChanges } from './swap';
import { addServable, followTools } from './follow-tools';
import { serveStdioConnection } from './stdio-serve';
import {
  type Closer,
  DEFAULT_MAX_SUBSCRIPTION_URI_BYTES,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT,
  type McpServerOptions,
  type OpenedSession,
  type ServeSource,
  type StdioConnection,
  type StdioServeOptions,
} from './server-options';
import { Tasks } from './tasks';
import { throttlingClientReports } from './plain-errors';
import { type ErrorReporter, McpSession, type SessionLease } from './session';
import { observeServer, timeSession } from './telemetry';
import {
  Catalog,
  DEFAULT_LIST_PAGE_SIZE,
  forgetSubscriptions,
  notifyResourceUpdated,
  ResourceFollows,
  SubscriberShares,
} from './primitives';

/** How often a drain looks whether the work in flight is done (ms). */
const DRAIN_POLL_MS = 25;

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
  readonly #tools = new Map<string, ServedTool>();
  readonly #sessions = new Set<McpSession>();
  /** SDK instances pinned to a connection, told when the tool list changes. */
  readonly #connections = new Set<Server>();
  readonly #closers = new Set<Closer>();
  readonly #grace: number;
  readonly #scale: ScaleOut | undefined;
  #closing: Promise<void> | undefined;
  #draining: Promise<void> | undefined;
  readonly #listeners = new Set<() => void>();
  readonly #primitiveListeners = new Set<(kind: 'prompts' | 'resources') => void>();
  readonly #updateListeners = new Set<(uri: string) => Promise<void>>();
  /** True once the constructor has added the tools it was given: later changes are changes. */
  #made = false;
  /** True once the list changed after the server was made. */
  #changed = false;
  #onSession: ((session: Session) => void | Promise<void>) | undefined;
  /** What the options add to every source: its session hook, prompts and resources. */
  readonly #given: {
    readonly onSession: ((session: Session) => void | Promise<void>) | undefined;
    readonly recorder: RecordFunc | undefined;
    readonly prompts: readonly Prompt[];
    readonly resources: readonly (McpResource | McpResourceTemplate)[];
  };
  /** The served source's recorder (an app's own), used unless the options name one. */
  #sourceRecorder: RecordFunc | undefined;
  #catalog: Catalog;
  /** @internal What every SDK instance of this server shares. */
  readonly host: InstanceHost;
  /** Withdraws the server's gauges from the meter provider (a no-op without one). */
  readonly #unobserve: () => void;
  /** Stops following a source whose tools change (see `LiveTools`). */
  #unfollow: () => void = () => undefined;
  /** True while the served source's tools change by themselves. */
  #live = false;
  /** Stops following a source whose prompts and resources change (see `LivePrimitives`). */
  #unfollowPrimitives: () => void = () => undefined;
  /** True while the served source's prompts and resources change by themselves. */
  #livePrimitives = false;
  /** Writes the default reporter's pending counts of left-out client reports (at close). */
  readonly #flushReports: (() => void) | undefined;

  constructor(source: ServeSource, options: McpServerOptions = {}) {
    const { tools, onSession, recorder, prompts, resources, live, livePrimitives } =
      readSource(source);
    // Read once: an iterable given in the options serves every source a swap brings.
    this.#given = {
      onSession: options.onSession,
      recorder: options.recorder,
      prompts: [...(options.prompts ?? [])],
      resources: [...(options.resources ?? [])],
    };
    this.#catalog = this.#catalogOf(prompts, resources);
    this.#sourceRecorder = recorder;
    const pageSize = options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `mcp: listPageSize must be a whole number of at least 1, got ${String(pageSize)}`,
      );
    }
    this.#grace = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    this.#onSession = composeHooks(onSession, options.onSession);
    const info: Implementation = {
      name: options.name ?? 'agenttool',
      version: options.version ?? '0',
    };
    let definitions: McpTool[] | undefined;
    let served: ServedTool[] | undefined;
    this.#listeners.add(() => {
      definitions = undefined;
      served = undefined;
    });
    const throttled =
      options.onError === undefined ? throttlingClientReports(defaultReporter) : undefined;
    this.#flushReports = throttled?.flush;
    const report = options.onError ?? throttled ?? defaultReporter;
    const trips = new RoundTrips(options);
    this.#scale =
      options.scaleOut === undefined
        ? undefined
        : new ScaleOut(options.scaleOut, trips.abandonAfterMs, report);
    // The recorder and the catalog are read per call: a swap changes them.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.host = {
      info,
      instructions: options.instructions,
      get recorder() {
        return self.#given.recorder ?? self.#sourceRecorder;
      },
      report,
      progressBudget: options.progressBudgetBytes ?? DEFAULT_PROGRESS_BUDGET_BYTES,
      progressKeepalive: keepaliveInterval(options.progressKeepaliveMs),
      trips: this.#scale === undefined ? trips : new RoundTrips(options, this.#scale.states),
      calls: new CallTracker(),
      tasks: new Tasks(options.tasks, report, this.#scale?.taskPlace()),
      localAuth: options.localAuth,
      listChanged: () => options.listChanged ?? (this.#live || this.#changed),
      primitivesMayChange: () => this.#livePrimitives,
      definitions: () => (definitions ??= [...this.#tools.values()].map((s) => s.definition)),
      servedTools: () => (served ??= [...this.#tools.values()]),
      served: (name) => this.#tools.get(name),
      get catalog() {
        return self.#catalog;
      },
      listPageSize: pageSize,
      subscriptionLimits: {
        perSession: countLimit(
          'maxSubscriptionsPerSession',
          options.maxSubscriptionsPerSession,
          DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
        ),
        uriBytes: countLimit(
          'maxSubscriptionUriBytes',
          options.maxSubscriptionUriBytes,
          DEFAULT_MAX_SUBSCRIPTION_URI_BYTES,
        ),
        perSubject: new SubscriberShares(
          countLimit(
            'maxSubscriptionsPerSubject',
            options.maxSubscriptionsPerSubject,
            DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT,
          ),
        ),
      },
      // Each instance follows for its own subscribers: a follow's change stays here.
      follows: new ResourceFollows((uri) => this.#tellResourceUpdatedLater(uri), report),
    };
    // A source whose tools change by themselves (remote servers) is served as its
    // changes are: a tool refused is left out and reported, the others served.
    const added = live === undefined ? tools : addServable(this, tools, report);
    if (live === undefined) this.addTools(...tools);
    this.#made = true;
    this.#follow(live, added, report);
    this.#followPrimitives(livePrimitives);
    this.#unobserve = observeServer({
      sessions: () => this.#sessions.size,
      parkedCalls: () => this.host.trips.parked,
      openTasks: () => this.host.tasks.running,
    });
  }

  /** The served tools, in the order they were added. */
  get tools(): readonly Tool[] {
    return [...this.#tools.values()].map((served) => served.tool);
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
    await Promise.all([
      notifyResourceUpdated(this.host, this.#connections, uri),
      ...[...this.#updateListeners].map((listener) => listener(uri)),
    ]);
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
    const added = compileServedTools(tools, (name) => this.#tools.has(name));
    if (added.size === 0) return;
    for (const [name, served] of added) this.#tools.set(name, served);
    this.#listChanged();
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
    if (this.#closing !== undefined) {
      throw new AgentToolError('CLOSED', 'mcp: swap: the server is closed');
    }
    const { tools, onSession, recorder, prompts, resources, live, livePrimitives } =
      readSource(source);
    const catalog = this.#catalogOf(prompts, resources);
    const served = compileServedTools(tools, () => false);
    const changes = {
      ...toolChanges(this.#tools, served),
      ...catalogChanges(this.#catalog, catalog),
    };
    this.#tools.clear();
    for (const [name, tool] of served) this.#tools.set(name, tool);
    this.#catalog = catalog;
    this.#sourceRecorder = recorder;
    this.#onSession = composeHooks(onSession, this.#given.onSession);
    this.#follow(live, tools, this.host.report);
    this.#followPrimitives(livePrimitives);
    const { added, removed, changed, promptsChanged, resourcesChanged } = changes;
    if (added.length > 0 || removed.length > 0 || changed.length > 0) this.#listChanged();
    if (promptsChanged) this.#primitivesChanged('prompts');
    if (resourcesChanged) this.#primitivesChanged('resources');
    return changes;
  }

  /**
   * Follows a source whose tools change by themselves (remote servers that come and go):
   * the served tools are kept equal to its tools, in place of the previous source's.
   */
  #follow(
    live: LiveTools | undefined,
    tools: readonly Tool[],
    report: (message: string, error: unknown) => void,
  ): void {
    this.#unfollow();
    this.#live = live !== undefined;
    this.#unfollow = live === undefined ? () => undefined : followTools(live, tools, this, report);
  }

  /**
   * Follows a source whose prompts and resources change by themselves (remote servers
   * that come and go): after each change the catalog is made again from them (the
   * options' after them), and listening clients are told of the kinds that differ.
   */
  #followPrimitives(live: LivePrimitives | undefined): void {
    this.#unfollowPrimitives();
    this.#livePrimitives = live !== undefined;
    this.#unfollowPrimitives =
      live === undefined ? () => undefined : live.onPrimitivesChanged(() => this.#rebuild(live));
  }

  /** The catalog made again from a live source's prompts and resources as they are now. */
  #rebuild(live: LivePrimitives): void {
    if (this.#closing !== undefined) return;
    let catalog: Catalog;
    try {
      catalog = this.#catalogOf([...live.prompts], [...live.resources]);
    } catch (error) {
      // What is served stays as it was: the source's next change is tried again.
      this.host.report('mcp: serve: the changed prompts and resources are not served', error);
      return;
    }
    const { promptsChanged, resourcesChanged } = catalogChanges(this.#catalog, catalog);
    // The entries may be new objects even where nothing listed differs.
    this.#catalog = catalog;
    if (promptsChanged) this.#primitivesChanged('prompts');
    if (resourcesChanged) this.#primitivesChanged('resources');
  }

  /** The catalog of a source's prompts and resources, with the options' after them. */
  #catalogOf(
    prompts: readonly Prompt[] | undefined,
    resources: readonly (McpResource | McpResourceTemplate)[] | undefined,
  ): Catalog {
    return new Catalog(
      [...(prompts ?? []), ...this.#given.prompts],
      [...(resources ?? []), ...this.#given.resources],
    );
  }

  /** Removes tools by name; returns how many were served. Listening clients are told. */
  removeTools(...names: string[]): number {
    let removed = 0;
    for (const name of names) if (this.#tools.delete(name)) removed++;
    if (removed > 0) this.#listChanged();
    return removed;
  }

  /**
   * Serves one 2025-era connection over an SDK transport (e.g. one end of
   * `InMemoryTransport.createLinkedPair()`). Resolves once the transport has started;
   * the connection is one session, which ends when the transport closes.
   */
  async connect(transport: Transport): Promise<void> {
    const server = this.pinnedInstance('legacy', transport.sessionId ?? '');
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
            this.pinnedInstance(
              era,
              '',
              false,
              undefined,
              false,
              undefined,
              undefined,
              answersRead,
            ),
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
        () => this.#notifyListChanged(),
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
    this.#draining ??= this.#drain(graceMs);
    return this.#draining;
  }

  async #drain(graceMs: number): Promise<void> {
    this.host.calls.refuseNew();
    await this.#scale
      ?.drain()
      .catch((error: unknown) =>
        this.host.report('mcp: scale-out: marking draining failed', error),
      );
    const deadline = Date.now() + graceMs;
    while (!this.#quiet() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  #quiet(): boolean {
    const { calls, trips } = this.host;
    return (
      calls.size === 0 && trips.parked === 0 && [...this.#closers].every((c) => c.quiet?.() ?? true)
    );
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
    this.#unfollow();
    this.#unfollowPrimitives();
    const open = [...this.#sessions];
    const deadline = Date.now() + this.#grace;
    const calls = this.host.calls;
    calls.stop();
    this.host.trips.stopAll(calls.signal.reason);
    this.host.tasks.stopAll('mcp: the server shut down while the task ran');
    await bounded(calls.settled(), deadline - Date.now());
    // The answers go out before the transports close.
    const draining = [...this.#closers].flatMap((closer) => closer.drain?.() ?? []);
    await bounded(Promise.allSettled(draining), deadline - Date.now());
    // A call's tool has settled, its answer is on its way to the transport: the SDK
    // hands it over within the microtasks that follow, whatever their number. The
    // timers module's own setImmediate: a test's fake clock replaces the global one.
    await new Promise<void>((resolve) => realSetImmediate(resolve));
    const closing: Promise<void>[] = [];
    for (const closer of this.#closers) closing.push(closer.close());
    for (const server of this.#connections) closing.push(server.close());
    await Promise.allSettled(closing);
    // What a connection that has not said it closed still follows is stopped with it.
    this.host.follows.close();
    // Whichever way each transport closed, every session's listeners have run when this returns.
    await Promise.all([...open, ...this.#sessions].map((session) => session.close()));
    await this.host.tasks.close();
    await this.#scale?.close();
    this.#unobserve();
    this.#flushReports?.();
  }

  /**
   * @internal Opens a session: runs the `onSession` hook (calls wait for it), and keeps
   * the session in {@link McpToolServer.sessions} until it closes.
   */
  openSession(
    id: string,
    endsWithCall = false,
    callerKey?: string,
    whenAnswersRead?: (signal?: AbortSignal) => Promise<void> | undefined,
  ): OpenedSession {
    const session: McpSession = new McpSession(
      id,
      this.host.report,
      () => this.#sessions.delete(session),
      { endsWithCall, handlePrefix: this.handlePrefix, callerKey, whenAnswersRead },
    );
    this.#sessions.add(session);
    timeSession(session);
    const hook = this.#onSession;
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
  pinnedInstance(
    era: 'legacy' | 'modern',
    sessionId: string,
    resumable = false,
    identified = (this.host.localAuth?.subject ?? '') !== '',
    endsWithCall = false,
    callerKey?: string,
    inbound?: string,
    whenAnswersRead?: (signal?: AbortSignal) => Promise<void> | undefined,
  ): Server {
    const opened = this.openSession(sessionId, endsWithCall, callerKey, whenAnswersRead);
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
    const scopes = [...this.#tools.values()].flatMap((s) => accessOf(s.tool)?.scopes ?? []);
    return [...new Set(scopes)];
  }

  /** @internal Registers something {@link McpToolServer.close} drains and closes (an HTTP listener). */
  addCloser(closer: Closer): () => void {
    this.#closers.add(closer);
    return () => this.#closers.delete(closer);
  }

  /** @internal Runs `listener` whenever the tool list changes; returns its remover. */
  onListChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #listChanged(): void {
    if (this.#made) this.#changed = true;
    this.#notifyListChanged();
    this.#scale?.publishListChanged();
  }

  /**
   * @internal Runs `listener` for each {@link McpToolServer.resourceUpdated} (an HTTP
   * endpoint's 2026-07-28 listen streams); returns its remover.
   */
  onResourceUpdated(listener: (uri: string) => Promise<void>): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  /** @internal Runs `listener` whenever the prompts or the resources listed change. */
  onPrimitivesChanged(listener: (kind: 'prompts' | 'resources') => void): () => void {
    this.#primitiveListeners.add(listener);
    return () => this.#primitiveListeners.delete(listener);
  }

  #primitivesChanged(kind: 'prompts' | 'resources'): void {
    for (const listener of this.#primitiveListeners) listener(kind);
    for (const server of this.#connections) {
      if (server.transport === undefined) continue;
      const sent =
        kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
      sent.catch(() => undefined);
    }
  }

  /** Tells this process's listening clients that the tool list changed. */
  #notifyListChanged(): void {
    for (const listener of this.#listeners) listener();
    for (const server of this.#connections) {
      if (server.transport === undefined) continue;
      server.sendToolListChanged().catch(() => undefined);
    }
  }
}

/** A connection's one session, opened with the connection. */
class ConnectionSession implements SessionBinding {
  readonly #lease: SessionLease;
  // Parked calls of one connection are answered by that connection only.
  #owner: string | undefined;
  readonly resumable: boolean;
  readonly lasting: boolean;
  /** A connection's 2026-07-28 listens are checked and followed (stdio's: see serveStdio). */
  readonly listens = true;

  constructor(opened: OpenedSession, resumable: boolean) {
    this.#lease = { ...opened, release: () => undefined };
    this.resumable = resumable;
    // A stateless request's connection is its one call's session.
    this.lasting = !opened.session.endsWithCall;
  }

  lease(): SessionLease {
    return this.#lease;
  }

  owner(): string {
    this.#owner ??= randomHex(8);
    return this.#owner;
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
