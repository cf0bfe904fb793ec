/**
 * How many resource subscriptions each caller holds over all its sessions and streams
 * (`maxSubscriptionsPerSubject`): a 2025-era session's subscriptions and a 2026-07-28
 * listen's URIs, counted by the caller's key over HTTP (its token's subject, or its
 * address without auth). Off HTTP (stdio, in memory) there is one caller, uncounted.
 */
export class SubscriberShares {
  readonly #held = new Map<string, number>();

  constructor(readonly limit: number) {}

  /**
   * Counts `count` more subscriptions against the caller `key`: the function that gives
   * them back (once), or the words of the refusal when the caller would hold more than
   * the limit. No key, nothing is counted.
   */
  take(key: string | undefined, count: number): (() => void) | string {
    if (key === undefined || count === 0) return () => undefined;
    const held = this.#held.get(key) ?? 0;
    if (held + count > this.limit) {
      return `the caller holds ${held} subscriptions over its sessions and streams, and ${count} more would pass its limit of ${this.limit} (maxSubscriptionsPerSubject); unsubscribe from some first`;
    }
    this.#held.set(key, held + count);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#held.get(key) ?? count) - count;
      if (left > 0) this.#held.set(key, left);
      else this.#held.delete(key);
    };
  }
}
