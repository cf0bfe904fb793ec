import { type LogLevel, type Session } from '../../core';

/** Reports a failure the server cannot hand to anyone else (stderr by default). */
export type ErrorReporter = (message: string, error: unknown) => void;

/** MCP's log levels, least severe first. */
const LEVELS: readonly LogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * One MCP session: one object per connected client for its whole life, so per-client
 * state can be keyed on it. Its `onClose` listeners run once when the session ends
 * (transport closed, HTTP DELETE, idle timeout, server closed).
 */
export class McpSession implements Session {
  readonly id: string;
  #client: (() => { name: string; version: string } | undefined) | undefined;
  #listeners: (() => void | Promise<void>)[] = [];
  #closed: Promise<void> | undefined;
  #logLevel: LogLevel | undefined;
  readonly #report: ErrorReporter;

  constructor(id: string, report: ErrorReporter) {
    this.id = id;
    this.#report = report;
  }

  /** The client's name and version from `initialize`; undefined before it. */
  get client(): { readonly name: string; readonly version: string } | undefined {
    const info = this.#client?.();
    return info === undefined ? undefined : { name: info.name, version: info.version };
  }

  /** True once the session has ended. */
  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** The level the client set with `logging/setLevel`; undefined until it sets one. */
  get logLevel(): LogLevel | undefined {
    return this.#logLevel;
  }

  /**
   * Registers a listener run once when the session ends. On a session that already
   * ended it runs at once, so nothing registered late is leaked.
   */
  onClose(listener: () => void | Promise<void>): void {
    if (this.#closed === undefined) {
      this.#listeners.push(listener);
      return;
    }
    void this.#run(listener);
  }

  /** @internal Where the client's info comes from (the session's SDK server). */
  bindClient(source: () => { name: string; version: string } | undefined): void {
    this.#client = source;
  }

  /** @internal Records the client's `logging/setLevel`. */
  setLogLevel(level: LogLevel): void {
    this.#logLevel = level;
  }

  /** True when a line at `level` reaches the client (every line until it sets a level). */
  logs(level: LogLevel): boolean {
    if (this.#logLevel === undefined) return true;
    return LEVELS.indexOf(level) >= LEVELS.indexOf(this.#logLevel);
  }

  /**
   * Ends the session: runs every `onClose` listener once, in reverse order of
   * registration (the last thing set up is torn down first); failures are reported,
   * never thrown. Later calls return the same promise.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const listeners = this.#listeners.reverse();
      this.#listeners = [];
      for (const listener of listeners) await this.#run(listener);
    })();
    return this.#closed;
  }

  async #run(listener: () => void | Promise<void>): Promise<void> {
    try {
      await listener();
    } catch (error) {
      this.#report(`mcp: session ${JSON.stringify(this.id)}: onClose listener failed`, error);
    }
  }
}

/** True for one of MCP's log level names. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}
