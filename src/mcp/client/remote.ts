import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
  McpError,
  ProgressNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  AgentToolError,
  type Call,
  CancelledError,
  describeValue,
  errorMessage,
  isJsonObject,
  type JsonObject,
  parseArguments,
  ProgressInfo,
  type Result,
  type Tool,
  type ToolContext,
  ValidationError,
} from '../../core';
import { CONNECTION_CLOSED, connectionClosedError } from './errors';
import { type CallInFlight, elicitationHandler } from './elicitation';
import { ListRefresher } from './refresh';
import { linkedSignal, untilAborted } from './signals';
import { resultOf } from './result';
import { clientAuth, clientHttp } from './sdk-modules';
import { checkDeclarations, type Declarations, localName, remoteTool } from './tool-mapping';
import { type HttpTarget, type McpTarget, transportFor } from './transport';

/** How long a call waits for a late `tools/list_changed` by default, in milliseconds. */
export const DEFAULT_NOTIFICATION_GRACE = 50;

/** How long a call's progress token stays routable after the call returns. */
const PROGRESS_LINGER_MS = 1000;

/** What {@link connectMcp} takes. Only `transport` is required. */
export interface ConnectOptions extends Declarations {
  /** A command (stdio), a URL (Streamable HTTP), or an MCP transport. */
  readonly transport: McpTarget;
  /** Local names become `<prefix>__<remote name>`. */
  readonly prefix?: string;
  /**
   * After a call whose tool is not read-only and during which no list change was seen,
   * wait this long (ms) for one, so a tool that changes the list is seen to; 0 disables.
   * Skipped for servers that do not announce list changes. Default 50.
   */
  readonly notificationGrace?: number;
  /**
   * Declare form and URL elicitation and put each server question to the elicitor of
   * the call in flight. Off by default: the server's questions then fail.
   */
  readonly elicitation?: boolean;
  /** The caller's own `elicitation/create` handler; it wins over {@link elicitation}. */
  readonly elicitationHandler?: (
    request: ElicitRequest,
    extra: { signal: AbortSignal },
  ) => ElicitResult | Promise<ElicitResult>;
  /** Receives the error of a failed background refresh (the old snapshot stays). */
  readonly onRefreshError?: (error: Error) => void;
  /** How this client introduces itself; `{ name: "agenttool", version: "0" }` by default. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Capabilities to declare besides those the options imply. */
  readonly capabilities?: ClientCapabilities;
  /** A limit on each tool call, in milliseconds; none by default. */
  readonly callTimeout?: number;
  /** Bounds the connection and the first listing only. */
  readonly signal?: AbortSignal;
}

/** The server as it introduced itself; empty strings when it did not. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** A pending interactive authorization, as {@link StoredAuthProvider} keeps one. */
interface AuthorizationCodeSource {
  takeAuthorizationCode(): string | undefined;
}

const NO_TIMEOUT = 2_147_483_647; // the longest timer Node accepts

/** Connects to an MCP server and lists its tools; see {@link RemoteTools}. */
export function connectMcp(options: ConnectOptions): Promise<RemoteTools> {
  return RemoteTools.connect(options);
}

/**
 * An MCP server's tools as core tools, kept in step with the server's tool list.
 * Connect with {@link connectMcp}; close with {@link RemoteTools.close}.
 */
export class RemoteTools {
  private client!: Client;
  private readonly prefix: string;
  private readonly grace: number;
  private readonly callTimeout: number;
  private snapshot: readonly Tool[] = [];
  private readonly refresher: ListRefresher;
  private readonly inFlight = new Set<CallInFlight>();
  private readonly progress = new Map<string, (update: Result) => void>();
  private progressCounter = 0;
  private closed = false;
  private readonly closing = new AbortController();
  private closeDone: Promise<void> | undefined;
  /** Bounds listings while connecting only. */
  private listSignal: AbortSignal | undefined;

  private constructor(private readonly options: ConnectOptions) {
    checkDeclarations(options);
    const prefix = options.prefix ?? '';
    if (typeof prefix !== 'string') {
      throw new AgentToolError('INVALID_TOOL', 'mcp: connect: prefix must be a string');
    }
    const grace = options.notificationGrace ?? DEFAULT_NOTIFICATION_GRACE;
    if (typeof grace !== 'number' || !(grace >= 0)) {
      throw new AgentToolError(
        'INVALID_TOOL',
        `mcp: connect: notificationGrace must be a number of milliseconds >= 0 (0 disables), got ${String(grace)}`,
      );
    }
    this.prefix = prefix;
    this.grace = Math.min(grace, NO_TIMEOUT);
    this.callTimeout = Math.min(options.callTimeout ?? NO_TIMEOUT, NO_TIMEOUT);
    this.refresher = new ListRefresher(
      () => this.listTools(),
      (error) => options.onRefreshError?.(error),
    );
  }

  /** See {@link connectMcp}. */
  static async connect(options: ConnectOptions): Promise<RemoteTools> {
    const remote = new RemoteTools(options);
    await remote.open();
    return remote;
  }

  /** The SDK client, for what this adapter does not cover (resources, prompts, ...). */
  get session(): Client {
    return this.client;
  }

  /** The server's name and version from `initialize`. */
  get serverInfo(): ServerInfo {
    const info = this.client.getServerVersion();
    return { name: info?.name ?? '', version: info?.version ?? '' };
  }

  /** The server's instructions from `initialize`; "" when it gave none. */
  get instructions(): string {
    return this.client.getInstructions() ?? '';
  }

  /** The tools as of the latest listing: a copy, in the server's order. */
  tools(): Tool[] {
    return [...this.snapshot];
  }

  /** The local name of a remote tool (`<prefix>__<name>` with a prefix). */
  localName(remote: string): string {
    return localName(this.prefix, remote);
  }

  /** Lists the tools now; throws `mcp: list tools: <reason>` and keeps the old snapshot. */
  refresh(): Promise<void> {
    return this.refresher.refresh();
  }

  /**
   * Resolves once the snapshot reflects every `tools/list_changed` seen before this
   * call; throws the last refresh's error until a refresh succeeds.
   */
  settled(): Promise<void> {
    return this.refresher.settled();
  }

  /**
   * Closes the connection. Calls in flight end at once with `mcp: call "<name>": mcp:
   * connection closed` (the server is told they were cancelled), and so do later calls.
   */
  close(): Promise<void> {
    if (this.closeDone === undefined) {
      this.markClosed();
      this.closeDone = this.client.close().catch(() => undefined);
    }
    return this.closeDone;
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    const error = new AgentToolError('CONNECTION', CONNECTION_CLOSED);
    this.closing.abort(error);
    this.refresher.close(error);
  }

  private async open(): Promise<void> {
    const target = this.options.transport;
    let transport = transportFor(target);
    try {
      await this.connectOnce(transport);
    } catch (error) {
      const code = authorizationCode(target, error);
      if (
        code === undefined ||
        !(transport instanceof clientHttp().StreamableHTTPClientTransport)
      ) {
        throw connectError(error);
      }
      // The user authorized in between: exchange the code, then connect afresh.
      try {
        await transport.finishAuth(code);
        transport = transportFor(target);
        await this.connectOnce(transport);
      } catch (retryError) {
        throw connectError(retryError);
      }
    }
    if (this.client.getServerCapabilities()?.tools === undefined) return;
    this.listSignal = this.options.signal;
    try {
      await this.refresher.refresh();
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      this.listSignal = undefined;
    }
  }

  private async connectOnce(transport: Transport): Promise<void> {
    const o = this.options;
    const capabilities: ClientCapabilities = { ...(o.capabilities ?? {}) };
    const wantsElicitation = o.elicitation === true || o.elicitationHandler !== undefined;
    if (wantsElicitation && capabilities.elicitation === undefined) {
      capabilities.elicitation = { form: {}, url: {} };
    }
    const client = new Client(
      { name: o.clientInfo?.name ?? 'agenttool', version: o.clientInfo?.version ?? '0' },
      { capabilities },
    );
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.refresher.notified();
    });
    client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
      const { progressToken, progress, total, message } = notification.params;
      if (typeof progressToken !== 'string') return;
      const onUpdate = this.progress.get(progressToken);
      if (onUpdate === undefined) return;
      const text = message ?? '';
      try {
        onUpdate({ output: text, details: new ProgressInfo(progress, total ?? 0, text) });
      } catch {
        // A failing progress listener must not break the connection.
      }
    });
    if (o.elicitationHandler !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, o.elicitationHandler);
    } else if (o.elicitation === true) {
      client.setRequestHandler(
        ElicitRequestSchema,
        elicitationHandler(() => [...this.inFlight]),
      );
    }
    // Only the connection that came up closes this remote; a failed attempt (one that
    // needed authorization first, say) closes just itself.
    let up = false;
    client.onclose = () => {
      if (up && this.client === client) this.markClosed();
    };
    this.client = client;
    await client.connect(transport, o.signal !== undefined ? { signal: o.signal } : {});
    up = true;
  }

  private async listTools(): Promise<void> {
    const raws: JsonObject[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ResultSchema,
        this.listSignal !== undefined ? { signal: this.listSignal } : {},
      );
      const tools = page['tools'];
      if (!Array.isArray(tools)) throw new Error('the result has no "tools" array');
      for (const t of tools as unknown[]) {
        if (!isJsonObject(t))
          throw new Error(`a listed tool is not an object: ${JSON.stringify(t)}`);
        raws.push(t);
      }
      const next = page['nextCursor'];
      cursor = typeof next === 'string' && next !== '' ? next : undefined;
      if (cursor !== undefined) {
        if (cursors.has(cursor))
          throw new Error(`the server repeated the cursor ${JSON.stringify(cursor)}`);
        cursors.add(cursor);
      }
    } while (cursor !== undefined);
    const call = (remote: string, readOnly: boolean, c: Call, ctx: ToolContext): Promise<Result> =>
      this.call(remote, readOnly, c, ctx);
    this.snapshot = raws.map((raw) => remoteTool(raw, this.prefix, this.options, call));
  }

  private async call(
    remote: string,
    readOnly: boolean,
    call: Call,
    ctx: ToolContext,
  ): Promise<Result> {
    if (this.closed) throw connectionClosedError(remote);
    if (ctx.signal.aborted) throw cancelled(remote, ctx.signal);
    const args = call.value === undefined ? parseArguments(call.args) : call.value;
    if (!isJsonObject(args))
      throw new ValidationError('', `expected object, got ${describeValue(args)}`);
    const seenBefore = this.refresher.seen;
    const ended = new AbortController();
    const entry: CallInFlight = { ctx, ended: ended.signal };
    const token = call.onUpdate !== undefined ? `agenttool-${++this.progressCounter}` : undefined;
    if (token !== undefined && call.onUpdate !== undefined) this.progress.set(token, call.onUpdate);
    this.inFlight.add(entry);
    const linked = linkedSignal(ctx.signal, this.closing.signal);
    let raw: unknown;
    try {
      raw = await this.client.request(
        {
          method: 'tools/call',
          params: {
            name: remote,
            arguments: args,
            ...(token !== undefined ? { _meta: { progressToken: token } } : {}),
          },
        },
        ResultSchema,
        { signal: linked.signal, timeout: this.callTimeout },
      );
    } catch (error) {
      if (this.closed) throw connectionClosedError(remote);
      if (ctx.signal.aborted) throw cancelled(remote, ctx.signal);
      throw new AgentToolError(
        error instanceof McpError ? 'PROTOCOL' : 'CONNECTION',
        `mcp: call ${JSON.stringify(remote)}: ${errorMessage(error)}`,
        { cause: error },
      );
    } finally {
      linked.dispose();
      ended.abort();
      this.inFlight.delete(entry);
      // The token stays routable a second after the call returns, as the contract says,
      // so progress that raced the result over another stream still arrives.
      if (token !== undefined) {
        setTimeout(() => this.progress.delete(token), PROGRESS_LINGER_MS).unref();
      }
    }
    await this.afterCall(seenBefore, readOnly, ctx.signal);
    return resultOf(raw);
  }

  /** Lets a call that changed the tool list return only once the snapshot shows it. */
  private async afterCall(
    seenBefore: number,
    readOnly: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    let changed = this.refresher.seen > seenBefore;
    const listChanged = this.client.getServerCapabilities()?.tools?.listChanged === true;
    if (!changed && this.grace > 0 && listChanged && !readOnly) {
      changed = await this.refresher.nextNotification(this.grace, signal);
    }
    if (!changed) return;
    // The result stands whatever the refresh does; an abort stops the wait.
    await untilAborted(
      this.refresher.settled().catch(() => undefined),
      signal,
    );
  }
}

function cancelled(remote: string, signal: AbortSignal): CancelledError {
  return new CancelledError(`mcp: call ${JSON.stringify(remote)}: cancelled`, {
    cause: signal.reason,
  });
}

function connectError(error: unknown): AgentToolError {
  if (error instanceof AgentToolError) return error;
  return new AgentToolError('CONNECTION', `mcp: connect: ${errorMessage(error)}`, { cause: error });
}

function authorizationCode(target: McpTarget, error: unknown): string | undefined {
  if (!(error instanceof clientAuth().UnauthorizedError)) return undefined;
  const provider = (target as Partial<HttpTarget>).authProvider as
    Partial<AuthorizationCodeSource> | undefined;
  if (typeof provider?.takeAuthorizationCode !== 'function') return undefined;
  return provider.takeAuthorizationCode();
}
