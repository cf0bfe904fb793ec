import { AgentToolError, type SignalSource } from '../../../core';

/**
 * How long a running call whose request asked for progress stays quiet at most, by
 * default (15 s). Hosts give a request 60 s by default (the SDK's client) and restart
 * that wait on each progress notification (`resetTimeoutOnProgress`); some wait 30 s.
 * Every 15 s, a host hears from the call four times in a minute and twice in 30 s, so
 * one notification that comes late costs nothing; a notification is some 100 bytes.
 */
export const DEFAULT_PROGRESS_KEEPALIVE_MS = 15_000;

/** The longest interval a timer keeps (Node fires a longer one at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How far a keepalive moves a tool's own progress on, so that the numbers still increase
 * as MCP requires and no display shows it: a millionth of one (about 2^-20), or a
 * trillionth of a large number (2^-40 of it, well within a double's 52 bits), so that
 * 1,234,567 moves by a millionth too, not by one.
 */
const NUDGE = 2 ** -20;
const RELATIVE_NUDGE = 2 ** -40;

/** Progress as a notification carries it. */
export interface ProgressNumbers {
  progress: number;
  total?: number;
  message?: string;
}

/** `ms` as the server's keepalive interval: the default when not given, 0 for none. */
export function keepaliveInterval(ms: number | undefined): number {
  const interval = ms ?? DEFAULT_PROGRESS_KEEPALIVE_MS;
  if (!Number.isSafeInteger(interval) || interval < 0 || interval > MAX_TIMER_MS) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: progressKeepaliveMs must be a whole number of milliseconds from 0 (no keepalive) to ${MAX_TIMER_MS}, got ${String(ms)}; the default is ${DEFAULT_PROGRESS_KEEPALIVE_MS}`,
    );
  }
  return interval;
}

/** What a keepalive keeps alive: a call's progress, sent when the call has been quiet. */
export interface Quiet {
  /** The call has been quiet for the interval: send progress now, if its request takes it. */
  beat(): void;
}

/**
 * The keepalive of one running call whose request carries a progress token: once the
 * call has sent no progress for the interval, {@link Quiet.beat} sends some, so a host
 * that restarts its wait on progress does not give up on a call that is still working.
 * One timer per call, unref'd (it keeps no process alive), made with the keepalive and
 * stopped with it, or at the first beat after the call's signal aborted (a cancelled
 * call is sent nothing more).
 */
export class Keepalive {
  readonly #intervalMs: number;
  readonly #signal: SignalSource;
  readonly #quiet: Quiet;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** When progress last went out (or was held for a client that lags). */
  #sentAt = performance.now();
  /** The numbers it carried; a beat goes on from them. */
  #last: ProgressNumbers | undefined;
  /** True when those numbers were the tool's own (a `ProgressInfo`), not a count. */
  #own = false;

  constructor(intervalMs: number, signal: SignalSource, quiet: Quiet) {
    this.#intervalMs = intervalMs;
    this.#signal = signal;
    this.#quiet = quiet;
    this.#arm(intervalMs);
  }

  /** Progress went out: the call is quiet from now on. */
  sent(numbers: ProgressNumbers, own: boolean): void {
    this.#sentAt = performance.now();
    this.#last = numbers;
    this.#own = own;
  }

  /**
   * The numbers of a beat, above the last ones sent: the next `count` when the call
   * counts its updates; the tool's own numbers nudged on by a millionth, with their
   * total, when it reports its own (a host shows it where the tool left it). No text.
   */
  next(count: number): ProgressNumbers {
    const last = this.#last;
    if (!this.#own || last === undefined) return { progress: count };
    const numbers: ProgressNumbers = {
      progress: last.progress + Math.max(Math.abs(last.progress) * RELATIVE_NUDGE, NUDGE),
    };
    if (last.total !== undefined) numbers.total = last.total;
    return numbers;
  }

  /** True when the numbers last sent were the tool's own: a beat goes on from them ({@link next}). */
  get own(): boolean {
    return this.#own;
  }

  /** The call is over: no more beats. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(Keepalive.#due, ms, this);
    this.#timer.unref();
  }

  static #due(this: void, keepalive: Keepalive): void {
    keepalive.#timer = undefined;
    // A cancelled call, or one the server stopped, is sent nothing more.
    if (keepalive.#signal.signal.aborted) return;
    const quietFor = performance.now() - keepalive.#sentAt;
    // A timer may fire up to a millisecond early against performance.now().
    if (quietFor >= keepalive.#intervalMs - 1) {
      // Sent or not (no request carries the call now), the next beat is an interval away.
      keepalive.#sentAt = performance.now();
      keepalive.#quiet.beat();
      keepalive.#arm(keepalive.#intervalMs);
    } else {
      keepalive.#arm(Math.ceil(keepalive.#intervalMs - quietFor));
    }
  }
}
