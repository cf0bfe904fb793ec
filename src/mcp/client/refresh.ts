import { AgentToolError, errorMessage } from '../../core';
import { excerpt } from './excerpts';

/**
 * The least time between two listings a notification starts: a server that sends
 * list-changed notifications without end (a loop, a bug) gets at most ten listings a
 * second, not one after another as fast as it answers them.
 */
export const LIST_REFRESH_GAP_MS = 100;

interface Waiter {
  readonly want: number;
  readonly resolve: () => void;
}

/**
 * Keeps a tool-list snapshot in step with `notifications/tools/list_changed`: every
 * listing runs one at a time; a notification queues at most one background refresh
 * (coalesced), begun at least {@link LIST_REFRESH_GAP_MS} after the last one; `settled()`
 * waits until the snapshot reflects every notification seen when it was called. A
 * failed listing keeps the old snapshot.
 */
export class ListRefresher {
  private seenCount = 0;
  private settledCount = 0;
  private tail: Promise<void> = Promise.resolve();
  private backgroundQueued = false;
  private lastError: Error | undefined;
  /** The notification count the failed listing behind {@link lastError} tried to reflect. */
  private failedTarget = 0;
  private closedError: Error | undefined;
  private waiters: Waiter[] = [];
  private listeners = new Set<(arrived: boolean) => void>();
  /** When the last listing a notification started began (ms since the epoch). */
  private lastBackground = 0;

  constructor(
    /** Lists the tools and installs the new snapshot; throws to keep the old one. */
    private readonly list: () => Promise<void>,
    /** Receives the error of a failed background refresh. */
    private readonly report: (error: Error) => void,
  ) {}

  /** How many list-changed notifications arrived so far. */
  get seen(): number {
    return this.seenCount;
  }

  /** A list-changed notification arrived: refresh in the background. */
  notified(): void {
    this.seenCount++;
    for (const listener of [...this.listeners]) listener(true);
    if (this.backgroundQueued || this.closedError !== undefined) return;
    this.backgroundQueued = true;
    this.tail = this.tail
      .then(async () => {
        const wait = this.lastBackground + LIST_REFRESH_GAP_MS - Date.now();
        // Notifications that come meanwhile join this listing.
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
        this.backgroundQueued = false;
        if (this.settledCount >= this.seenCount || this.closedError !== undefined) return;
        this.lastBackground = Date.now();
        const error = await this.attempt();
        if (error !== undefined) this.reportQuietly(error);
      })
      // Neither step throws; should one ever do, the chain must stay usable, or every
      // later listing would be skipped and settled() would never resolve.
      .catch(() => undefined);
  }

  /** A forced listing, after any in progress; throws `mcp: list tools: <reason>`. */
  async refresh(): Promise<void> {
    if (this.closedError !== undefined) throw this.closedError;
    const run = this.tail.then(() => this.attempt());
    // The chain must never stay rejected (see notified()).
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    const error = await run;
    if (error !== undefined) throw error;
  }

  /**
   * Resolves once the snapshot reflects every notification seen before this call;
   * throws the last refresh's error until a refresh succeeds.
   */
  async settled(): Promise<void> {
    const want = this.seenCount;
    const failedAlready = this.lastError !== undefined && this.failedTarget >= want;
    if (this.settledCount < want && this.closedError === undefined && !failedAlready) {
      await new Promise<void>((resolve) => this.waiters.push({ want, resolve }));
    }
    if (this.closedError !== undefined) throw this.closedError;
    if (this.lastError !== undefined) throw this.lastError;
  }

  /**
   * Resolves true when a notification arrives within `ms`, false when none does, the
   * signal aborts or the connection closes first.
   */
  nextNotification(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted || this.closedError !== undefined) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (arrived: boolean): void => {
        clearTimeout(timer);
        this.listeners.delete(onNotification);
        signal.removeEventListener('abort', onAbort);
        resolve(arrived);
      };
      const onNotification = (arrived: boolean): void => done(arrived);
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(false), ms);
      this.listeners.add(onNotification);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The connection closed: every waiter and later call gets `error`. */
  close(error: Error): void {
    this.closedError = error;
    for (const listener of [...this.listeners]) listener(false);
    this.release(() => true);
  }

  /**
   * Hands a background failure to the reporter. A reporter that throws is ignored, as
   * the Go binding ignores its logger's failure: nobody is left to tell, and its throw
   * must not stop later refreshes nor surface as an unhandled rejection.
   */
  private reportQuietly(error: Error): void {
    try {
      this.report(error);
    } catch {
      // See above: the failure is still what settled() and refresh() throw.
    }
  }

  private async attempt(): Promise<Error | undefined> {
    const target = this.seenCount;
    try {
      await this.list();
      this.settledCount = Math.max(this.settledCount, target);
      this.lastError = undefined;
      this.release((w) => w.want <= this.settledCount);
      return undefined;
    } catch (error) {
      // A listing's errors are worded in full where they arise (`mcp: list tools: ...`,
      // `mcp: tool "<name>": input schema: ...`, as the Go binding words them).
      const failure =
        this.closedError ??
        (error instanceof AgentToolError
          ? error
          : new AgentToolError('CONNECTION', `mcp: list tools: ${excerpt(errorMessage(error))}`, {
              cause: error,
            }));
      this.lastError = failure;
      this.failedTarget = target;
      // Waiters this attempt was meant to satisfy learn of the failure now.
      this.release((w) => w.want <= target);
      return failure;
    }
  }

  private release(which: (w: Waiter) => boolean): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (which(w)) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }
}
