import { type Readable, type Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type * as ServerStdio from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolRequest,
  type CallToolResult,
  CallToolRequestSchema,
  type ServerNotification,
  type ServerRequest,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AgentToolError, type RecordFunc, type Session, type Tool } from '../../core';
import { compileArgumentsCheck } from './arguments';
import { serveCall, type ServedTool, sessionFailure } from './call';
import { mcpDefinition } from './definition';
import type * as Http from './http';
import { type HttpListener, type HttpServeOptions } from './http';
import { type ErrorReporter, isLogLevel, McpSession } from './session';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How a served set is described and what it hooks into. */
export interface McpServerOptions {
  /** The server's name in `initialize` (default `agenttool`). */
  readonly name?: string;
  /** The server's version in `initialize` (default `0`). */
  readonly version?: string;
  /** Instructions for the client, sent in `initialize`. */
  readonly instructions?: string;
  /**
   * Runs when a session opens, before any of its calls (calls wait for it). Per-session
   * state is set up here and torn down with `session.onClose`.
   */
  readonly onSession?: (session: Session) => void | Promise<void>;
  /** A recorder installed on every call's context (records are written before it returns). */
  readonly recorder?: RecordFunc;
  /**
   * Where failures that have nobody else to go to are reported (a panic-equivalent's
   * stack, a failing `onClose` listener). Default: stderr, never stdout.
   */
  readonly onError?: ErrorReporter;
}

/**
 * What can be served: a tool, tools (an array, a `ToolSet`), or an app-like object with
 * `tools` and, optionally, an `onSession` hook (run as {@link McpServerOptions.onSession}).
 */
export type ServeSource =
  | Tool
  | Iterable<Tool>
  | {
      readonly tools: Iterable<Tool>;
      onSession?(session: Session): void | Promise<void>;
    };

/** One live MCP connection: its SDK server and its session. */
interface Connection {
  readonly server: Server;
  readonly session: McpSession;
  readonly ready: Promise<void>;
}

const defaultReporter: ErrorReporter = (message, error) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`${message}\n${detail}`);
};

/**
 * Serves a set of tools over MCP, on any number of connections at once (in-memory,
 * stdio, Streamable HTTP); each connection is one session. The set may change while
 * it is served ({@link addTools}, {@link removeTools}); every connected client is then
 * sent `notifications/tools/list_changed`.
 *
 * The server does not close the tools: whoever built them does.
 */
export class McpToolServer {
  readonly #tools = new Map<string, ServedTool>();
  readonly #connections = new Set<Connection>();
  readonly #closers = new Set<() => Promise<void>>();
  readonly #options: McpServerOptions;
  readonly #report: ErrorReporter;
  readonly #onSession: ((session: Session) => void | Promise<void>) | undefined;

  constructor(source: ServeSource, options: McpServerOptions = {}) {
    this.#options = options;
    this.#report = options.onError ?? defaultReporter;
    const { tools, onSession } = readSource(source);
    this.#onSession = composeHooks(onSession, options.onSession);
    this.addTools(...tools);
  }

  /** The served tools, in the order they were added. */
  get tools(): readonly Tool[] {
    return [...this.#tools.values()].map((served) => served.tool);
  }

  /** The sessions currently open. */
  get sessions(): readonly Session[] {
    return [...this.#connections].map((connection) => connection.session);
  }

  /**
   * Adds tools to the served set. Each tool's schema is compiled first; if any tool
   * is invalid (empty or duplicate name, unusable schema) nothing is added and the
   * error says which and why. Connected clients are told the list changed.
   */
  addTools(...tools: Tool[]): void {
    const added = new Map<string, ServedTool>();
    tools.forEach((tool, i) => {
      if (typeof tool?.name !== 'string' || tool.name === '') {
        throw new AgentToolError('INVALID_TOOL_SET', `mcp: tool[${i}]: empty name`);
      }
      if (this.#tools.has(tool.name) || added.has(tool.name)) {
        throw new AgentToolError(
          'INVALID_TOOL_SET',
          `mcp: tool ${JSON.stringify(tool.name)}: duplicate name; remove the served tool first`,
        );
      }
      added.set(tool.name, {
        tool,
        check: compileArgumentsCheck(tool.name, tool.parameters),
        definition: mcpDefinition(tool),
      });
    });
    if (added.size === 0) return;
    for (const [name, served] of added) this.#tools.set(name, served);
    this.#listChanged();
  }

  /** Removes tools by name; returns how many were served. Clients are told the list changed. */
  removeTools(...names: string[]): number {
    let removed = 0;
    for (const name of names) if (this.#tools.delete(name)) removed++;
    if (removed > 0) this.#listChanged();
    return removed;
  }

  /**
   * Serves one connection over an SDK transport (e.g. one end of
   * `InMemoryTransport.createLinkedPair()`). Resolves with its session once the
   * transport has started; the session ends when the transport closes.
   */
  async connect(transport: Transport): Promise<Session> {
    const connection = this.openConnection(transport.sessionId ?? '');
    await connection.server.connect(transport);
    return connection.session;
  }

  /**
   * Serves one session over stdio (the process's own stdin and stdout unless given).
   * The session ends when stdin ends. Nothing else may write to stdout meanwhile.
   */
  async serveStdio(io: { stdin?: Readable; stdout?: Writable } = {}): Promise<Session> {
    const stdin = io.stdin ?? process.stdin;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
    const stdio = require('@modelcontextprotocol/sdk/server/stdio.js') as typeof ServerStdio;
    const transport = new stdio.StdioServerTransport(stdin, io.stdout ?? process.stdout);
    const session = await this.connect(transport);
    const end = (): void => void transport.close();
    stdin.once('end', end);
    stdin.once('close', end);
    return session;
  }

  /**
   * Serves over Streamable HTTP on node's `http` server, bound to 127.0.0.1 unless
   * told otherwise, with DNS-rebinding protection on (see {@link HttpServeOptions}).
   */
  listenHttp(options: HttpServeOptions = {}): Promise<HttpListener> {
    // The SDK's Streamable HTTP transport takes a fresh process ~120 ms to load: only
    // a server that listens loads it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
    const http = require('./http') as typeof Http;
    return http.listenHttp(this, options);
  }

  /**
   * Ends every session (running its `onClose` listeners) and stops every HTTP
   * listener. The tools are not closed.
   */
  async close(): Promise<void> {
    const open = [...this.#connections];
    const closing: Promise<void>[] = [];
    for (const closer of this.#closers) closing.push(closer());
    for (const { server } of open) closing.push(server.close());
    await Promise.allSettled(closing);
    // Whichever way each transport closed, every session's listeners have run when this returns.
    await Promise.all(open.map(({ session }) => session.close()));
  }

  /**
   * @internal A new session with its own SDK server, not yet connected. The
   * connection ends (and the session closes) when its transport closes.
   */
  openConnection(sessionId: string): Connection {
    const session = new McpSession(sessionId, this.#report);
    const ready = Promise.resolve().then(() => this.#onSession?.(session));
    // A failing hook fails the session's calls; keep it from being unhandled meanwhile.
    ready.catch(() => undefined);
    const server = this.#newServer(session, ready);
    session.bindClient(() => server.getClientVersion());
    const connection: Connection = { server, session, ready };
    this.#connections.add(connection);
    server.onclose = () => {
      this.#connections.delete(connection);
      void session.close();
    };
    return connection;
  }

  /** @internal Registers something {@link close} stops (an HTTP listener). */
  addCloser(closer: () => Promise<void>): () => void {
    this.#closers.add(closer);
    return () => this.#closers.delete(closer);
  }

  /** @internal The reporter for failures nobody else receives. */
  get report(): ErrorReporter {
    return this.#report;
  }

  #newServer(session: McpSession, ready: Promise<void>): Server {
    const server = new Server(
      { name: this.#options.name ?? 'agenttool', version: this.#options.version ?? '0' },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        ...(this.#options.instructions === undefined
          ? {}
          : { instructions: this.#options.instructions }),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...this.#tools.values()].map((served) => served.definition),
    }));
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      if (isLogLevel(request.params.level)) session.setLogLevel(request.params.level);
      return {};
    });
    // Once the session's setup has succeeded, a call no longer waits a turn for it.
    let setUp = false;
    void ready.then(
      () => (setUp = true),
      () => undefined,
    );
    const serve = (request: CallToolRequest, extra: Extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      return serveCall(name, this.#tools.get(name), args, extra, {
        session,
        capabilities: server.getClientCapabilities(),
        report: this.#report,
        recorder: this.#options.recorder,
      });
    };
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      setUp ? serve(request, extra) : ready.then(() => serve(request, extra), sessionFailure),
    );
    return server;
  }

  #listChanged(): void {
    for (const { server } of this.#connections) {
      if (server.transport === undefined) continue;
      server.sendToolListChanged().catch(() => undefined);
    }
  }
}

/**
 * A server for `source` (see {@link McpToolServer}). Serve it with `connect`,
 * `serveStdio` or `listenHttp`.
 */
export function serveTools(source: ServeSource, options: McpServerOptions = {}): McpToolServer {
  return new McpToolServer(source, options);
}

function readSource(source: ServeSource): {
  tools: Tool[];
  onSession: ((session: Session) => void | Promise<void>) | undefined;
} {
  if (source === null || typeof source !== 'object') {
    throw new AgentToolError(
      'INVALID_TOOL_SET',
      'mcp: serve: give a tool, an iterable of tools, or an object with `tools`',
    );
  }
  // A tool has a name; an app (which also has an `execute`, for batches) does not.
  if (
    'execute' in source &&
    typeof source.execute === 'function' &&
    typeof (source as { name?: unknown }).name === 'string'
  ) {
    return { tools: [source], onSession: undefined };
  }
  if ('tools' in source && source.tools !== undefined && !isToolSetLike(source)) {
    const app = source as { tools: Iterable<Tool>; onSession?(session: Session): unknown };
    const onSession =
      typeof app.onSession === 'function'
        ? (session: Session) => app.onSession?.(session) as void | Promise<void>
        : undefined;
    return { tools: [...app.tools], onSession };
  }
  if (Symbol.iterator in source)
    return { tools: [...(source as Iterable<Tool>)], onSession: undefined };
  throw new AgentToolError(
    'INVALID_TOOL_SET',
    'mcp: serve: give a tool, an iterable of tools, or an object with `tools`',
  );
}

// A ToolSet has `tools` too; it is served as the iterable it is.
function isToolSetLike(source: object): boolean {
  return Symbol.iterator in source && !('onSession' in source);
}

function composeHooks(
  first: ((session: Session) => void | Promise<void>) | undefined,
  second: ((session: Session) => void | Promise<void>) | undefined,
): ((session: Session) => void | Promise<void>) | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return async (session) => {
    await first(session);
    await second(session);
  };
}
