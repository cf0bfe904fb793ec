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
}

/** Severity levels of a tool's log lines, as MCP names them. */
export type LogLevel =
  'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** Where a tool's log lines go (an MCP server forwards them as `notifications/message`). */
export type LogSink = (level: LogLevel, data: unknown, logger?: string) => void;
