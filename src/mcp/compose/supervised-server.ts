import {
  AgentToolError,
  errorMessage,
  goQuote,
  type Tool,
  toolNameProblem,
  type ToolSetTransform,
  transformTool,
  transformTools,
  wrap,
} from '../../core';
import { connectMcp, type RemoteTools, ServerBusyError } from '../client';
import { type CheckedServer, type RetryPolicy } from './config';
import { scrubbed, scrubbedError } from './secrets';

/** Where a server of an {@link McpServers} stands. */
export type McpServerState = 'starting' | 'up' | 'down' | 'given-up' | 'closed';

/** One server of an {@link McpServers}, as it stands now. */
export interface McpServerStatus {
  /** Its name in the configuration: the prefix of its tools. */
  readonly name: string;
  readonly state: McpServerState;
  /** Where it is: the command line, or the URL without its query (never a credential). */
  readonly target: string;
  /** How many of its tools are served now. */
  readonly tools: number;
  /** Its last failure (credentials taken out), while it is not up. */
  readonly error?: string | undefined;
  /** Failed attempts in a row since it was last up. */
  readonly failures: number;
}

/** What a supervised server needs of the set it belongs to. */
export interface ServerHost {
  readonly retry: RetryPolicy;
  readonly connectTimeoutMs: number;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Reports a failure or a recovery, already naming the server. */
  readonly report: (message: string) => void;
  /** The server's served tools changed. */
  readonly changed: () => void;
  /**
   * The server's prompts or resources may have changed: it came up, went away (both
   * kinds, `kind` undefined), or said those of `kind` changed (absent: they are not
   * followed, and the server is not asked).
   */
  readonly primitivesChanged?:
    ((server: SupervisedServer, kind?: 'prompts' | 'resources') => void) | undefined;
  /**
   * The server said the resource at `uri` changed (`notifications/resources/updated`,
   * after a subscription); absent: such notices are not listened for.
   */
  readonly resourceUpdated?: ((server: SupervisedServer, uri: string) => void) | undefined;
  /** The server connected (again): {@link SupervisedServer.remote} is the new connection. */
  readonly connected?: ((server: SupervisedServer) => void) | undefined;
}

/**
 * One configured MCP server kept connected: its tools listed, changed as its `tools`
 * section says and prefixed `<name>__`; a failed start or a lost connection reported by
 * name, its tools withdrawn, and the connection tried again after a pause that doubles
 * (to `maxDelayMs`) until `maxAttempts` attempts in a row have failed, or until closed.
 */
export class SupervisedServer {
  #remote: RemoteTools | undefined;
  #tools: readonly Tool[] = [];
  #state: McpServerState = 'starting';
  #failures = 0;
  #error: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #probing = false;
  readonly #closing = new AbortController();
  readonly #warned = new Set<string>();

  constructor(
    readonly config: CheckedServer,
    private readonly host: ServerHost,
  ) {}

  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The connection while it is up. */
  get remote(): RemoteTools | undefined {
    return this.#remote;
  }

  get status(): McpServerStatus {
    return {
      name: this.config.name,
      state: this.#state,
      target: this.config.shown,
      tools: this.#tools.length,
      ...(this.#state !== 'up' && this.#error !== undefined ? { error: this.#error } : {}),
      failures: this.#failures,
    };
  }

  /** The first attempt; resolves once it connected or failed (a failure is retried later). */
  start(): Promise<void> {
    return this.#attempt();
  }

  /** Stops retrying and closes the connection; its tools leave. */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    clearTimeout(this.#timer);
    this.#state = 'closed';
    const remote = this.#remote;
    this.#remote = undefined;
    this.#setTools([]);
    await remote?.close();
  }

  async #attempt(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#state = 'starting';
    const { target, protocol, name } = this.config;
    let connected: RemoteTools | undefined;
    try {
      connected = await connectMcp({
        transport:
          typeof target === 'function'
            ? target()
            : 'command' in target
              ? { ...target, stderr: 'inherit' }
              : target,
        protocol,
        // The tools section may rename a tool the server names as MCP does not accept;
        // what is served is checked once renamed and prefixed (#list).
        invalidToolNames: 'keep',
        // A question or a turn of the model the server asks for goes to the client of the
        // call it serves. (Roots are not offered: servers ask for them outside any call.)
        elicitation: true,
        sampling: true,
        clientInfo: this.host.clientInfo,
        notificationGrace: 0,
        signal: AbortSignal.any([
          this.#closing.signal,
          AbortSignal.timeout(this.host.connectTimeoutMs),
        ]),
        onToolsChanged: () => {
          if (connected !== undefined && this.#remote === connected) this.#list(connected);
        },
        ...(this.host.primitivesChanged === undefined
          ? {}
          : {
              onPrimitivesChanged: (kind: 'prompts' | 'resources') => {
                if (connected !== undefined && this.#remote === connected) {
                  this.host.primitivesChanged?.(this, kind);
                }
              },
            }),
        ...(this.host.resourceUpdated === undefined
          ? {}
          : {
              onResourceUpdated: (uri: string) => {
                if (connected !== undefined && this.#remote === connected) {
                  this.host.resourceUpdated?.(this, uri);
                }
              },
            }),
        onRefreshError: (error) => this.#warnOnce(`listing its tools failed: ${this.#text(error)}`),
      });
    } catch (error) {
      this.#failed(`could not start: ${this.#text(error)}`);
      return;
    }
    if (this.#closing.signal.aborted) {
      await connected.close();
      return;
    }
    const again = this.#failures > 0 || this.#error !== undefined;
    this.#remote = connected;
    this.#state = 'up';
    this.#failures = 0;
    this.#error = undefined;
    this.#list(connected);
    this.host.primitivesChanged?.(this);
    this.host.connected?.(this);
    if (again)
      this.host.report(`mcp server ${goQuote(name)}: connected again: ${this.#tools.length} tools`);
    const remote = connected;
    void remote.closed.then(() => this.#lost(remote, 'the connection closed'));
  }

  /** The remote's tools as served: checked, changed by the tools section, prefixed. */
  #list(remote: RemoteTools): void {
    const name = this.config.name;
    const raw = remote.tools().map((tool) => this.#watched(remote, tool));
    let tools: Tool[];
    try {
      const changed = transformTools(raw, this.#applicable(raw, this.config.tools));
      tools = changed.flatMap((tool) => {
        const local = `${name}__${tool.name}`;
        const problem = toolNameProblem(local);
        if (problem === undefined) return [transformTool(tool, { rename: local })];
        this.#warnOnce(`its tool ${goQuote(tool.name)} is left out: ${problem}`);
        return [];
      });
    } catch (error) {
      // Serving the tools unchanged could offer what the section leaves out: serve none.
      this.#warnOnce(
        `its tools section cannot be applied, so none of its tools are served: ${errorMessage(error)}`,
      );
      tools = [];
    }
    this.#setTools(tools);
  }

  /** The section without transforms of tools the server does not list now, each warned of once. */
  #applicable(raw: readonly Tool[], section: ToolSetTransform | undefined): ToolSetTransform {
    if (section?.transform === undefined) return section ?? {};
    const names = new Set(raw.map((tool) => tool.name));
    const transform = Object.fromEntries(
      Object.entries(section.transform).filter(([tool]) => {
        if (names.has(tool)) return true;
        this.#warnOnce(`its tools section changes ${goQuote(tool)}, which it does not list`);
        return false;
      }),
    );
    return { ...section, transform };
  }

  /**
   * A remote tool whose failures to reach the server make the server suspect, and say
   * which server it was, as its refusals do (the tool's own errors are its answers, and
   * stay as they are). Every failure loses the server's credentials: its clients may be
   * remote callers, and the server may quote what it was sent (an HTTP 500 page, a
   * JSON-RPC error, an error result). A successful answer passes as it is.
   */
  #watched(remote: RemoteTools, tool: Tool): Tool {
    return wrap(tool, async (call, ctx) => {
      try {
        return await tool.execute(call, ctx);
      } catch (thrown) {
        const error = scrubbedError(thrown, this.config.secrets);
        if (!(error instanceof AgentToolError)) throw error;
        // A refusal (429, 503: ServerBusyError) is the server busy, not gone: not suspect.
        if (error.code === 'CONNECTION' && !ctx.signal.aborted) this.#suspect(remote);
        const named = `mcp server ${goQuote(this.config.name)}: ${error.message}`;
        if (error instanceof ServerBusyError) {
          throw new ServerBusyError(named, error.status, error.retryAfter, { cause: error });
        }
        if (error.code !== 'CONNECTION' && error.code !== 'PROTOCOL') throw error;
        throw new AgentToolError(error.code, named, { cause: error });
      }
    });
  }

  /**
   * A call could not reach the server: a server over HTTP holds no connection that ends
   * when it dies, so it is asked for its tools; failing that, it is down.
   */
  #suspect(remote: RemoteTools): void {
    if (this.#probing || this.#remote !== remote) return;
    if (remote.isClosed) return; // #lost follows from `closed`
    this.#probing = true;
    void remote
      .refresh()
      .then(
        () => undefined,
        async (error: unknown) => {
          if (!(error instanceof AgentToolError) || error.code !== 'CONNECTION') return;
          this.#lost(remote, this.#text(error));
          await remote.close();
        },
      )
      .finally(() => (this.#probing = false));
  }

  #lost(remote: RemoteTools, why: string): void {
    if (this.#remote !== remote || this.#closing.signal.aborted) return;
    this.#remote = undefined;
    const count = this.#tools.length;
    this.#setTools([]);
    this.#state = 'down';
    this.#error = why;
    this.host.primitivesChanged?.(this);
    const delay = this.#delay(1);
    this.host.report(
      `mcp server ${goQuote(this.config.name)}: connection lost: ${why}; its ${count} tools are withdrawn; connecting again in ${seconds(delay)}`,
    );
    this.#schedule(delay);
  }

  #failed(why: string): void {
    if (this.#closing.signal.aborted) return;
    this.#failures++;
    this.#error = why;
    const { maxAttempts } = this.host.retry;
    const name = goQuote(this.config.name);
    if (this.#failures >= maxAttempts) {
      this.#state = 'given-up';
      this.host.report(
        maxAttempts === 1
          ? `mcp server ${name}: ${why}`
          : `mcp server ${name}: ${why}; given up after ${this.#failures} attempts in a row (restart to try again)`,
      );
      return;
    }
    this.#state = 'down';
    const delay = this.#delay(this.#failures + 1);
    this.host.report(
      `mcp server ${name}: ${why}; trying again in ${seconds(delay)} (attempt ${this.#failures + 1} of ${maxAttempts})`,
    );
    this.#schedule(delay);
  }

  /** The pause before attempt `n` (the second attempt waits the initial delay). */
  #delay(n: number): number {
    const { initialDelayMs, maxDelayMs } = this.host.retry;
    return Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, n - 2));
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#attempt(), delay);
    // A pending retry alone does not keep the process alive.
    this.#timer.unref();
  }

  #setTools(tools: readonly Tool[]): void {
    if (tools.length === 0 && this.#tools.length === 0) return;
    this.#tools = tools;
    this.host.changed();
  }

  #warnOnce(message: string): void {
    const text = `mcp server ${goQuote(this.config.name)}: ${message}`;
    if (this.#warned.has(text)) return;
    this.#warned.add(text);
    this.host.report(text);
  }

  /** An error's message with the server's credentials taken out. */
  #text(error: unknown): string {
    return scrubbed(errorMessage(error), this.config.secrets);
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
