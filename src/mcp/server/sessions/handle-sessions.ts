import { type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import { subjectOf } from '../auth';
import { callerKeyOf, type SessionShares, UNKNOWN_ADDRESS } from '../http';
import { randomHex } from '../../random';
import { requestHandle } from './call-answers';
import { type SessionBinding } from './instance';
import { SESSIONS_EXTENSION, type SessionLease } from '../session';
import { type OpenedSession, type SessionOpening } from '../server-options';

/**
 * The sessions of 2026-07-28 clients over HTTP. A client that declares the sessions
 * extension gets a handle with its first call's result and carries it on later
 * requests, which then share one session (and its session-scoped providers) until it
 * ends: after the idle timeout, or when the server closes. Any other request's call
 * runs in a session of its own that ends with the call. A handle the server does not
 * know (it ended, or another instance made it) starts a new session with a new handle,
 * and so does a handle another caller's session holds: a session belongs to the
 * subject that opened it. Past the endpoint's session limit, or the caller's share of
 * it, a call runs in a session of its own, with no handle (the endpoint refuses such a
 * call with 429 before it gets here; this bounds a burst). Instances that scale out
 * forward a call carrying another live instance's handle there.
 */
/** What the 2026-07-28 sessions need of the tool server: new sessions, and their handles' prefix. */
export interface SessionOpener {
  /** Opens a session (its `onSession` hook runs; calls wait for it). */
  openSession(id: string, opening?: SessionOpening): OpenedSession;
  /** What a new session handle starts with: its instance, when scaled out. */
  readonly handlePrefix: string;
}

export class HandleSessions implements SessionBinding {
  readonly #live = new Map<string, HeldSession>();
  readonly #server: SessionOpener;
  readonly #idleMs: number;
  readonly #stateless: boolean;
  /** The HTTP endpoint checks and follows a 2026-07-28 listen's resource subscriptions. */
  readonly listens = true;
  #shares: SessionShares | undefined;

  constructor(server: SessionOpener, idleMs: number, stateless: boolean) {
    this.#server = server;
    this.#idleMs = idleMs;
    this.#stateless = stateless;
  }

  /** The endpoint's session limit and each caller's share (set once, by the endpoint). */
  set shares(shares: SessionShares) {
    this.#shares = shares;
  }

  /** True when the request's subject holds a session under `handle`. */
  holds(handle: string, subject: string | undefined): boolean {
    return this.#live.get(handle)?.subject === subject;
  }

  /** How many sessions are held by handle. */
  get size(): number {
    return this.#live.size;
  }

  lease(ctx: ServerContext, capabilities: ClientCapabilities | undefined): SessionLease {
    if (!this.#stateless) {
      const handle = requestHandle(ctx);
      const subject = subjectOf(ctx.http?.authInfo);
      const known = handle === undefined ? undefined : this.#live.get(handle);
      if (handle !== undefined && known !== undefined && known.subject === subject) {
        return this.#hold(handle, known);
      }
      // Only a client that carries handles gets one (its caller's share permitting).
      const caller =
        capabilities?.extensions?.[SESSIONS_EXTENSION] === undefined
          ? undefined
          : (callerKeyOf(ctx) ?? `address:${UNKNOWN_ADDRESS}`);
      if (caller !== undefined && this.#shares?.room(caller) === true) {
        // Behind a load balancer the handle names its instance, which peers forward to.
        const fresh = this.#server.handlePrefix + randomHex(16);
        const opened = this.#server.openSession(fresh, { callerKey: caller });
        const share = this.#shares.open(caller);
        const idle = new IdleClock(this.#idleMs, () => void opened.session.close());
        const entry: HeldSession = { opened, idle, subject };
        this.#live.set(fresh, entry);
        opened.session.onClose(() => {
          idle.stop();
          this.#live.delete(fresh);
          share();
        });
        return this.#hold(fresh, entry);
      }
    }
    // The call's own session, which ends with it.
    const { session, ready } = this.#server.openSession('', {
      endsWithCall: true,
      callerKey: callerKeyOf(ctx),
    });
    return { session, ready, release: () => void session.close() };
  }

  #hold(handle: string, entry: HeldSession): SessionLease {
    entry.idle.busy();
    let held = true;
    return {
      ...entry.opened,
      handle,
      release: () => {
        if (!held) return;
        held = false;
        entry.idle.done();
      },
    };
  }

  /**
   * Ends the session the request's handle names, when the request's subject opened it;
   * a handle this server does not hold, or another subject's, ends nothing.
   */
  async end(ctx: ServerContext): Promise<void> {
    const handle = requestHandle(ctx);
    const known = handle === undefined ? undefined : this.#live.get(handle);
    if (known === undefined || known.subject !== subjectOf(ctx.http?.authInfo)) return;
    await known.opened.session.close();
  }

  /** A parked call is answered by its caller's requests only (anyone's, without authorization). */
  owner(ctx: ServerContext): string {
    const subject = subjectOf(ctx.http?.authInfo);
    return subject === undefined ? '' : `subject:${subject}`;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#live.values()].map((entry) => entry.opened.session.close()));
  }
}

/** A session held by handle, and the subject whose it is (undefined without authorization). */
interface HeldSession {
  readonly opened: OpenedSession;
  readonly idle: IdleClock;
  readonly subject: string | undefined;
}

/**
 * Ends something after `idleMs` with nothing in flight (0 or less: never). Once stopped
 * it stays stopped: a request still in flight when its session ended finishes after
 * that, and re-arming then would keep the ended session (the timer holds it) for `idleMs`.
 */
export class IdleClock {
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly expire: () => void,
  ) {
    this.#arm();
  }

  busy(): void {
    if (this.#stopped) return;
    this.#inFlight++;
    clearTimeout(this.#timer);
  }

  done(): void {
    if (this.#stopped) return;
    this.#inFlight--;
    this.#arm();
  }

  /** Stops the clock for good (the session ended): `busy` and `done` do nothing after it. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#stopped || this.idleMs <= 0 || this.#inFlight > 0) return;
    clearTimeout(this.#timer);
    // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
    this.#timer = setTimeout(this.expire, Math.min(this.idleMs, 2 ** 31 - 1));
    this.#timer.unref();
  }
}
