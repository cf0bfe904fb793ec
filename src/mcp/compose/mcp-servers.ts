import {
  AgentToolError,
  errorMessage,
  goQuote,
  isJsonObject,
  type LivePrimitives,
  type LiveTools,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type Tool,
  ToolListeners,
  transformTools,
} from '../../core';
import {
  type CheckedConfig,
  checkMcpServersConfig,
  type ConfigReadOptions,
  type McpServersConfig,
  type RetryOptions,
} from './config';
import {
  combinePrimitives,
  listingFailed,
  listServerPrimitives,
  type PrimitiveKind,
  type ServerPrimitives,
} from './primitives';
import { type McpServerStatus, SupervisedServer } from './supervised-server';
import {
  DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS,
  UpstreamSubscriptions,
} from './upstream-subscriptions';

/** How an {@link McpServers} runs, besides its configuration. */
export interface McpServersOptions extends ConfigReadOptions {
  /**
   * Receives each report of a server by name: one that fails to start, loses its
   * connection, comes back or is given up, a tools section that does not fit its tools.
   * By default a process warning (`AgentToolWarning`, on stderr).
   */
  readonly onWarning?: ((message: string) => void) | undefined;
  /** How long one attempt to connect (and list the tools) may take, in ms; default 30000. */
  readonly connectTimeoutMs?: number | undefined;
  /** Wins over the configuration's `retry`, member by member. */
  readonly retry?: RetryOptions | undefined;
  /** How this client introduces itself to each server. */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined;
  /**
   * Gather the servers' prompts, resources and templates once started, and follow them
   * (see {@link McpServers.prompts}); default true.
   */
  readonly primitives?: boolean | undefined;
  /**
   * How many of the servers' resources the set subscribes to at most, over every server
   * (default {@link DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS}, 10,000): each URI clients of the
   * composition subscribe to counts once, however many follow it. Past it, a client's
   * subscription to another URI is refused (-32602) naming the limit.
   */
  readonly maxResourceSubscriptions?: number | undefined;
}

/**
 * The least time between the starts of two gatherings of the prompts and resources: a
 * server that says they changed without end (a loop, a bug) has them listed at most ten
 * times a second, as a tool list is (the client's `LIST_REFRESH_GAP_MS`).
 */
const GATHER_GAP_MS = 100;

/** Both kinds: what a server that came up or went away may have changed. */
const EVERY_KIND: ReadonlySet<PrimitiveKind> = new Set(['prompts', 'resources']);

/** The default bound on one attempt to connect to a server (ms). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * The MCP servers of an `mcpServers` configuration as one set of tools: each server's
 * tools, changed as its `tools` section says, served as `<name>__<tool>` (the prefix rule
 * of the contract), then filtered by the top-level `includeTags` and `excludeTags`. A
 * `LiveTools`: `serveTools(servers)` or an app (`McpServersModule`) follows it.
 *
 * Also a `LivePrimitives`: the servers' prompts and resources, followed as the servers
 * come and go and change them.
 *
 * A server that fails to start or loses its connection is reported by name
 * (`onWarning`); its tools, prompts and resources leave the set (the listeners hear of
 * it, so served clients get a list change) while the others keep serving, and it is tried again after a
 * pause that doubles up to `retry.maxDelayMs`, until `retry.maxAttempts` attempts in a
 * row fail or the set is closed.
 *
 * Each server is reached over one connection shared by every caller of the set: what a
 * server keeps per session (a shell, a login) is shared by them all.
 */
export class McpServers implements LiveTools, LivePrimitives {
  readonly #servers: readonly SupervisedServer[];
  readonly #config: CheckedConfig;
  readonly #listeners = new ToolListeners();
  readonly #primitiveListeners = new ToolListeners();
  #tools: readonly Tool[] | undefined;
  #prompts: readonly Prompt[] = [];
  #resources: readonly (McpResource | McpResourceTemplate)[] = [];
  /** Whether the prompts and resources are gathered and followed (the `primitives` option). */
  readonly #gathers: boolean;
  /** True once every server's first attempt is over: changes are gathered from then on. */
  #following = false;
  /** The kinds of each server that changed since the gathering under way listed it. */
  #stale = new Map<SupervisedServer, Set<PrimitiveKind>>();
  /** Each server's primitives as last listed (a server that is down has none). */
  readonly #listed = new Map<SupervisedServer, ServerPrimitives>();
  /** When the last gathering began (ms since the epoch). */
  #lastGathering = 0;
  #gathering: Promise<void> | undefined;
  /** What the last gathering reported: a problem that persists is reported once. */
  #gatherReports = new Set<string>();
  readonly #report: (message: string) => void;
  /** The clients' subscriptions to the servers' resources, passed on to the servers. */
  readonly #subscriptions: UpstreamSubscriptions;
  #closing: Promise<void> | undefined;

  private constructor(config: CheckedConfig, options: McpServersOptions) {
    this.#config = config;
    this.#report =
      options.onWarning ?? ((message) => process.emitWarning(message, 'AgentToolWarning'));
    const timeout = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeout) || timeout < 1) {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `McpServers: connectTimeoutMs must be a whole number of milliseconds, 1 or more, got ${String(timeout)}`,
      );
    }
    this.#subscriptions = new UpstreamSubscriptions(
      options.maxResourceSubscriptions ?? DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS,
      (message) => this.#warn(message),
    );
    const subscriptions = this.#subscriptions;
    const host = {
      retry: config.retry,
      connectTimeoutMs: timeout,
      clientInfo: options.clientInfo ?? { name: 'agenttool', version: '0' },
      report: (message: string) => this.#warn(message),
      changed: () => {
        this.#tools = undefined;
        this.#listeners.notify();
      },
      primitivesChanged:
        options.primitives === false
          ? undefined
          : (server: SupervisedServer, kind?: PrimitiveKind) => this.#gatherAgain(server, kind),
      resourceUpdated:
        options.primitives === false
          ? undefined
          : (server: SupervisedServer, uri: string) => subscriptions.updated(server, uri),
      connected: (server: SupervisedServer) => subscriptions.connected(server),
    };
    this.#gathers = options.primitives !== false;
    this.#servers = config.servers.map((server) => new SupervisedServer(server, host));
  }

  /**
   * Checks the configuration (as written in code, or parsed from a file's JSON) (throwing `INVALID_OPTIONS` naming the source, the entry and
   * the field), then connects to every server at once and resolves once each has
   * connected or failed its first attempt (a failure is reported and tried again later);
   * then gathers the prompts and resources of those that are up (unless the `primitives`
   * option is false).
   */
  static async start(
    config: McpServersConfig,
    options: McpServersOptions = {},
  ): Promise<McpServers> {
    const given: unknown = config;
    // The option's retry is checked with the configuration's, member by member.
    const merged =
      options.retry === undefined || !isJsonObject(given)
        ? given
        : {
            ...given,
            retry: {
              ...(isJsonObject(given['retry']) ? given['retry'] : {}),
              ...definedOf(options.retry),
            },
          };
    const servers = new McpServers(checkMcpServersConfig(merged, options), options);
    await Promise.all(servers.#servers.map((server) => server.start()));
    if (servers.#gathers) {
      // Servers that came up during the start are all in this first gathering.
      servers.#following = true;
      for (const server of servers.#servers) servers.#gatherAgain(server);
      await servers.#gathering;
    }
    return servers;
  }

  /** The tools served now, server by server in the configuration's order. */
  get tools(): readonly Tool[] {
    if (this.#tools === undefined) {
      const seen = new Set<string>();
      const all: Tool[] = [];
      for (const server of this.#servers) {
        for (const tool of server.tools) {
          // `a` serving `b__c` and `a__b` serving `c` would both be `a__b__c`.
          if (seen.has(tool.name)) {
            this.#warn(
              `mcp server ${goQuote(server.config.name)}: tool ${goQuote(tool.name)} is left out: another server's tool has that name`,
            );
            continue;
          }
          seen.add(tool.name);
          all.push(tool);
        }
      }
      const { includeTags, excludeTags } = this.#config;
      this.#tools = transformTools(all, {
        ...(includeTags === undefined ? {} : { includeTags }),
        ...(excludeTags === undefined ? {} : { excludeTags }),
      });
    }
    return this.#tools;
  }

  /** Calls `listener` after each change of {@link McpServers.tools}; returns its remover. */
  onToolsChanged(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * The prompts of the servers that are up, as `<name>__<prompt>`, as last gathered; each
   * is got from the server's connection of the moment, and its arguments are completed
   * by the server when it offers completions (its failure fails the completion). Followed: they are gathered again
   * when a server comes up after the start (its first attempt failed, or it came back),
   * when one goes away (its prompts leave), and when one says its prompts or resources
   * changed (`list_changed`); one gathering at a time, at most ten a second, changes that
   * come together gathered once; only the servers that changed are listed again (the
   * others' last lists stand). {@link McpServers.onPrimitivesChanged} tells of each
   * change. Empty with the `primitives` option false.
   */
  get prompts(): readonly Prompt[] {
    return this.#prompts;
  }

  /**
   * The resources and resource templates of the servers that are up, each under its own
   * URI and its name prefixed `<name>__` (a URI two servers serve is the first's), as last
   * gathered; read from the server's connection of the moment, a template's variables
   * completed as {@link McpServers.prompts}' arguments are. Followed as
   * {@link McpServers.prompts} are. Each follows its subscribers (`follow`): a URI
   * subscribed to by any number of clients is subscribed to once on its server (when it
   * offers `resources.subscribe`), unsubscribed when the last client leaves, subscribed
   * again when the server connects again, and the server's updates of it are passed on.
   */
  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    return this.#resources;
  }

  /**
   * Calls `listener` after each change of {@link McpServers.prompts} or
   * {@link McpServers.resources}: only when a gathering found them changed (names,
   * titles, descriptions, arguments, URIs, MIME types), and when the set closes. Returns
   * its remover.
   */
  onPrimitivesChanged(listener: () => void): () => void {
    return this.#primitiveListeners.add(listener);
  }

  /** False with the `primitives` option false: then there are none, and none come. */
  get primitivesMayChange(): boolean {
    return this.#gathers;
  }

  /** Where each server stands now, in the configuration's order. */
  get status(): readonly McpServerStatus[] {
    return this.#servers.map((server) => server.status);
  }

  /** The configuration as checked (its local `tools` section and top-level tags included). */
  get config(): CheckedConfig {
    return this.#config;
  }

  /** Stops retrying and closes every connection, once; the tools, prompts and resources leave. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      // A gathering under way sees the set closing and keeps nothing.
      this.#setPrimitives([], []);
      this.#subscriptions.close();
      const results = await Promise.allSettled(this.#servers.map((server) => server.close()));
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      if (errors.length > 0)
        throw new AggregateError(errors, `McpServers.close: ${errors.length} failed`);
    })();
    return this.#closing;
  }

  /**
   * Gathers the prompts and resources again once the gathering under way (if any) is
   * done, listing `server`'s `kind` again (both kinds without one); the changes that come
   * meanwhile make one more gathering, not one each, begun {@link GATHER_GAP_MS} at least
   * after the last.
   */
  #gatherAgain(server: SupervisedServer, kind?: PrimitiveKind): void {
    if (!this.#following || this.#closing !== undefined) return;
    const kinds = this.#stale.get(server) ?? new Set<PrimitiveKind>();
    for (const k of kind === undefined ? EVERY_KIND : [kind]) kinds.add(k);
    this.#stale.set(server, kinds);
    this.#gathering ??= this.#gatherWhileStale();
  }

  async #gatherWhileStale(): Promise<void> {
    try {
      // A server that comes up tells of its tools, then of its prompts: one gathering.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.#stale.size > 0 && this.#closing === undefined) {
        const wait = this.#lastGathering + GATHER_GAP_MS - Date.now();
        // Changes that come meanwhile join this gathering.
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
        if (this.#closing !== undefined) return;
        this.#lastGathering = Date.now();
        const stale = this.#stale;
        this.#stale = new Map();
        const reports: string[] = [];
        let gathered;
        try {
          for (const server of this.#servers) {
            // A server whose last listing failed is listed again too (what failed only).
            const kinds =
              stale.get(server) ??
              (listingFailed(this.#listed.get(server)) ? new Set<PrimitiveKind>() : undefined);
            if (kinds === undefined) continue;
            const listed = await listServerPrimitives(
              server,
              kinds,
              this.#listed.get(server),
              (upstream, uri, changed) => this.#subscriptions.follow(upstream, uri, changed),
            );
            if (listed === undefined) this.#listed.delete(server);
            else this.#listed.set(server, listed);
          }
          const listings = this.#servers.flatMap((server) => {
            const listed = this.#listed.get(server);
            return listed === undefined ? [] : [{ server, listed }];
          });
          gathered = combinePrimitives(listings, (m) => reports.push(m));
        } catch (error) {
          reports.push(
            `mcp servers: gathering the prompts and resources failed: ${errorMessage(error)}`,
          );
          continue;
        } finally {
          if (this.#closing === undefined) {
            for (const report of reports) if (!this.#gatherReports.has(report)) this.#warn(report);
            this.#gatherReports = new Set(reports);
          }
        }
        if (this.#closing !== undefined) return;
        this.#setPrimitives(gathered.prompts, gathered.resources);
      }
    } finally {
      // Cleared in the same turn the loop ends: a change from now on starts another.
      this.#gathering = undefined;
    }
  }

  /** Keeps what was gathered, and tells the listeners, when it differs from what is kept. */
  #setPrimitives(
    prompts: readonly Prompt[],
    resources: readonly (McpResource | McpResourceTemplate)[],
  ): void {
    // What is listed (functions aside) says it all: each entry reaches its server's
    // connection of the moment, whichever gathering made it.
    const same = (a: readonly object[], b: readonly object[]): boolean =>
      JSON.stringify(a) === JSON.stringify(b);
    const promptsSame = same(this.#prompts, prompts);
    const resourcesSame = same(this.#resources, resources);
    if (promptsSame && resourcesSame) return;
    if (!promptsSame) this.#prompts = prompts;
    if (!resourcesSame) this.#resources = resources;
    this.#primitiveListeners.notify();
  }

  #warn(message: string): void {
    try {
      this.#report(message);
    } catch {
      // A failing reporter must not stop the servers.
    }
  }
}

function definedOf(retry: RetryOptions): Record<string, unknown> {
  return Object.fromEntries(Object.entries(retry).filter(([, value]) => value !== undefined));
}
