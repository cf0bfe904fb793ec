import {
  type AuthProvider,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { AgentToolError, goQuote } from '../../core';
import { DEFAULT_STDIO_MESSAGE_BYTES } from '../line-bound';
import { boundingAnswers } from './bounded-answers';
import { routingLogLines } from './log-routing';
import { notingChallengedScopes, reauthorizingRequests, type Reauthorizing } from './reauthorize';
import { retryingSafely } from './safe-retry';
import { clientSdk } from './sdk-modules';
import { groupedStdioTransport } from './stdio-process';
import { boundStdioReads } from './stdio-reads';

/**
 * A server started as a child process, spoken to over its stdin and stdout. It runs in a
 * process group of its own (not on Windows), and closing the connection stops the whole
 * group: stdin closed, then SIGTERM, then SIGKILL (see `groupedStdioTransport`).
 */
export interface StdioTarget {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a small safe default environment (PATH, HOME, ...), not to the whole of ours. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Where the server's stderr goes; `inherit` by default. */
  readonly stderr?: 'inherit' | 'ignore' | 'pipe';
  /**
   * The largest message read from the server, in bytes (default
   * `DEFAULT_STDIO_MESSAGE_BYTES`, 10 MiB, as the SDK's client reads). A longer answer
   * fails its call with an error that gives its size, and the connection goes on (the
   * SDK's client alone closes it, failing every call after).
   */
  readonly maxMessageBytes?: number;
}

/** A server at a Streamable HTTP endpoint. */
export interface HttpTarget {
  readonly url: string | URL;
  /** Sent with every request (e.g. an API key). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * OAuth through the SDK's client auth (e.g. a {@link StoredAuthProvider}), or any
   * bearer-token provider (`{ token() }`). With an OAuth provider that keeps the code an
   * authorization brought back (a {@link StoredAuthProvider} with `authorize`), the
   * authorizations a server asks for after the connection is up (a 401, a 403
   * `insufficient_scope` asking for more scope, a move to another authorization server)
   * are completed and the request sent again, a bounded number of times.
   */
  readonly authProvider?: OAuthClientProvider | AuthProvider;
  /** The fetch to use; the global fetch by default. */
  readonly fetch?: FetchLike;
  /**
   * The largest message read from the server, in bytes (default
   * `DEFAULT_STDIO_MESSAGE_BYTES`, 10 MiB, as over stdio): a JSON answer, or an event of
   * a stream, past it fails the requests it would answer with an error that gives the
   * limit, and is never held whole. An HTTP error's body is read up to 4 KiB.
   */
  readonly maxMessageBytes?: number;
}

/** Where to connect: a command, a URL, or an MCP transport made by the caller. */
export type McpTarget = StdioTarget | HttpTarget | Transport;

function isTransport(target: object): target is Transport {
  const t = target as Partial<Transport>;
  return (
    typeof t.start === 'function' && typeof t.send === 'function' && typeof t.close === 'function'
  );
}

/**
 * True when the transport made for `target` tells which call a log line belongs to (a
 * URL: see {@link routingLogLines}); a command or the caller's own transport does not.
 */
export function routesLogLinesByCall(target: McpTarget): boolean {
  return typeof target === 'object' && target !== null && !isTransport(target) && 'url' in target;
}

/**
 * True when the transport made for `target` writes each message as JSON text (a command
 * or a URL); the caller's own transport may hand objects over as they are.
 */
export function writesJsonText(target: McpTarget): boolean {
  return typeof target === 'object' && target !== null && !isTransport(target);
}

/** The reauthorization of each transport made here with an OAuth provider. */
const reauthorizations = new WeakMap<Transport, Reauthorizing>();

/**
 * Tells a transport made by {@link transportFor} that its connection is up: from now on
 * it completes the authorizations the server asks for on a 401 (see reauthorize.ts).
 */
export function armReauthorization(transport: Transport): void {
  reauthorizations.get(transport)?.arm();
}

/** The SDK's test for an OAuth provider (tokens and a client registration), not a bare `{ token() }`. */
function isOAuthProvider(
  provider: OAuthClientProvider | AuthProvider | undefined,
): provider is OAuthClientProvider {
  const p = provider as Partial<OAuthClientProvider> | undefined;
  return typeof p?.tokens === 'function' && typeof p.clientInformation === 'function';
}

/** `maxMessageBytes` as given, or the default; refused when it is no positive whole number. */
function messageLimit(given: number | undefined): number {
  const limit = given ?? DEFAULT_STDIO_MESSAGE_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new AgentToolError(
      'CONNECTION',
      `mcp: connect: maxMessageBytes must be a positive whole number of bytes, got ${String(limit)}`,
    );
  }
  return limit;
}

/** A fresh transport for the target (the caller's own transport as is). */
export function transportFor(target: McpTarget): Transport {
  if (typeof target === 'object' && target !== null) {
    if (isTransport(target)) return target;
    if ('command' in target && typeof target.command === 'string' && target.command !== '') {
      const limit = messageLimit(target.maxMessageBytes);
      // The server in a process group of its own, stopped as a whole (stdio-process.ts).
      const transport = new (groupedStdioTransport())({
        command: target.command,
        args: [...(target.args ?? [])],
        ...(target.env !== undefined ? { env: { ...target.env } } : {}),
        ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
        stderr: target.stderr ?? 'inherit',
        // Room for a line within the limit and the rest of the chunk that ends it: the
        // bound below keeps the SDK's own reader from ever closing the connection.
        maxBufferSize: limit + 128 * 1024,
      });
      boundStdioReads(transport, limit);
      return transport;
    }
    if ('url' in target && (typeof target.url === 'string' || target.url instanceof URL)) {
      let url: URL;
      try {
        url = new URL(target.url);
      } catch {
        throw new AgentToolError(
          'CONNECTION',
          `mcp: connect: ${goQuote(String(target.url))} is not a URL; give the server's Streamable HTTP endpoint, e.g. "http://127.0.0.1:3000/mcp"`,
        );
      }
      // Our fetch tells the server's log lines apart by the call whose stream carried
      // them, and sends again what a broken keep-alive connection lost unread.
      // And reads no message past the limit.
      const ours = routingLogLines(
        boundingAnswers(
          retryingSafely(
            target.fetch ?? ((url: string | URL, init?: RequestInit) => fetch(url, init)),
          ),
          messageLimit(target.maxMessageBytes),
        ),
      );
      const provider = target.authProvider;
      const oauth = isOAuthProvider(provider) ? provider : undefined;
      const transport = new (clientSdk().StreamableHTTPClientTransport)(url, {
        ...(target.headers !== undefined
          ? { requestInit: { headers: { ...target.headers } } }
          : {}),
        ...(provider !== undefined ? { authProvider: provider } : {}),
        // A 403 asking for more scope is authorized in reauthorize.ts, which checks its
        // bound before the user is asked (the transport's own step-up asks first).
        ...(oauth !== undefined ? { onInsufficientScope: 'throw' as const } : {}),
        fetch: oauth !== undefined ? notingChallengedScopes(ours, url, oauth) : ours,
      });
      if (oauth !== undefined) {
        reauthorizations.set(
          transport,
          reauthorizingRequests(transport, { url, provider: oauth, fetch: target.fetch }),
        );
      }
      return transport;
    }
  }
  throw new AgentToolError(
    'CONNECTION',
    'mcp: connect: transport must be { command, args?, env? } for stdio, { url, headers? } for Streamable HTTP, or an MCP Transport',
  );
}
