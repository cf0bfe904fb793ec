import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { AgentToolError } from '../../../core';
import { connectionLimitsOf, type HttpListener, type HttpServeOptions, keepAliveOf } from '../http';
import { gateConnections } from './connection-gate';
import { httpHandler, type ServedServer } from './http';
import { LOOPBACK_HOSTS } from './rebinding-guard';

// The listener of its own a server opens (node's http server: its address, its
// timeouts, the connections it takes, its close), in front of the endpoint (http.ts),
// which a framework's server may mount instead.

/**
 * Serves `server` over Streamable HTTP on node's `http` server, both protocol eras on
 * one endpoint. A 2025-era client opens a session with `initialize` (`Mcp-Session-Id`),
 * which ends on DELETE, on idle timeout, or when the listener closes; a 2026-07-28
 * client's requests each stand alone.
 */
export async function listenHttp(
  server: ServedServer,
  options: HttpServeOptions = {},
): Promise<HttpListener> {
  const host = options.host ?? '127.0.0.1';
  const protect = options.dnsRebindingProtection ?? true;
  if (protect && !LOOPBACK_HOSTS.has(host) && options.allowedHosts === undefined) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: http: binding ${host} with DNS-rebinding protection needs allowedHosts (the host names clients use); or set dnsRebindingProtection: false behind a proxy that checks them`,
    );
  }
  // An IPv6 address may come as a URL writes it ([::1]); the socket takes it bare.
  const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const keepAlive = keepAliveOf(options);
  const connections = connectionLimitsOf(options);
  const http = createServer({
    keepAliveTimeout: keepAlive.timeoutMs,
    headersTimeout: keepAlive.headersTimeoutMs,
    requestTimeout: keepAlive.requestTimeoutMs,
    // Node looks for requests past their time every this often (30 s by default, which
    // would let a slow request hold its connection half a minute past its timeout).
    connectionsCheckingInterval: Math.max(10, Math.min(1000, keepAlive.requestTimeoutMs / 4)),
  });
  // Each connection is a file descriptor the tools need too: bounded before any is taken.
  const endRefused = gateConnections(http, connections, options.trustProxy);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, address, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  let handler: ReturnType<typeof httpHandler>;
  try {
    handler = httpHandler(server, options, port, `timeout=${keepAlive.hintSeconds}`);
  } catch (error) {
    // Options refused (a limit, the authorization) leave no listening socket behind.
    await new Promise<void>((resolve) => http.close(() => resolve()));
    throw error;
  }
  http.on('request', (req: IncomingMessage, res: ServerResponse) => void handler.node(req, res));
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      unregister();
      await handler.close();
      endRefused();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    })());
  const unregister = server.addCloser({ drain: () => handler.drain(), close });
  const shown = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${shown}:${port}${options.path ?? '/mcp'}`, host: address, port, close };
}
