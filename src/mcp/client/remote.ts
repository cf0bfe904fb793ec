import { setMaxListeners } from 'node:events';
import {
  type Client,
  type ClientCapabilities,
  type CompleteResult,
  type CreateMessageResult,
  type GetPromptResult,
  type Prompt,
  type PromptReference,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateReference,
  type ResourceTemplateType,
  type ServerCapabilities,
  type StreamableHTTPClientTransport,
  type SubscriptionFilter,
} from '@modelcontextprotocol/client';
import {
  AgentToolError,
  type Call,
  depthExceeded,
  goQuote,
  isJsonObject,
  MAX_JSON_DEPTH,
  type Result,
  type Root,
  type Tool,
  type ToolContext,
  toolNameProblem,
} from '../../core';
import { offersSessionsExtension, RAW_RESULT, RemoteCalls } from './calls';
import { SESSION_END_METHOD, SESSION_META_KEY } from './session-extension';
import { type ClientSetup, connectClient, connectError } from './connect';
import { checkConnectOptions, type ConnectOptions } from './connect-options';
import { CONNECTION_CLOSED } from './errors';
import { elicitationHandler } from './elicitation';
import { excerpt, quotedExcerpt } from './excerpts';
import { withoutCallTag } from './log-routing';
import { listAllTools } from './listing';
import { mirrorsParamHeaders, type ParamHeader, scanParamHeaders } from './param-headers';
import { ListRefresher } from './refresh';
import {
  type CompletionArgument,
  type CompletionContext,
  type ListOptions,
  type PrimitiveRequestOptions,
  RemotePrimitives,
} from './primitives';
import { resultOf } from './result';
import { rootsFor, type RootsSource, sampleFor, tiedCall } from './sampling-and-roots';
import { clientSdk } from './sdk-modules';
import { untilAborted } from '../signals';
import { localName, type RemoteHints, remoteTool } from './tool-mapping';
import { routesLogLinesByCall, writesJsonText } from './transport';

/** How long `close()` waits for the server to end this client's session, at most (ms). */
export const SESSION_END_TIMEOUT_MS = 5000;

/** How long a call waits for a late `tools/list_changed` by default, in milliseconds. */
export const DEFAULT_NOTIFICATION_GRACE = 50;

/**
 * How long a tool call's request waits for its answer by default: 15 minutes, longer
 * than a command of the sample shell may run (10 minutes), so a server's own timeout
 * answers first.
 */
export const DEFAULT_CALL_TIMEOUT = 15 * 60 * 1000;

/**
 * How a 404 for a 2025-era session the server does not know reached the connection:
 * on a stream (the calls waiting on it are lost), on a POST (that request never ran,
 * and its caller makes it again), or not at all.
 */
function sessionGone(error: unknown): 'stream' | 'post' | undefined {
  const sdk = clientSdk();
  if (!(error instanceof sdk.SdkHttpError) || error.status !== 404) return undefined;
  return error.code === sdk.SdkErrorCode.ClientHttpFailedToOpenStream ? 'stream' : 'post';
}

/** The server as it introduced itself; empty strings when it did not. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

const NO_TIMEOUT = 2_147_483_647; // the longest timer Node accepts

interface ConnectionFacts {
  readonly era: 'modern' | 'legacy';
  readonly serverInfo: ServerInfo;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string;
}

/** Connects to an MCP server and lists its tools; see {@link RemoteTools}. */
export function connectMcp(options: ConnectOptions): Promise<RemoteTools> {
  return RemoteTools.connect(options);
}

/**
 * An MCP server's tools as core tools, kept in step with the server's tool list.
 * Connect with {@link connectMcp}; close with {@link RemoteTools.close}.
 */
export class RemoteTools {
  #client!: Client;
  readonly #options: ConnectOptions;
  readonly #prefix: string;
  readonly #grace: number;
  #snapshot: readonly Tool[] = [];
  readonly #refresher: ListRefresher;
  readonly #calls: RemoteCalls;
  readonly #primitives: RemotePrimitives;
  #closed = false;
  /** The connection's era, server and instructions as they were when it closed. */
  #closedAs: ConnectionFacts | undefined;
  readonly #closing = new AbortController();
  #closeDone: Promise<void> | undefined;
  /** Bounds listings while connecting only. */
  #listSignal: AbortSignal | undefined;
  /**
   * How long a listing's request may take: the SDK's default (60 s), or the callTimeout
   * when that is shorter, so that a server that stops answering its lists holds neither
   * a connect nor a call's result (which waits for a list it changed) for longer.
   */
  readonly #listTimeout: number;
  #setup: ClientSetup | undefined;
  /** A new session being opened in place of a client's the server no longer knows. */
  #reopening: { readonly stale: Client; readonly done: Promise<boolean> } | undefined;
  /** The warnings given about tools left out of the list, each given once. */
  readonly #warned = new Set<string>();
  /** Resolves once the connection is closed, by {@link RemoteTools.close} or by the server. */
  readonly #ended: Promise<void>;
  #end!: () => void;

  private constructor(options: ConnectOptions) {
    checkConnectOptions(options);
    // Every call in flight listens to the remote's close: many at once is the normal case
    // (Node 20 warned past 10 listeners on one signal).
    setMaxListeners(0, this.#closing.signal);
    const prefix = options.prefix ?? '';
    const grace = options.notificationGrace ?? DEFAULT_NOTIFICATION_GRACE;
    const timeout = options.callTimeout ?? DEFAULT_CALL_TIMEOUT;
    this.#listTimeout = Math.min(
      timeout > 0 ? timeout : Number.POSITIVE_INFINITY,
      clientSdk().DEFAULT_REQUEST_TIMEOUT_MSEC,
    );
    const logLevel = options.logLevel;
    this.#options = options;
    this.#prefix = prefix;
    this.#grace = Math.min(grace, NO_TIMEOUT);
    this.#refresher = new ListRefresher(
      () => this.#listTools(),
      (error) => options.onRefreshError?.(error),
    );
    this.#calls = new RemoteCalls(
      () => this.#client,
      {
        elicitation: options.elicitation === true || options.elicitationHandler !== undefined,
        elicitationHandler: options.elicitationHandler,
        sampling: options.sampling === true || options.samplingHandler !== undefined,
        samplingHandler: options.samplingHandler,
        roots: rootsSourceOf(options),
        timeout: timeout === 0 ? NO_TIMEOUT : Math.min(timeout, NO_TIMEOUT),
        onLog: options.onLog,
        logLevel,
        routesLogLines: routesLogLinesByCall(options.transport),
        tellsStreamEnds: routesLogLinesByCall(options.transport),
        writesJsonText: writesJsonText(options.transport),
        reinitialize: (stale) => this.#reinitialize(stale),
      },
      this.#closing.signal,
    );
    this.#ended = new Promise((resolve) => (this.#end = resolve));
    this.#primitives = new RemotePrimitives({
      calls: this.#calls,
      client: () => this.#client,
      serverName: () => this.serverInfo.name || targetName(options),
      warn: (message, code) => this.#warnOnce(message, code),
    });
  }

  /** See {@link connectMcp}. */
  static async connect(options: ConnectOptions): Promise<RemoteTools> {
    const remote = new RemoteTools(options);
    await remote.#open();
    return remote;
  }

  /**
   * Resolves once the connection has closed: by {@link RemoteTools.close}, or because
   * the server went away (a stdio server's process ended, the transport closed). Calls
   * then fail with `mcp: connection closed`; a host that keeps the server's tools on
   * offer withdraws them, and may connect again.
   */
  get closed(): Promise<void> {
    return this.#ended;
  }

  /** True once the connection has closed (see {@link RemoteTools.closed}). */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The SDK client, for what this adapter does not cover. */
  get session(): Client {
    return this.#client;
  }

  /**
   * The protocol era the connection speaks: `modern` (2026-07-28) or `legacy` (2025).
   * Once closed, the era it spoke.
   */
  get era(): 'modern' | 'legacy' {
    return (this.#closedAs ?? this.#facts()).era;
  }

  /** The server's name and version, as it introduced itself (kept once closed). */
  get serverInfo(): ServerInfo {
    return (this.#closedAs ?? this.#facts()).serverInfo;
  }

  /**
   * What the server offers, as it said when its session opened (of a session opened
   * again, the new one's): `tools`, `prompts`, `resources`, `completions`, `logging`
   * and the rest, each present when offered; empty when it offered nothing. Kept once
   * closed.
   */
  get serverCapabilities(): Readonly<ServerCapabilities> {
    return (this.#closedAs ?? this.#facts()).capabilities;
  }

  /** The server's instructions; "" when it gave none (kept once closed). */
  get instructions(): string {
    return (this.#closedAs ?? this.#facts()).instructions;
  }

  // What the SDK's client knows of the connection, which it forgets when it closes.
  #facts(): ConnectionFacts {
    const client = this.#client as Client | undefined;
    const info = client?.getServerVersion();
    return {
      era: client?.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
      serverInfo: { name: info?.name ?? '', version: info?.version ?? '' },
      capabilities: client?.getServerCapabilities() ?? {},
      instructions: client?.getInstructions() ?? '',
    };
  }

  /**
   * The tools as of the latest listing: a copy, in the server's order. Each has a name
   * MCP accepts (1 to 128 characters, each of A-Z, a-z, 0-9, `_`, `-`, `.`; the prefix
   * counts): a tool named otherwise is left out, with a process warning naming it (code
   * `AGENTTOOL_MCP_INVALID_TOOL_NAME`), unless `invalidToolNames` is `keep`. Over a 2026-07-28 connection that is not stdio, a
   * tool whose `x-mcp-header` marks are invalid is left out too (SEP-2243), with a
   * process warning naming it.
   */
  tools(): Tool[] {
    return [...this.#snapshot];
  }

  /** The local name of a remote tool (`<prefix>__<name>` with a prefix). */
  localName(remote: string): string {
    return localName(this.#prefix, remote);
  }

  /** Lists the tools now; throws `mcp: list tools: <reason>` and keeps the old snapshot. */
  refresh(): Promise<void> {
    return this.#refresher.refresh();
  }

  /**
   * Resolves once the snapshot reflects every `tools/list_changed` seen before this
   * call; throws the last refresh's error until a refresh succeeds.
   */
  settled(): Promise<void> {
    return this.#refresher.settled();
  }

  /**
   * The server's prompts, every page of them (`prompts/list` followed through each
   * `nextCursor`); none when the server offers no prompts. A server that repeats a
   * cursor, or pages past `MAX_LIST_PAGES`, fails the listing rather than page forever.
   * Failures read `mcp: prompts/list on server "<name>": <reason>`.
   */
  listPrompts(options?: ListOptions): Promise<Prompt[]> {
    return this.#primitives.listPrompts(options);
  }

  /**
   * Gets the prompt `name` filled with `args`. A 2026-07-28 server that needs input first
   * (`input_required`) has its requests answered as a tool call's are (the connection's
   * handlers, or the `context` of `options`) and is asked again with the answers. A
   * server's refusal reads `mcp: prompts/get "<name>" on server "<server>": <its
   * message>`, with the SDK's `ProtocolError` (its JSON-RPC `code`) as the `cause`.
   */
  getPrompt(
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: PrimitiveRequestOptions,
  ): Promise<GetPromptResult> {
    return this.#primitives.getPrompt(name, args, options);
  }

  /** The server's resources, every page of them; see {@link RemoteTools.listPrompts}. */
  listResources(options?: ListOptions): Promise<Resource[]> {
    return this.#primitives.listResources(options);
  }

  /** The server's resource templates, every page of them; see {@link RemoteTools.listPrompts}. */
  listResourceTemplates(options?: ListOptions): Promise<ResourceTemplateType[]> {
    return this.#primitives.listResourceTemplates(options);
  }

  /**
   * Reads the resource at `uri` (a listed resource, or a template's URI filled in):
   * text contents carry `text`, binary ones base64 `blob`. Input a 2026-07-28 server
   * needs first is given as for {@link RemoteTools.getPrompt}. An unknown URI fails with
   * `mcp: resources/read "<uri>" on server "<name>": <its message>` (JSON-RPC -32602 in
   * 2026-07-28, -32002 from 2025-era servers, on the `cause`).
   */
  readResource(uri: string, options?: PrimitiveRequestOptions): Promise<ReadResourceResult> {
    return this.#primitives.readResource(uri, options);
  }

  /**
   * Asks the server to complete `argument` of a prompt (`{ type: 'ref/prompt', name }`)
   * or a resource template (`{ type: 'ref/resource', uri }`), given what has been typed
   * so far and, in `context`, the other arguments already chosen.
   */
  complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context?: CompletionContext,
    options?: ListOptions,
  ): Promise<CompleteResult> {
    return this.#primitives.complete(ref, argument, context, options);
  }

  /**
   * Asks the server to announce changes to the resource at `uri`: each arrives at the
   * `onResourceUpdated` option. A 2025-era server is sent `resources/subscribe`, and
   * sent it again in a new session that replaces one the server lost (its instance went
   * away); a 2026-07-28 server, which has no such request, is listened to on
   * `subscriptions/listen` streams of up to 50 URIs each (the
   * stream is opened anew with the URI, the one before closed once the server
   * acknowledged it: an update may come twice then), opened again a second after one
   * drops. Fails when the server does not offer subscriptions, or does not take the URI.
   */
  subscribeResource(uri: string, options?: ListOptions): Promise<void> {
    return this.#primitives.subscribeResource(uri, options);
  }

  /**
   * Stops the announcements {@link RemoteTools.subscribeResource} asked for: none is
   * passed on from then on.
   */
  unsubscribeResource(uri: string, options?: ListOptions): Promise<void> {
    return this.#primitives.unsubscribeResource(uri, options);
  }

  /**
   * Closes the connection. Calls in flight end at once with `mcp: call "<name>": mcp:
   * connection closed` (the server is told they were cancelled), and so do later calls.
   * The server is told to free what it holds for this client: a 2025-era HTTP session is
   * ended (DELETE), a 2026-07-28 session handle released (`SESSION_END_METHOD`), each
   * waited for at most {@link SESSION_END_TIMEOUT_MS}.
   */
  close(): Promise<void> {
    if (this.#closeDone === undefined) {
      this.#markClosed();
      this.#closeDone = (async () => {
        await this.#primitives.close();
        await this.#endHandleSession();
        // The transport is gone when the connection closed first (the server went away).
        const transport = this.#client.transport as
          Partial<StreamableHTTPClientTransport> | undefined;
        if (
          typeof transport?.terminateSession === 'function' &&
          transport.sessionId !== undefined
        ) {
          await transport.terminateSession().catch(() => undefined);
        }
        await this.#client.close().catch(() => undefined);
      })();
    }
    return this.#closeDone;
  }

  /** Ends the 2026-07-28 session this client's handle names, if it holds one. */
  async #endHandleSession(): Promise<void> {
    const handle = this.#calls.handle;
    const client = this.#client;
    if (handle === undefined || client.transport === undefined) return;
    if (client.getProtocolEra() !== 'modern' || !offersSessionsExtension(client)) return;
    // A server that does not know the request (or is gone) leaves the session to its idle timeout.
    await client
      .request(
        { method: SESSION_END_METHOD, params: { _meta: { [SESSION_META_KEY]: handle } } },
        RAW_RESULT,
        { timeout: SESSION_END_TIMEOUT_MS },
      )
      .catch(() => undefined);
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedAs = this.#facts();
    const error = new AgentToolError('CONNECTION', CONNECTION_CLOSED);
    this.#closing.abort(error);
    this.#refresher.close(error);
    this.#end();
  }

  async #open(): Promise<void> {
    const o = this.#options;
    const capabilities: ClientCapabilities = { ...o.capabilities };
    const answers = o.elicitation === true || o.elicitationHandler !== undefined;
    if (answers && capabilities.elicitation === undefined) {
      capabilities.elicitation = { form: {}, url: {} };
    }
    const samples = o.sampling === true || o.samplingHandler !== undefined;
    if (samples && capabilities.sampling === undefined) capabilities.sampling = {};
    if (rootsSourceOf(o) !== undefined && capabilities.roots === undefined) capabilities.roots = {};
    const setup: ClientSetup = {
      clientInfo: o.clientInfo ?? { name: 'agenttool', version: '0' },
      capabilities,
      protocol: o.protocol ?? 'auto',
      signal: o.signal,
      install: (client) => this.#install(client),
      streamEnded: (mark) => this.#calls.streamEnded(mark),
    };
    this.#setup = setup;
    this.#client = await connectClient(o.transport, setup);
    const client = this.#client;
    this.#watch(client);
    await this.#askLogLevel(client, o.signal);
    if (o.signal?.aborted === true) {
      await this.close();
      throw connectError(o.signal.reason);
    }
    const tools = client.getServerCapabilities()?.tools;
    const filter = this.#listenFilter(client);
    if (filter !== undefined) this.#listen(client, filter);
    if (tools === undefined) return;
    this.#listSignal = o.signal;
    try {
      await this.#refresher.refresh();
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      this.#listSignal = undefined;
    }
  }

  /**
   * Only the connection that came up closes this remote; a failed attempt (one that
   * needed authorization first, say) or a replaced one closes just itself.
   */
  #watch(client: Client): void {
    client.onclose = () => {
      if (this.#client === client) this.#markClosed();
    };
    // A stream that cannot be resumed because the server no longer knows the session
    // (its instance is gone): the calls waiting on it are lost, and a new session opens.
    client.onerror = (error) => {
      const gone = sessionGone(error);
      if (this.#client !== client || gone === undefined) return;
      // Only a session the server opened can be gone: a server without sessions (no
      // Mcp-Session-Id) that answers 404 (to a GET it has no route for, say) lost
      // nothing, and opening another would strand the requests in flight.
      const transport = client.transport as { readonly sessionId?: string } | undefined;
      if (transport?.sessionId === undefined) return;
      if (gone === 'stream') this.#calls.sessionLost(client);
      void this.#reinitialize(client);
    };
  }

  /**
   * Opens a new 2025-era session in place of `stale`'s, which the server answered 404
   * for (the instance that held it is gone, as the MCP spec has the client then
   * re-initialize): once for all the calls that saw it, and only over HTTP to a URL.
   * The tool list is listed again. False when it cannot or did not work.
   */
  #reinitialize(stale: Client): Promise<boolean> {
    if (this.#client !== stale) return Promise.resolve(!this.#closed);
    if (this.#reopening?.stale === stale) return this.#reopening.done;
    const target = this.#options.transport as Partial<{ url: unknown; start: unknown }>;
    const setup = this.#setup;
    const http = target.url !== undefined && !('start' in target);
    if (this.#closed || setup === undefined || !http || stale.getProtocolEra() === 'modern') {
      return Promise.resolve(false);
    }
    const done = (async () => {
      let fresh: Client;
      try {
        // Bounded by the remote's life: close() ends an opening that gets no answer.
        fresh = await connectClient(this.#options.transport, {
          ...setup,
          signal: this.#closing.signal,
        });
      } catch {
        return false;
      } finally {
        // The calls still waiting in the old session will get no answer there.
        this.#calls.sessionLost(stale);
      }
      if (this.#closed) {
        await fresh.close().catch(() => undefined);
        return false;
      }
      this.#client = fresh;
      this.#watch(fresh);
      await this.#askLogLevel(fresh, this.#closing.signal);
      await stale.close().catch(() => undefined);
      this.#refresher.notified();
      // The server forgot the subscriptions with the session: they are made again.
      void this.#primitives.subscribeAgain().then((failures) => {
        for (const failure of failures) {
          this.#warnOnce(
            `${failure} (subscribing again in a new session)`,
            'AGENTTOOL_MCP_SUBSCRIBE_AGAIN_FAILED',
          );
        }
      });
      return true;
    })();
    this.#reopening = { stale, done };
    return done;
  }

  /**
   * Tells a 2025-era server the least severe log line wanted (the `logLevel` option); an
   * abort of `signal` stops waiting for the answer.
   */
  async #askLogLevel(client: Client, signal: AbortSignal | undefined): Promise<void> {
    const level = this.#options.logLevel;
    if (
      level !== undefined &&
      client.getProtocolEra() !== 'modern' &&
      client.getServerCapabilities()?.logging !== undefined
    ) {
      // Lines below the level are dropped here anyway: a refusal changes nothing.
      await client
        .setLoggingLevel(level, signal === undefined ? {} : { signal })
        .catch(() => undefined);
    }
  }

  /** The handlers of a new SDK client, installed before it connects. */
  #install(client: Client): void {
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      this.#refresher.notified();
    });
    client.setNotificationHandler('notifications/progress', (notification) => {
      this.#calls.progressed(notification.params);
    });
    client.setNotificationHandler('notifications/message', (notification) => {
      this.#calls.logged(notification.params);
    });
    const onPrimitives = this.#options.onPrimitivesChanged;
    if (onPrimitives !== undefined) {
      const tell = (kind: 'prompts' | 'resources'): void => {
        try {
          onPrimitives(kind);
        } catch {
          // A failing listener must not break the connection.
        }
      };
      client.setNotificationHandler('notifications/prompts/list_changed', () => tell('prompts'));
      client.setNotificationHandler('notifications/resources/list_changed', () =>
        tell('resources'),
      );
    }
    const onUpdated = this.#options.onResourceUpdated;
    if (onUpdated !== undefined) {
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        const uri = notification.params.uri;
        // A 2026-07-28 stream opened anew without a URI may still bring its updates.
        if (client.getProtocolEra() === 'modern' && !this.#primitives.follows(uri)) return;
        try {
          onUpdated(uri);
        } catch {
          // A failing listener must not break the connection.
        }
      });
    }
    const own = this.#options.elicitationHandler;
    if (own !== undefined) {
      client.setRequestHandler('elicitation/create', (request, ctx) =>
        own({ ...request, params: withoutCallTag(request.params) }, { signal: ctx.mcpReq.signal }),
      );
    } else if (this.#options.elicitation === true) {
      client.setRequestHandler(
        'elicitation/create',
        elicitationHandler((meta) => this.#calls.owner(meta)),
      );
    }
    const o = this.#options;
    if (o.sampling === true || o.samplingHandler !== undefined) {
      const handler = o.samplingHandler;
      client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
        const call =
          handler === undefined
            ? tiedCall('sampling', this.#calls.owner(request.params._meta))
            : undefined;
        const params = withoutCallTag(request.params);
        const result = await sampleFor(call, handler, params, ctx.mcpReq.signal);
        // Checked by createMessageResultOf; the SDK checks it against its schema again.
        return result as CreateMessageResult;
      });
    }
    const roots = rootsSourceOf(o);
    if (roots !== undefined) {
      client.setRequestHandler('roots/list', async (_request, ctx) => {
        const call =
          roots.kind === 'call' ? tiedCall('roots', this.#calls.owner(undefined)) : undefined;
        return rootsFor(call, roots, ctx.mcpReq.signal);
      });
    }
  }

  /**
   * The list changes to listen for on a 2026-07-28 connection: the tools' when the server
   * says they may change, the prompts' and the resources' too when the caller follows
   * them (`onPrimitivesChanged`); undefined when there is nothing to listen for.
   */
  #listenFilter(client: Client): SubscriptionFilter | undefined {
    if (client.getProtocolEra() !== 'modern') return undefined;
    const offered = client.getServerCapabilities();
    const follows = this.#options.onPrimitivesChanged !== undefined;
    const filter: SubscriptionFilter = {
      ...(offered?.tools?.listChanged === true ? { toolsListChanged: true } : {}),
      ...(follows && offered?.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
      ...(follows && offered?.resources?.listChanged === true
        ? { resourcesListChanged: true }
        : {}),
    };
    return Object.keys(filter).length === 0 ? undefined : filter;
  }

  /**
   * A 2026-07-28 server sends list changes only on a `subscriptions/listen` stream the
   * client opens; one that drops is opened again, a second later, while the remote lives.
   */
  #listen(client: Client, filter: SubscriptionFilter): void {
    const open = async (): Promise<void> => {
      while (!this.#closed && this.#client === client) {
        let reason: string;
        try {
          const subscription = await client.listen(filter);
          const stop = (): void => void subscription.close();
          this.#closing.signal.addEventListener('abort', stop, { once: true });
          try {
            reason = await subscription.closed;
          } finally {
            // A stream reopened many times leaves no listener behind on the remote's signal.
            this.#closing.signal.removeEventListener('abort', stop);
          }
        } catch {
          reason = 'remote';
        }
        if (reason !== 'remote' || this.#closed) return;
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
      }
    };
    void open();
  }

  /**
   * Lists the tools. A tool whose name MCP does not accept, a second tool of one name and
   * one nested too deep are left out, with a warning naming it. Over a 2026-07-28
   * connection that is not stdio, a tool whose `x-mcp-header` declarations are invalid
   * is left out (SEP-2243: its calls could not carry their headers), with a warning
   * naming it; each call of the others carries the `Mcp-Param-*` headers its schema
   * declares.
   */
  async #listTools(): Promise<void> {
    const client = this.#client;
    const raws = await listAllTools(client, this.#listSignal, this.#listTimeout);
    const mirrors = mirrorsParamHeaders(client);
    const tools: Tool[] = [];
    const named = new Set<unknown>();
    for (const raw of raws) {
      let paramHeaders: readonly ParamHeader[] = [];
      const name = raw['name'];
      // A local name MCP does not accept (a space, a line break, a control character,
      // more than 128 characters, the prefix's included) would reach a model's API, which
      // refuses the whole request, and a host's tool set: left out, unless the caller
      // renames tools itself (invalidToolNames: 'keep'). A tool with no name still fails
      // the listing (remoteTool).
      if (typeof name === 'string' && name !== '' && this.#options.invalidToolNames !== 'keep') {
        const local = localName(this.#prefix, name);
        const problem = toolNameProblem(local);
        if (problem !== undefined) {
          this.#warnOnce(nameLeftOut(local, problem), 'AGENTTOOL_MCP_INVALID_TOOL_NAME');
          continue;
        }
      }
      // A name listed twice would make every host's tool set refuse the whole server:
      // the first stands.
      if (typeof name === 'string' && named.has(name)) {
        this.#warnOnce(
          `mcp: list tools: tool ${quotedExcerpt(name)} is listed more than once; the first is kept`,
          'AGENTTOOL_MCP_DUPLICATE_TOOL',
        );
        continue;
      }
      named.add(name);
      // A definition nested deeper than JSON is read anywhere else in agenttool could
      // not be sent on to a model (JSON.stringify runs out of stack some thousands deep).
      if (typeof name === 'string' && depthExceeded(raw) !== undefined) {
        this.#warnOnce(
          `mcp: list tools: tool ${quotedExcerpt(name)} is left out: its definition nests deeper than ${MAX_JSON_DEPTH} levels`,
          'AGENTTOOL_MCP_TOOL_TOO_DEEP',
        );
        continue;
      }
      // A tool with no name fails the listing in remoteTool, whatever it declares.
      if (mirrors && typeof name === 'string') {
        const scan = scanParamHeaders(raw['inputSchema']);
        if (!scan.valid) {
          this.#leftOut(name, scan.reason);
          continue;
        }
        paramHeaders = scan.headers;
      }
      // A 2025-era server says per tool whether it runs tasks (`execution.taskSupport`); a
      // 2026-07-28 one decides per call, and a task it answers with is followed here.
      const taskSupport = legacyTaskSupport(raw);
      const call = (
        remote: string,
        hints: RemoteHints,
        c: Call,
        ctx: ToolContext,
      ): Promise<Result> => this.#call(remote, hints, c, ctx, paramHeaders);
      tools.push(remoteTool(raw, this.#prefix, this.#options, call, taskSupport));
    }
    this.#snapshot = tools;
    try {
      this.#options.onToolsChanged?.();
    } catch {
      // A failing listener must not fail the listing.
    }
  }

  /**
   * Warns that the listed tool `remote` is left out for its invalid `x-mcp-header`
   * declarations: a process warning (`AgentToolWarning`, code
   * `AGENTTOOL_MCP_INVALID_PARAM_HEADER`), given once per tool and reason.
   */
  #leftOut(remote: string, reason: string): void {
    this.#warnOnce(
      `mcp: list tools: tool ${quotedExcerpt(remote)} is left out: its x-mcp-header declarations are invalid (SEP-2243): ${reason}`,
      'AGENTTOOL_MCP_INVALID_PARAM_HEADER',
    );
  }

  /**
   * A process warning (`AgentToolWarning`, `code`), given once per text. Each text is cut
   * at 8192 characters (see excerpts.ts), whatever a server put in it: the texts are kept.
   */
  #warnOnce(warning: string, code: string): void {
    const text = excerpt(warning);
    if (this.#warned.has(text)) return;
    this.#warned.add(text);
    process.emitWarning(text, { type: 'AgentToolWarning', code });
  }

  async #call(
    remote: string,
    hints: RemoteHints,
    call: Call,
    ctx: ToolContext,
    paramHeaders: readonly ParamHeader[],
  ): Promise<Result> {
    const seenBefore = this.#refresher.seen;
    const raw = await this.#calls.call(remote, call, ctx, hints.replaySafe, paramHeaders);
    await this.#afterCall(seenBefore, hints.readOnly, ctx.signal);
    if (hints.structuredProblem !== undefined && isJsonObject(raw) && raw['isError'] !== true) {
      const problem = hints.structuredProblem(raw['structuredContent']);
      if (problem !== undefined) {
        // The problem may quote the content, which the server can make megabytes long.
        throw new AgentToolError('PROTOCOL', `mcp: call ${goQuote(remote)}: ${excerpt(problem)}`);
      }
    }
    return resultOf(raw);
  }

  /** Lets a call that changed the tool list return only once the snapshot shows it. */
  async #afterCall(seenBefore: number, readOnly: boolean, signal: AbortSignal): Promise<void> {
    let changed = this.#refresher.seen > seenBefore;
    const listChanged = this.#client.getServerCapabilities()?.tools?.listChanged === true;
    if (!changed && this.#grace > 0 && listChanged && !readOnly) {
      changed = await this.#refresher.nextNotification(this.#grace, signal);
    }
    if (!changed) return;
    // The result stands whatever the refresh does; an abort stops the wait.
    await untilAborted(
      this.#refresher.settled().catch(() => undefined),
      signal,
    );
  }
}

/**
 * The warning that a listed tool is left out for its name: why, as the rule says it
 * (see `toolNameProblem`), the name quoted cut short there too (the rule quotes it whole,
 * and a server can make it megabytes long).
 */
function nameLeftOut(name: string, problem: string): string {
  const quoted = quotedExcerpt(name);
  const reason = problem.replace(goQuote(name), () => quoted);
  return `mcp: list tools: tool ${quoted} is left out: ${reason}`;
}

/** A 2025-era tool's `execution.taskSupport`, when it runs as a task at all. */
function legacyTaskSupport(raw: Readonly<Record<string, unknown>>): 'optional' | undefined {
  const execution = raw['execution'];
  if (typeof execution !== 'object' || execution === null) return undefined;
  const mode = (execution as Record<string, unknown>)['taskSupport'];
  // A tool that runs only as a task is still called as a plain call by this client,
  // which asks for no 2025-11-25 task: the server decides.
  return mode === 'optional' || mode === 'required' ? 'optional' : undefined;
}

/** How errors name a server that gave no name: the URL or command it was reached at. */
function targetName(options: ConnectOptions): string {
  const target = options.transport as Partial<{ url: string | URL; command: unknown }>;
  if (target.url !== undefined) return target.url.toString();
  if (typeof target.command === 'string') return target.command;
  return 'the server';
}

/** Where this connection answers a server's `roots/list` from; undefined: it does not. */
function rootsSourceOf(options: ConnectOptions): RootsSource | undefined {
  if (options.rootsHandler !== undefined) return { kind: 'handler', handler: options.rootsHandler };
  if (options.roots === true) return { kind: 'call' };
  const roots: unknown = options.roots;
  if (Array.isArray(roots)) return { kind: 'fixed', roots: [...(roots as readonly Root[])] };
  return undefined;
}
