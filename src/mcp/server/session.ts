import { goQuote, type Session } from '../../core';

/** The `_meta` key of a 2026-07-28 client's session handle, on requests and results alike. */
export const SESSION_META_KEY = 'io.github.christopherdavenport.agenttool/session';

/**
 * The client capability (under `extensions`) by which a 2026-07-28 client says it
 * carries the session handle a server gives it; see the server README.
 */
export const SESSIONS_EXTENSION = 'io.github.christopherdavenport.agenttool/sessions';

/**
 * The request that ends the 2026-07-28 session a handle names, at once (a client that
 * is done with it: `connectMcp`'s `close()` sends it), instead of after the idle
 * timeout. Its params carry the handle under `_meta[SESSION_META_KEY]`; the answer is
 * `{}`, whether the session was open or not; only the subject that opened the session
 * ends it (another's handle ends nothing). The session's `onClose` listeners run (a shell
 * ends), and its calls still waiting for answers are stopped.
 */
export const SESSION_END_METHOD = 'io.github.christopherdavenport.agenttool/sessions/end';

const RESOLVED = Promise.resolve();

/** Reports a failure the server cannot hand to anyone else (stderr by default). */
export type ErrorReporter = (message: string, error: unknown) => void;

/** A client's name and version, as it introduced itself. */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/**
 * One MCP session: one object per client for its whole life, so per-client state can be
 * keyed on it. A 2025-era client's session is its connection (`initialize` to
 * transport close, HTTP DELETE or idle timeout); a 2026-07-28 client's is the session
 * handle it carries (see the server README). Its `onClose` listeners run once when the
 * session ends.
 */
export class McpSession implements Session {
  readonly id: string;
  #client: (() => ClientInfo | undefined) | undefined;
  #seen: ClientInfo | undefined;
  /** Made with the first listener: most sessions of one call have none. */
  #listeners: Set<() => void | Promise<void>> | undefined;
  #closed: Promise<void> | undefined;
  readonly #report: ErrorReporter;
  readonly #ending: (() => void) | undefined;

  /** True when the session is one call's own and ends with it (see `Session.endsWithCall`). */
  readonly endsWithCall: boolean;
  /** What handles minted for this session's calls start with (see `Session.handlePrefix`). */
  readonly handlePrefix: string;
  /** Who calls, where no subject says (see `Session.callerKey`). */
  readonly callerKey: string | undefined;
  /** When the client has read the answers sent to it (see `Session.whenAnswersRead`). */
  readonly whenAnswersRead: ((signal?: AbortSignal) => Promise<void> | undefined) | undefined;

  /** `ending` runs first when the session ends, before any `onClose` listener. */
  constructor(
    id: string,
    report: ErrorReporter,
    ending?: () => void,
    place: {
      readonly endsWithCall?: boolean;
      readonly handlePrefix?: string;
      readonly callerKey?: string | undefined;
      readonly whenAnswersRead?: ((signal?: AbortSignal) => Promise<void> | undefined) | undefined;
    } = {},
  ) {
    this.id = id;
    this.#report = report;
    this.#ending = ending;
    this.endsWithCall = place.endsWithCall === true;
    this.handlePrefix = place.handlePrefix ?? '';
    this.callerKey = place.callerKey;
    this.whenAnswersRead = place.whenAnswersRead;
  }

  /** The client's name and version, once it has said them; undefined before. */
  get client(): ClientInfo | undefined {
    const info = this.#client?.() ?? this.#seen;
    return info === undefined ? undefined : { name: info.name, version: info.version };
  }

  /** True once the session has ended. */
  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /**
   * Registers a listener run once when the session ends. On a session that already
   * ended it runs at once, so nothing registered late is leaked.
   */
  onClose(listener: () => void | Promise<void>): void {
    if (this.#closed === undefined) {
      (this.#listeners ??= new Set()).add(listener);
      return;
    }
    void this.#run(listener);
  }

  /**
   * @internal Like {@link onClose} for something shorter-lived than the session (one
   * call): returns a function that withdraws the listener.
   */
  whileOpen(listener: () => void): () => void {
    this.onClose(listener);
    return () => void this.#listeners?.delete(listener);
  }

  /** @internal Where the client's info comes from (the latest request's, or `initialize`'s). */
  bindClient(source: () => ClientInfo | undefined): void {
    this.#client = source;
  }

  /** @internal Records the client info a 2026-07-28 request carried (it has no `initialize`). */
  sawClient(info: ClientInfo | undefined): void {
    if (info !== undefined) this.#seen = info;
  }

  /**
   * Ends the session: runs every `onClose` listener once, in reverse order of
   * registration (the last thing set up is torn down first); failures are reported,
   * never thrown. Later calls return the same promise.
   */
  close(): Promise<void> {
    if (this.#closed !== undefined) return this.#closed;
    const listeners = this.#listeners;
    if (listeners === undefined || listeners.size === 0) {
      // Nothing to run (the usual end of a call's own session): no async frame for it.
      this.#ending?.();
      this.#closed = RESOLVED;
      return RESOLVED;
    }
    this.#closed = (async () => {
      this.#ending?.();
      const running = [...listeners].reverse();
      listeners.clear();
      for (const listener of running) await this.#run(listener);
    })();
    return this.#closed;
  }

  async #run(listener: () => void | Promise<void>): Promise<void> {
    try {
      await listener();
    } catch (error) {
      this.#report(`mcp: session ${goQuote(this.id)}: onClose listener failed`, error);
    }
  }
}

/** The session a call runs in, held for the call's whole life. */
export interface SessionLease {
  readonly session: McpSession;
  /**
   * Resolves once the session's `onSession` hook has run, rejects when it failed;
   * undefined when there is no hook.
   */
  readonly ready: Promise<void> | undefined;
  /** The handle to hand back to a 2026-07-28 client, when the session has one. */
  readonly handle?: string;
  /** Ends the lease (an ephemeral session ends with its one call). */
  release(): void;
}
