import {
  type AuthProvider,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { AgentToolError, goQuote } from '../../core';
import { routingLogLines } from './log-routing';
import { retryingSafely } from './safe-retry';
import { clientSdk, clientStdio } from './sdk-modules';

/** A server started as a child process, spoken to over its stdin and stdout. */
export interface StdioTarget {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a small safe default environment (PATH, HOME, ...), not to the whole of ours. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Where the server's stderr goes; `inherit` by default. */
  readonly stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** A server at a Streamable HTTP endpoint. */
export interface HttpTarget {
  readonly url: string | URL;
  /** Sent with every request (e.g. an API key). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * OAuth through the SDK's client auth (e.g. a {@link StoredAuthProvider}), or any
   * bearer-token provider (`{ token() }`).
   */
  readonly authProvider?: OAuthClientProvider | AuthProvider;
  /** The fetch to use; the global fetch by default. */
  readonly fetch?: FetchLike;
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

/** A fresh transport for the target (the caller's own transport as is). */
export function transportFor(target: McpTarget): Transport {
  if (typeof target === 'object' && target !== null) {
    if (isTransport(target)) return target;
    if ('command' in target && typeof target.command === 'string' && target.command !== '') {
      return new (clientStdio().StdioClientTransport)({
        command: target.command,
        args: [...(target.args ?? [])],
        ...(target.env !== undefined ? { env: { ...target.env } } : {}),
        ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
        stderr: target.stderr ?? 'inherit',
      });
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
      return new (clientSdk().StreamableHTTPClientTransport)(url, {
        ...(target.headers !== undefined
          ? { requestInit: { headers: { ...target.headers } } }
          : {}),
        ...(target.authProvider !== undefined ? { authProvider: target.authProvider } : {}),
        // Our fetch tells the server's log lines apart by the call whose stream carried
        // them, and sends again what a broken keep-alive connection lost unread.
        fetch: routingLogLines(
          retryingSafely(
            target.fetch ?? ((url: string | URL, init?: RequestInit) => fetch(url, init)),
          ),
        ),
      });
    }
  }
  throw new AgentToolError(
    'CONNECTION',
    'mcp: connect: transport must be { command, args?, env? } for stdio, { url, headers? } for Streamable HTTP, or an MCP Transport',
  );
}
