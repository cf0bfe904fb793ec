import { type Server } from 'node:http';
import { type Socket } from 'node:net';
import {
  callerKey,
  type ConnectionLimits,
  normalAddress,
  overShareMessage,
  proxyPeers,
  RETRY_AFTER_SECONDS,
  Tally,
  type TrustProxy,
} from '../http';

/**
 * How long a connection refused past its address's share stays open at most, for its
 * client to read the answer; then it is destroyed, so a refused client holds nothing.
 */
const REFUSED_LINGER_MS = 1000;

/**
 * Bounds the connections `http` holds (`maxConnections`, `maxConnectionsPerAddress`):
 * all of them by Node's `server.maxConnections` (one past it is closed as soon as it is
 * accepted), and each client address's (an IPv6 address by its /64) from its accepting
 * to its close, by the socket's peer, before the HTTP server reads a byte of it. A peer
 * `trust` believes to be a proxy is not counted by address (its connections carry many
 * clients). A connection past its address's share is answered 429 raw, never handed to
 * the HTTP server. Returns what ends the refused connections still open, for the close.
 * Call it before the server accepts a connection.
 */
export function gateConnections(
  http: Server,
  limits: ConnectionLimits,
  trust: TrustProxy | undefined,
): () => void {
  const isProxy = proxyPeers(trust);
  http.maxConnections = limits.total;
  const held = new Tally();
  const refused = new Set<Socket>();
  // The HTTP server's own listener, which reads requests off a connection: it runs only
  // for the connections let in (Node hands a socket to an HTTP server this way).
  const serve = http.listeners('connection') as ((socket: Socket) => void)[];
  http.removeAllListeners('connection');
  const admit = (socket: Socket): void => {
    for (const listener of serve) listener.call(http, socket);
  };
  http.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (isProxy(peer)) return admit(socket);
    const address = callerKey(undefined, normalAddress(peer));
    if (held.count(address) >= limits.perAddress) {
      refused.add(socket);
      socket.once('close', () => refused.delete(socket));
      return refuse(socket, address, limits.perAddress);
    }
    held.take(address);
    socket.once('close', () => held.give(address));
    admit(socket);
  });
  return () => {
    for (const socket of refused) socket.destroy();
  };
}

/**
 * Answers a connection past its address's share, before its request is read: 429 with
 * `Retry-After` and `Connection: close`, which a client acts on without reading the body
 * (a JSON-RPC error naming the limit, as the other shares' refusals). What the client
 * sends meanwhile is read and thrown away, so the connection closes cleanly, not with a
 * reset that could lose the answer; it is destroyed after a second at most.
 */
function refuse(socket: Socket, caller: string, limit: number): void {
  const message = overShareMessage(
    caller,
    'connections',
    limit,
    'maxConnectionsPerAddress',
    'close one or try again later',
  );
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  socket.on('error', () => undefined);
  socket.resume();
  socket.end(
    'HTTP/1.1 429 Too Many Requests\r\n' +
      `Retry-After: ${RETRY_AFTER_SECONDS}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
