/**
 * The client a call is served for, when a transport knows one (an MCP session). Code
 * that keeps per-client state keys it on this object.
 */
export interface Session {
  /** The transport's session id; "" where the transport has none (stdio, in-memory). */
  readonly id: string;
  /** The client's name and version, as it introduced itself. */
  readonly client?: { readonly name: string; readonly version: string } | undefined;
  /** Registers a listener run once when the session ends. */
  onClose(listener: () => void | Promise<void>): void;
  /**
   * True when the session is the call's own and ends with it (a 2026-07-28 request that
   * carries no session, a stateless 2025-era request): what is kept in it does not
   * reach the next call, so state that must (a shell) goes under a handle instead.
   */
  readonly endsWithCall?: boolean | undefined;
  /**
   * What the state handles minted for this session's calls start with: the serving
   * instance's own prefix (`<instance>.`) when several instances serve, so that a call
   * carrying a handle is routed to the instance that holds it; "" or absent otherwise.
   */
  readonly handlePrefix?: string | undefined;
  /**
   * Who is calling where no authenticated subject says, for limits that are counted per
   * caller (over HTTP, the client's address as the endpoint's fair shares count it:
   * `address:<ip>`); absent where the transport tells callers apart by nothing else
   * (stdio, in memory) or the caller is authenticated.
   */
  readonly callerKey?: string | undefined;
  /**
   * Whether the client has read the answers already sent to it, all but a few MiB (over
   * stdio: more than 16 MiB waiting to be written, `STDIO_UNREAD_ANSWER_BYTES`, is
   * behind): undefined when it has, else a promise that resolves once it has caught up,
   * or rejects with `signal`'s reason when it aborts first. A tool about to make a large
   * result waits for it, so that a client slower to read than the tools are to answer
   * does not make the server hold every answer at once. Absent where the transport does
   * not say (over HTTP, `maxUnreadAnswerBytes` bounds what clients leave unread instead).
   */
  readonly whenAnswersRead?: ((signal?: AbortSignal) => Promise<void> | undefined) | undefined;
}

/** Severity levels of a tool's log lines, as MCP names them. */
export type LogLevel =
  'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** Where a tool's log lines go (an MCP server forwards them as `notifications/message`). */
export type LogSink = (level: LogLevel, data: unknown, logger?: string) => void;
