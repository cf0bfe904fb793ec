import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type AuthInfo } from '@modelcontextprotocol/server';
import { type HttpAuthOptions } from '../auth';
import { type TrustProxy } from './client-address';

/** The health route a load balancer polls, by default. */
export const DEFAULT_HEALTH_PATH = '/healthz';

/** How many sessions an HTTP endpoint holds at once, by default. */
export const DEFAULT_MAX_SESSIONS = 1000;

/** How many listening streams an HTTP endpoint holds open at once, by default. */
export const DEFAULT_MAX_STREAMS = 1000;

/**
 * How many tool calls an HTTP endpoint has in flight at once, all callers together, by
 * default (1000).
 */
export const DEFAULT_MAX_CALLS = 1000;

/**
 * How many tool calls one caller of an HTTP endpoint has in flight at once, by default
 * (100): a tenth of {@link DEFAULT_MAX_CALLS}, as the other per-caller shares are a tenth
 * of their limits. With `maxCalls` given, the default is a tenth of it.
 */
export const DEFAULT_MAX_CALLS_PER_SUBJECT = 100;

/**
 * How many connections `listenHttp` holds at once, by default (4096). Every connection is
 * a file descriptor of the process, which the served tools need too (a shell spawns
 * through pipes, a file tool opens files): the limit keeps a flood of idle or slow
 * connections from taking them all. 4096 leaves room for every bound that holds a
 * connection at its default at once (1000 listening streams, 1000 calls in flight, and
 * the requests and idle keep-alive connections of the sessions' clients besides), and
 * stays well under the descriptors a Node process has (Node raises its soft limit to the
 * hard one at start, commonly 524288 or more under systemd or Docker); where the hard
 * limit is lower, set `maxConnections` under it, with room for the tools' own.
 */
export const DEFAULT_MAX_CONNECTIONS = 4096;

/**
 * How long `listenHttp` keeps an idle keep-alive connection open, by default (65 s):
 * longer than the 60 s idle timeout of common load balancers and proxies (AWS ALB,
 * nginx's upstream keep-alive), so they, not the server, retire a pooled connection.
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** How long a request's headers may take to arrive, by default (60 s, Node's default). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/**
 * How long a whole request (its headers and body) may take to arrive, by default (60 s;
 * Node's own default is 300 s): a client that sends its body a byte at a time holds a
 * connection and its buffer this long at most.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** How a server is served over Streamable HTTP (both protocol eras on one endpoint). */
export interface HttpServeOptions {
  /**
   * The address to bind (default `127.0.0.1`: loopback only; an IPv6 address bare or in
   * brackets, `::1` or `[::1]`). `listenHttp` only.
   */
  readonly host?: string;
  /** The port (default 0: any free port; read the listener's `port`). `listenHttp` only. */
  readonly port?: number;
  /** The MCP endpoint's path (default `/mcp`); other paths answer 404. */
  readonly path?: string;
  /**
   * Stateless mode: the server keeps no session between requests. A 2025-era client's
   * every POST is served by a fresh server and ends with its response (no GET stream,
   * no DELETE, no server-to-client requests: elicitation answers `cancel`); a
   * 2026-07-28 client gets no session handle. For horizontally scaled deployments.
   */
  readonly stateless?: boolean;
  /**
   * DNS-rebinding protection (default on): requests whose `Host` is not in
   * {@link HttpServeOptions.allowedHosts}, or whose `Origin` (when sent) is not in
   * {@link HttpServeOptions.allowedOrigins}, are refused with 403.
   */
  readonly dnsRebindingProtection?: boolean;
  /**
   * Allowed `Host` values: a name (any port) or `name:port`. Default: localhost,
   * 127.0.0.1 and [::1] with the listener's port only (`listenHttp`: a client writes
   * the authority it connected to; the bare names too on port 80), or with any port (a
   * mounted {@link HttpHandler}, whose port the server does not know).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Allowed `Origin` values, compared whole. By default any http(s) origin on a loopback
   * host (`localhost`, `127.0.0.1`, `[::1]`), on any port, as the SDK's
   * `localhostAllowedOrigins()`: a local web client runs on a port of its own.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * The largest request body accepted, in bytes (default 4 MiB); larger ones get 413, as
   * soon as the `Content-Length` or the bytes received pass it. On Node's `http` the rest
   * of such a body is read and thrown away, up to twice the limit (at least 1 MiB each)
   * and 10 s (half `requestTimeoutMs` when that is shorter), so the client reads the 413
   * rather than a reset or a 408; then the connection closes.
   */
  readonly maxBodyBytes?: number;
  /**
   * The most bytes of request bodies held while they are read, all requests together
   * (default 64 MiB, or four times `maxBodyBytes` when that is more; at least
   * `maxBodyBytes`). Past it a request gets 503 with `Retry-After` and its connection
   * closes, so that a client sending many large bodies at once cannot make the server
   * hold more.
   */
  readonly maxBodyBytesInFlight?: number;
  /**
   * The most bytes of request bodies one caller (an authenticated subject, or a client
   * address without authorization; see `trustProxy`) has being read at once. Default: a
   * fair share, a tenth of {@link HttpServeOptions.maxBodyBytesInFlight}, and never less
   * than `maxBodyBytes` (6.4 MiB by default); at least `maxBodyBytes`. Past it that
   * caller's request gets 429 with `Retry-After` and its connection closes; other callers
   * are not affected, so one holding many bodies half-sent cannot shut them out.
   */
  readonly maxBodyBytesInFlightPerSubject?: number;
  /**
   * A session with no request for this long ends (default 30 minutes; 0 never). A
   * session with a call in flight is not idle. Applies to 2025-era sessions and to the
   * sessions 2026-07-28 clients hold by handle.
   */
  readonly idleTimeoutMs?: number;
  /**
   * The most sessions held at once (default 1000): 2025-era sessions and the
   * 2026-07-28 sessions clients hold by handle together. Past it a 2025-era
   * `initialize` gets 503, and a 2026-07-28 call runs in a session of its own that ends
   * with it (no handle is given).
   */
  readonly maxSessions?: number;
  /**
   * The most sessions one caller holds: an authenticated subject, or, without
   * authorization, one client address (see {@link HttpServeOptions.trustProxy}). Default:
   * a fair share, a tenth of {@link HttpServeOptions.maxSessions} (at least 1). Past it
   * that caller's `initialize`, or 2026-07-28 call that would open a session by handle,
   * gets 429 with `Retry-After` and a message naming the limit; other callers are not
   * affected.
   */
  readonly maxSessionsPerSubject?: number;
  /**
   * The most listening streams open at once (default 1000): 2025-era sessions' GET
   * streams and 2026-07-28 `subscriptions/listen` streams. Past it a new one gets 503.
   */
  readonly maxStreams?: number;
  /**
   * The most listening streams one caller holds open (as
   * {@link HttpServeOptions.maxSessionsPerSubject} counts callers). Default: a tenth of
   * {@link HttpServeOptions.maxStreams} (at least 1). Past it a new one gets 429.
   */
  readonly maxStreamsPerSubject?: number;
  /**
   * The most calls in flight at once (tools' calls, and `prompts/get` and
   * `resources/read`, which run the server's code as a call does), all callers together
   * (default {@link DEFAULT_MAX_CALLS}, 1000; a whole number, at least 1), each counted as
   * {@link HttpServeOptions.maxCallsPerSubject} counts it: from its start until its tool
   * (or `get`, or `read`) has ended, with or without the connection of its request, in
   * both eras. Past it a new call of any caller gets 503 with `Retry-After` and a
   * message naming the limit (`Service unavailable: the server holds its limit of 1000
   * calls in flight (maxCalls); try again later`); one in a batch, or one that arrived
   * together with others past the limit, the same message as a JSON-RPC error (-32000).
   */
  readonly maxCalls?: number;
  /**
   * The most calls (as {@link HttpServeOptions.maxCalls} counts them) one caller has in
   * flight at once (callers counted as {@link HttpServeOptions.maxSessionsPerSubject}
   * counts them). Default: a tenth of {@link HttpServeOptions.maxCalls} (at least 1), so
   * {@link DEFAULT_MAX_CALLS_PER_SUBJECT}, 100, by default; a whole number, at least 1.
   * A call counts
   * from the moment its `tools/call` is taken until its tool has ended (a result, an
   * error, a cancellation, its session or the server closing), whether or not the
   * connection of its request is still open: in both eras, a 2025-era call that goes on
   * after its client dropped the connection (`resumable`), a 2026-07-28 call waiting for
   * its client's answers (which `maxParkedCallsPerSubject` bounds too), a call in a
   * JSON-RPC batch and a stateless one alike. The answers to a waiting call are no new
   * call and are always taken. A call that runs as a task counts until the task is made:
   * tasks are bounded by `tasks.maxTasksPerSubject` (counted until their TTL). Past it a
   * new `tools/call` of that caller gets 429 with `Retry-After` and a message naming the
   * limit (`Too Many Requests: the subject "ada" holds its share of 100 calls in flight
   * (maxCallsPerSubject); ...`); one in a batch, or one that arrived together with others
   * past the limit, the same message as a JSON-RPC error (-32000). Other callers are not
   * affected.
   */
  readonly maxCallsPerSubject?: number;
  /**
   * The most connections the listener holds at once, all clients together (default
   * {@link DEFAULT_MAX_CONNECTIONS}, 4096; a whole number, at least 1): Node's
   * `server.maxConnections`. Each connection is a file descriptor, which the tools need too
   * (a shell's pipes, the files a tool opens), so many idle or slow connections must not
   * take them all. Past it Node closes a new connection as soon as it is accepted, before
   * anything is read or written: the client sees its connection closed with no answer
   * ("socket hang up", or `ECONNRESET` when it had sent its request), as from a server that
   * is gone, and may connect again (`connectMcp` sends a request again once, where that is
   * safe; a balancer takes it for a failed connection). An answer would hold the descriptor
   * a while longer for each refused connection, so under a flood the count would no longer
   * bound them. Connections refused by {@link HttpServeOptions.maxConnectionsPerAddress}
   * count here until they close. `listenHttp` only: a mounted {@link HttpHandler} is not
   * affected (the host server owns its sockets; bound them there, e.g. its own
   * `maxConnections`).
   */
  readonly maxConnections?: number;
  /**
   * The most connections one client address holds at once (an IPv6 address by its /64, as
   * the shares count addresses). Default: a tenth of {@link HttpServeOptions.maxConnections}
   * (at least 1), so 410 by default: a client uses a handful (an MCP client one or two at a
   * time, a browser six to a host), and a tenth leaves room for many clients behind one NAT
   * address while ten addresses at most can fill the listener. Each listening stream and
   * each call answered as a stream holds a connection: a share of streams or calls set
   * above it is bounded by it, so raise it with them. A whole number, at least 1.
   * Counted on the socket, from its accepting to its close, by the connection's peer
   * address: no header has been read then, so `X-Forwarded-For` plays no part. A connection
   * past it is answered at once, before its request is read, `429 Too Many Requests` with
   * `Retry-After: 5` and `Connection: close` (and a JSON-RPC error naming the limit in its
   * body), and closed (after at most a second for the client to read it): the status and
   * `Retry-After` tell a client to wait without reading the body, where a reset would look
   * like a failure to retry at once. With {@link HttpServeOptions.trustProxy} set,
   * connections from peers it trusts (every peer for `true` or a number of hops above 0; the
   * listed ones for a list) are not counted against it: a proxy's connections carry many
   * clients, who are counted by the shares of sessions, streams and calls, and bounded
   * together by `maxConnections` (and by the proxy's own connection limits). `listenHttp`
   * only: a mounted {@link HttpHandler} is not affected (the host server owns its sockets).
   */
  readonly maxConnectionsPerAddress?: number;
  /**
   * Which proxies in front are trusted to name the client (`X-Forwarded-For`), for the
   * per-caller shares of a server without authorization, which count by client address
   * (an IPv6 address by its /64): `false` (default) trusts none, `true` all, a number
   * that many hops, a list those addresses and CIDR ranges (see {@link TrustProxy}).
   * Behind a proxy, set it: otherwise every client counts as the proxy's one address.
   * The peers it trusts are also left out of {@link HttpServeOptions.maxConnectionsPerAddress}
   * (connections are counted before any header is read).
   */
  readonly trustProxy?: TrustProxy;
  /**
   * How long an idle keep-alive connection is kept open, in ms (default 65 s, above the
   * 60 s idle timeout of common load balancers and proxies, so they retire pooled
   * connections first). Answers advertise `Keep-Alive: timeout=<n>` with n at most 5 s
   * and half this: clients that honour it (Node's fetch and `http.Agent`) let a
   * connection go long before the server closes it, so no request is written onto a
   * connection being closed. `listenHttp` only (a mounted handler's server is its own).
   */
  readonly keepAliveTimeoutMs?: number;
  /** How long a request's headers may take to arrive, in ms (default 60 s). `listenHttp` only. */
  readonly headersTimeoutMs?: number;
  /**
   * How long a whole request, headers and body, may take to arrive, in ms (default 60 s;
   * at least `headersTimeoutMs`, which is lowered to it otherwise). A request still
   * arriving then gets 408 and its connection closes. `listenHttp` only.
   */
  readonly requestTimeoutMs?: number;
  /**
   * How long an answer being written may wait for its client to read some of it, in ms
   * (default 60 s): a client that leaves it unread that long (its connection's buffers
   * full) has its connection closed, and what the answer held in memory is let go. A
   * client that reads, however slowly, is not affected. For `listenHttp` and the
   * handler's `node()` alike.
   */
  readonly writeStallTimeoutMs?: number;
  /**
   * The most bytes of answers written to connections whose clients have not read them,
   * all clients together (default 256 MiB). An answer whose client reads nothing waits
   * in memory (up to `writeStallTimeoutMs`); one that would pass this has its
   * connection closed instead, the answer dropped. Listening streams (a
   * `subscriptions/listen`, a session's GET) count the same. For `listenHttp` and the
   * handler's `node()`; a web handler's answers are its host's to write.
   */
  readonly maxUnreadAnswerBytes?: number;
  /**
   * The same for one caller (the authenticated subject; without authorization the
   * client address): by default a tenth of `maxUnreadAnswerBytes`. A caller's first
   * unread answer is kept whatever its size; past the share its next is cut, so that a
   * client that opens many connections and reads none takes no more than its share,
   * while other callers are served.
   */
  readonly maxUnreadAnswerBytesPerSubject?: number;
  /**
   * Makes a 2025-era session's SSE streams resumable (`Last-Event-ID`), keeping its
   * last 1000 events, of 1 MiB of messages at most (as JSON; the newest is always
   * kept), in memory until the session ends (default off). Clients of
   * protocol 2025-11-25 or later then get a priming event first.
   */
  readonly resumable?: boolean;
  /** The `retry` a resumable stream's priming event suggests to clients, in milliseconds. */
  readonly retryIntervalMs?: number;
  /**
   * The health route a load balancer polls (default `/healthz`; `false`: none). A GET
   * answers 200 `{"status":"serving"}` while the server takes work and 503
   * `{"status":"draining"}` from the moment it drains or closes. It is answered before
   * the Host and Origin checks, and tells nothing but that.
   */
  readonly healthPath?: string | false;
  /**
   * Where the other instances reach this MCP endpoint when the server scales out
   * (`scaleOut`), e.g. `http://10.0.0.5:3000/mcp`. Default: the listener's own URL
   * (`listenHttp`); a mounted handler is reached by its peers only when it is given.
   */
  readonly advertiseUrl?: string;
  /**
   * Authorization: every request must carry a bearer token `auth.verifyToken` accepts,
   * and the protected resource metadata is served (see {@link HttpAuthOptions}). A
   * session, in either era, belongs to the subject that opened it. Default: none.
   */
  readonly auth?: HttpAuthOptions;
}

/** A request's extras, as an HTTP framework in front of the handler knows them. */
export interface HttpRequestExtras {
  /**
   * The caller, as the framework's authentication verified it, in the SDK's shape: its
   * subject is `extra.sub` (or `extra.subject`) when a non-empty string, else the client
   * id; its scopes are `scopes`; `extra` is its claims, and nothing else in it names the
   * caller. A caller that names no subject (neither, and an empty client id) is refused
   * with 500, the reason reported to `onError`: every such caller would be one subject,
   * "", and use the others' sessions and handles. Used when the handler has no `auth`
   * option of its own (which verifies every request).
   */
  readonly authInfo?: AuthInfo;
  /**
   * The client's address (the connection's peer), for the per-caller shares of a server
   * without authorization; with {@link HttpServeOptions.trustProxy}, the
   * `X-Forwarded-For` chain ends here. Without it, such requests share one share.
   */
  readonly clientAddress?: string;
}

/**
 * The server as an HTTP handler for both protocol eras, to mount in an HTTP server of
 * one's own (Express, Fastify, Hono, `node:http`, a fetch runtime).
 */
export interface HttpHandler {
  /**
   * Every path the handler answers, to route to it: the endpoint's (`path`) first, then
   * the health route's (`healthPath`) and, with `auth`, the protected resource
   * metadata's (`/.well-known/oauth-protected-resource` with and without the resource's
   * path). Any other path gets 404.
   */
  readonly paths: readonly string[];
  /** Serves one web-standard request. */
  fetch(request: Request, extras?: HttpRequestExtras): Promise<Response>;
  /**
   * Serves one Node request. `parsedBody` is the body a body parser already read
   * (Express's `req.body`); without it the body is read from `req`.
   */
  node(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Ends every session the handler opened and stops its calls. */
  close(): Promise<void>;
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
