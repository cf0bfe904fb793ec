/**
 * How far a client lags behind the notifications a request has sent it: a streamed
 * answer's notifications wait in the stream until the client reads them, so a client
 * that does not read would make the server hold all of them.
 */
export class Backlog {
  #sent = 0;
  #delivered = 0;
  #waiters: (() => void)[] = [];

  /** Notifications the client has not read yet (at least). */
  get lag(): number {
    return Math.max(0, this.#sent - this.#delivered);
  }

  /** True when the client lags by {@link HIGH_WATER} notifications or more. */
  get congested(): boolean {
    return this.lag >= HIGH_WATER;
  }

  /** A notification went into the stream. */
  sent(): void {
    this.#sent++;
  }

  /** The client read a chunk of the stream. */
  delivered(): void {
    this.#delivered++;
    if (this.lag <= LOW_WATER && this.#waiters.length > 0) {
      for (const waiter of this.#waiters.splice(0)) waiter();
    }
  }

  /** Runs `waiter` once when the client has caught up (or now, when it has). */
  onDrain(waiter: () => void): void {
    if (this.lag <= LOW_WATER) waiter();
    else this.#waiters.push(waiter);
  }
}

/** Unread notifications from which a call's progress is coalesced and its logs dropped. */
export const HIGH_WATER = 32;

/** Unread notifications at which held progress goes out again. */
export const LOW_WATER = 8;

/** The backlog of each streamed HTTP request, by the request the SDK hands the handler. */
export const backlogs = new WeakMap<Request, Backlog>();
