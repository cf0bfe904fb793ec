import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { AgentToolError, errorMessage } from '../../core';
import { SessionEventStore } from './event-store';
import { type McpToolServer } from './tool-server';

/** How a server is served over Streamable HTTP. */
export interface HttpServeOptions {
  /** The address to bind (default `127.0.0.1`: loopback only). */
  readonly host?: string;
  /** The port (default 0: any free port; read the listener's `port`). */
  readonly port?: number;
  /** The MCP endpoint's path (default `/mcp`); other paths answer 404. */
  readonly path?: string;
  /**
   * Stateless mode: no sessions; every POST is served by a fresh server and ends with
   * its response. For horizontally scaled deployments. No GET stream, no DELETE, no
   * server-to-client requests the client has not declared capabilities for in the
   * same request (elicitation answers `cancel`), no `logging/setLevel` memory.
   */
  readonly stateless?: boolean;
  /**
   * DNS-rebinding protection (default on): requests whose `Host` is not in
   * {@link allowedHosts}, or whose `Origin` (when sent) is not in
   * {@link allowedOrigins}, are refused with 403.
   */
  readonly dnsRebindingProtection?: boolean;
  /** Allowed `Host` values (default for loopback: localhost, 127.0.0.1, [::1], with the port). */
  readonly allowedHosts?: readonly string[];
  /** Allowed `Origin` values (default for loopback: http(s)://localhost, 127.0.0.1, [::1] with the port). */
  readonly allowedOrigins?: readonly string[];
  /** The largest request body accepted, in bytes (default 4 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number;
  /**
   * A stateful session with no request for this long ends (default 30 minutes; 0
   * never). A session with a call in flight is not idle.
   */
  readonly idleTimeoutMs?: number;
  /**
   * Makes a stateful session's SSE streams resumable (`Last-Event-ID`), keeping its
   * last 1000 events in memory until the session ends (default off). Clients of
   * protocol 2025-11-25 or later then get a priming event first.
   */
  readonly resumable?: boolean;
  /** The `retry` a resumable stream's priming event suggests to clients, in milliseconds. */
  readonly retryIntervalMs?: number;
}

/** A running HTTP listener. */
export interface HttpListener {
  /** The endpoint's URL, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening and ends every session it opened. */
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
const DEFAULT_IDLE_MS = 30 * 60 * 1000;
const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

interface HttpSession {
  readonly transport: StreamableHTTPServerTransport;
  inFlight: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Serves `server` over Streamable HTTP on node's `http` server. Stateful by default:
 * `initialize` opens a session (`Mcp-Session-Id`), which ends on DELETE, on idle
 * timeout, or when the listener closes.
 */
export async function listenHttp(
  server: McpToolServer,
  options: HttpServeOptions = {},
): Promise<HttpListener> {
  const host = options.host ?? '127.0.0.1';
  const protect = options.dnsRebindingProtection ?? true;
  if (protect && !LOOPBACK.has(host) && options.allowedHosts === undefined) {
    throw new AgentToolError(
      'INVALID_TOOL_SET',
      `mcp: http: binding ${host} with DNS-rebinding protection needs allowedHosts (the host names clients use); or set dnsRebindingProtection: false behind a proxy that checks them`,
    );
  }
  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const handler = new HttpHandler(server, options, port);
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handler.handle(req, res).catch((error: unknown) => {
      server.report('mcp: http: request failed', error);
      if (!res.headersSent) reply(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      unregister();
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    })());
  const unregister = server.addCloser(close);
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shown}:${port}${options.path ?? '/mcp'}`, host, port, close };
}

class HttpHandler {
  readonly #server: McpToolServer;
  readonly #options: HttpServeOptions;
  readonly #path: string;
  readonly #hosts: ReadonlySet<string> | undefined;
  readonly #origins: ReadonlySet<string> | undefined;
  readonly #sessions = new Map<string, HttpSession>();
  readonly #stateless = new Set<StreamableHTTPServerTransport>();

  constructor(server: McpToolServer, options: HttpServeOptions, port: number) {
    this.#server = server;
    this.#options = options;
    this.#path = options.path ?? '/mcp';
    if (options.dnsRebindingProtection ?? true) {
      const names = ['localhost', '127.0.0.1', '[::1]'];
      this.#hosts = lower(options.allowedHosts ?? names.flatMap((n) => [n, `${n}:${port}`]));
      this.#origins = lower(
        options.allowedOrigins ??
          names.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`]),
      );
    }
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== this.#path) return reply(res, 404, -32000, 'Not found');
    const refused = this.#refusal(req);
    if (refused !== undefined) return reply(res, 403, -32000, refused);

    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req, this.#options.maxBodyBytes ?? DEFAULT_BODY_LIMIT);
      if (read.tooLarge) return reply(res, 413, -32000, 'Request body too large');
      try {
        body = JSON.parse(read.text);
      } catch (error) {
        return reply(res, 400, -32700, `Parse error: ${errorMessage(error)}`);
      }
    }
    if (this.#options.stateless === true) return this.#stateless1(req, res, body);

    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string' && id !== '') {
      const session = this.#sessions.get(id);
      if (session === undefined) return reply(res, 404, -32001, 'Session not found');
      return this.#serve(session, req, res, body);
    }
    if (req.method === 'POST' && isInitialize(body)) return this.#open(req, res, body);
    return reply(res, 400, -32000, 'Bad Request: No valid session ID provided');
  }

  async close(): Promise<void> {
    const transports = [
      ...this.#stateless,
      ...[...this.#sessions.values()].map((s) => s.transport),
    ];
    await Promise.allSettled(transports.map((t) => t.close()));
  }

  #refusal(req: IncomingMessage): string | undefined {
    if (this.#hosts === undefined) return undefined;
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !this.#hosts.has(host)) return `Invalid Host header: ${host ?? ''}`;
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#origins?.has(origin.toLowerCase())) {
      return `Invalid Origin header: ${origin}`;
    }
    return undefined;
  }

  async #open(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sessionId = randomUUID();
    const transport = this.#transport(() => sessionId);
    const session: HttpSession = { transport, inFlight: 0, timer: undefined };
    const connection = this.#server.openConnection(sessionId);
    this.#sessions.set(sessionId, session);
    const closed = connection.server.onclose;
    connection.server.onclose = () => {
      this.#sessions.delete(sessionId);
      clearTimeout(session.timer);
      closed?.();
    };
    await connection.server.connect(transport);
    await this.#serve(session, req, res, body);
  }

  async #serve(
    session: HttpSession,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    session.inFlight++;
    clearTimeout(session.timer);
    // A response streamed over SSE ends after handleRequest returns; the request is in
    // flight until the response is done.
    res.once('close', () => {
      session.inFlight--;
      this.#arm(session);
    });
    await session.transport.handleRequest(req, res, body);
  }

  #arm(session: HttpSession): void {
    const idle = this.#options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
    if (idle <= 0 || session.inFlight > 0) return;
    clearTimeout(session.timer);
    // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
    session.timer = setTimeout(() => void session.transport.close(), Math.min(idle, 2 ** 31 - 1));
    session.timer.unref();
  }

  async #stateless1(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return reply(res, 405, -32000, 'Method not allowed: the server is stateless');
    }
    const transport = this.#transport(undefined);
    const connection = this.#server.openConnection('');
    this.#stateless.add(transport);
    res.once('close', () => {
      this.#stateless.delete(transport);
      void transport.close();
    });
    await connection.server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  #transport(sessionIdGenerator: (() => string) | undefined): StreamableHTTPServerTransport {
    return new StreamableHTTPServerTransport({
      sessionIdGenerator,
      ...(this.#options.resumable === true && sessionIdGenerator !== undefined
        ? { eventStore: new SessionEventStore() }
        : {}),
      ...(this.#options.retryIntervalMs === undefined
        ? {}
        : { retryInterval: this.#options.retryIntervalMs }),
    });
  }
}

function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((message) => isInitializeRequest(message));
  return isInitializeRequest(body);
}

function lower(values: readonly string[]): ReadonlySet<string> {
  return new Set(values.map((v) => v.toLowerCase()));
}

// Reads the whole body, keeping at most `limit` bytes: past it the rest is drained and
// dropped, so the client still gets the 413 rather than a reset connection.
function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.once('end', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > limit }),
    );
    req.once('error', reject);
  });
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
