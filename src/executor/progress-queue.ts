import { type Result } from '../core/result';

/** An event as a batch keeps it: progress events may be conflated while still queued. */
export interface QueuedEvent {
  readonly index: number;
  readonly final: boolean;
  result?: Result | undefined;
  readonly error?: Error;
}

/**
 * The progress updates of a batch's jobs still waiting for the consumer, and who awaits
 * their taking. At most `buffer` updates of one job wait; past that the newest replaces
 * the last one queued, so memory stays bounded, order is kept, and the consumer still
 * sees the latest state.
 */
export class ProgressQueue {
  /** Progress events of each job not taken by the consumer yet. */
  readonly #queued: Int32Array;
  /** Each job's newest progress event still queued, which a full buffer overwrites. */
  readonly #last: (QueuedEvent | undefined)[] = [];
  /** Each job's `drained` promises waiting for its queue to empty. */
  readonly #drainWaiters: ((() => void)[] | undefined)[] = [];
  readonly #buffer: number;

  constructor(jobs: number, buffer: number) {
    this.#queued = new Int32Array(jobs);
    this.#buffer = buffer;
  }

  /**
   * The event to queue for job `i`'s `update`, or undefined when the update went into
   * the newest event already queued (the job's buffer is full).
   */
  offer(i: number, update: Result): QueuedEvent | undefined {
    const last = this.#last[i];
    if (last !== undefined && (this.#queued[i] as number) >= this.#buffer) {
      last.result = update;
      return undefined;
    }
    const event: QueuedEvent = { index: i, final: false, result: update };
    this.#queued[i] = (this.#queued[i] as number) + 1;
    this.#last[i] = event;
    return event;
  }

  /** The consumer took progress `event`. */
  took(event: QueuedEvent): void {
    const i = event.index;
    if (this.#last[i] === event) this.#last[i] = undefined;
    if (--this.#queued[i]! === 0) this.#resolve(i);
  }

  /** Job `i` has its final: a later update is a new event, not folded into one queued. */
  finished(i: number): void {
    this.#last[i] = undefined;
  }

  /** Resolves once the consumer has taken every progress event of job `i` queued now. */
  drained(i: number): Promise<void> {
    if (this.#queued[i] === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      (this.#drainWaiters[i] ??= []).push(resolve);
    });
  }

  /** Resolves every `drained` promise (the batch ended). */
  releaseAll(): void {
    for (let i = 0; i < this.#drainWaiters.length; i++) this.#resolve(i);
  }

  #resolve(i: number): void {
    const waiters = this.#drainWaiters[i];
    if (waiters === undefined) return;
    this.#drainWaiters[i] = undefined;
    for (const resolve of waiters) resolve();
  }
}
