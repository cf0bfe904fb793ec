import {
  AgentToolError,
  goQuote,
  isJsonObject,
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
import { gatherPrimitives } from './primitives';
import { type McpServerStatus, SupervisedServer } from './supervised-server';

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
   * Gather the servers' prompts, resources and templates once started (see
   * {@link McpServers.prompts}); default true.
   */
  readonly primitives?: boolean | undefined;
}

/** The default bound on one attempt to connect to a server (ms). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * The MCP servers of an `mcpServers` configuration as one set of tools: each server's
 * tools, changed as its `tools` section says, served as `<name>__<tool>` (the prefix rule
 * of the contract), then filtered by the top-level `includeTags` and `excludeTags`. A
 * `LiveTools`: `serveTools(servers)` or an app (`McpServersModule`) follows it.
 *
 * A server that fails to start or loses its connection is reported by name
 * (`onWarning`); its tools leave the set (the listeners hear of it, so served clients
 * get a tool-list change) while the others keep serving, and it is tried again after a
 * pause that doubles up to `retry.maxDelayMs`, until `retry.maxAttempts` attempts in a
 * row fail or the set is closed.
 *
 * Each server is reached over one connection shared by every caller of the set: what a
 * server keeps per session (a shell, a login) is shared by them all.
 */
export class McpServers implements LiveTools {
  readonly #servers: readonly SupervisedServer[];
  readonly #config: CheckedConfig;
  readonly #listeners = new ToolListeners();
  #tools: readonly Tool[] | undefined;
  #prompts: Prompt[] = [];
  #resources: (McpResource | McpResourceTemplate)[] = [];
  readonly #report: (message: string) => void;
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
    const host = {
      retry: config.retry,
      connectTimeoutMs: timeout,
      clientInfo: options.clientInfo ?? { name: 'agenttool', version: '0' },
      report: (message: string) => this.#warn(message),
      changed: () => {
        this.#tools = undefined;
        this.#listeners.notify();
      },
    };
    this.#servers = config.servers.map((server) => new SupervisedServer(server, host));
  }

  /**
   * Checks the configuration (as written in code, or parsed from a file's JSON) (throwing `INVALID_OPTIONS` naming the source, the entry and
   * the field), then connects to every server at once and resolves once each has
   * connected or failed its first attempt (a failure is reported and tried again later);
   * then gathers the prompts and resources of those that are up.
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
    if (options.primitives !== false) {
      const gathered = await gatherPrimitives(servers.#servers, (m) => servers.#warn(m));
      servers.#prompts = gathered.prompts;
      servers.#resources = gathered.resources;
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
   * The prompts of the servers that were up at the start, as `<name>__<prompt>`; each is
   * got from the server's connection of the moment. Not followed afterwards: a server
   * that came up later, or a prompt a server adds, is not among them.
   */
  get prompts(): readonly Prompt[] {
    return this.#prompts;
  }

  /**
   * The resources and resource templates of the servers that were up at the start, each
   * under its own URI and its name prefixed `<name>__` (a URI two servers serve is the
   * first's); read from the server's connection of the moment. Not followed afterwards.
   */
  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    return this.#resources;
  }

  /** Where each server stands now, in the configuration's order. */
  get status(): readonly McpServerStatus[] {
    return this.#servers.map((server) => server.status);
  }

  /** The configuration as checked (its local `tools` section and top-level tags included). */
  get config(): CheckedConfig {
    return this.#config;
  }

  /** Stops retrying and closes every connection, once; the tools leave. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const results = await Promise.allSettled(this.#servers.map((server) => server.close()));
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      if (errors.length > 0)
        throw new AggregateError(errors, `McpServers.close: ${errors.length} failed`);
    })();
    return this.#closing;
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
