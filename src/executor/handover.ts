const RESOLVED = Promise.resolve();

/** What a handover releases for: the batch run. */
export interface HandoverTarget {
  /** False once the batch is over: nothing is released any more. */
  isRunning(): boolean;
  /** The consumer has job `i`'s final: free its slot and move its chain on. */
  release(i: number): void;
  /** Called after each group of releases: start whatever may start now. */
  released(): void;
}

/**
 * When a job's slot and its chain's turn are given back. A final is handed to the
 * consumer when the `next()` carrying it resolves; the job's slot and turn are released
 * once the consumer has it, never before: when the consumer calls `next()` again
 * ({@link Handover.consumerReturned}), or else when the continuation the consumer
 * attached to that `next()` (a `for await` loop's body up to its first `await`, or a
 * `.then`) has had its turn, so a loop body that awaits holds nothing back. That moment
 * is a release pass of one or two microtask hops, shared by every final handed over
 * before it (see {@link Handover.ensurePass}): as the Go binding releases a slot once
 * the consumer has received the final, while its loop body still runs.
 */
export class Handover {
  /** The jobs in the order their finals were handed over: each job's final is handed once. */
  readonly #handed: Int32Array;
  #handedCount = 0;
  #releasedCount = 0;
  /** A release pass is scheduled, and what its second hop releases. */
  #passing = false;
  #upTo = 0;
  readonly #target: HandoverTarget;

  /** For a batch of `jobs` jobs. */
  constructor(target: HandoverTarget, jobs: number) {
    this.#target = target;
    this.#handed = new Int32Array(jobs);
  }

  /** True when a final was handed over and not released yet. */
  get pending(): boolean {
    return this.#releasedCount < this.#handedCount;
  }

  /** Job `i`'s final is being handed over: the `next()` carrying it resolves now. */
  handedOver(i: number): void {
    this.#handed[this.#handedCount++] = i;
  }

  /** The consumer asks for its next event: it has every final handed over so far. */
  consumerReturned(): void {
    if (this.#releasedCount < this.#handedCount) this.#releaseUpTo(this.#handedCount);
  }

  /**
   * Schedules a release pass unless one is pending. Its microtask must run after the
   * consumer's continuation: `hops` is 1 when that continuation was queued already (a
   * waiting `next()` was resolved), 2 when the consumer has yet to attach it (`next()`
   * returns a settled promise): the first hop then runs before the continuation and
   * queues the second after it. The pass releases what was handed over before it was
   * scheduled (one hop) or before its first hop (two).
   */
  ensurePass(hops: 1 | 2): void {
    if (this.#passing) return;
    this.#passing = true;
    if (hops === 2) {
      void RESOLVED.then(this.#firstHop);
    } else {
      this.#upTo = this.#handedCount;
      void RESOLVED.then(this.#secondHop);
    }
  }

  // The pass's two hops, made once per batch: a pass is scheduled for most finals.
  readonly #firstHop = (): void => {
    this.#upTo = this.#handedCount;
    void RESOLVED.then(this.#secondHop);
  };

  readonly #secondHop = (): void => {
    this.#passing = false;
    if (!this.#target.isRunning()) return;
    if (this.#releasedCount < this.#upTo) this.#releaseUpTo(this.#upTo);
    if (this.pending) this.ensurePass(2);
  };

  /** The consumer has every final up to the `count`th handed over: release them, in order. */
  #releaseUpTo(count: number): void {
    const target = this.#target;
    if (!target.isRunning()) return;
    while (this.#releasedCount < count) {
      target.release(this.#handed[this.#releasedCount++] as number);
    }
    target.released();
  }
}
