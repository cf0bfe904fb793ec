import { AgentToolError, createContext } from '../core';
import { BatchRun } from './batch';
import { batchLinks, boundOf, chainsOf } from './chains';
import {
  DEFAULT_PROGRESS_BUFFER,
  type ExecuteOptions,
  type ExecutorRun,
  type ExecutorOptions,
  type Job,
  type JobOutcome,
} from './types';

/**
 * Runs batches of tool calls: one model response's calls, in the model's order.
 *
 * - At most `maxParallel` tools run at once (default 8). A serial batch (the
 *   `sequential` option, a bound of 1, or any sequential tool in the batch) runs every
 *   job one at a time in the model's order and ignores resources.
 * - Jobs whose tools name the same resource form a chain that runs in the model's
 *   order alongside the rest of the batch; see {@link Executor.chains}.
 * - The scope is one batch: two batches, from one executor or two, order nothing
 *   against each other, so a tool whose state outlives a batch guards it itself.
 * - The executor closes nothing; closing tools is the host's.
 */
export class Executor {
  readonly #limit: number;
  readonly #sequential: boolean;
  readonly #options: ExecutorOptions;
  readonly #progressBuffer: number;

  constructor(options: ExecutorOptions = {}) {
    this.#options = options;
    this.#limit = boundOf(options.maxParallel);
    this.#sequential = options.sequential === true;
    const buffer = options.progressBuffer;
    this.#progressBuffer =
      buffer !== undefined && buffer >= 1 ? Math.floor(buffer) : DEFAULT_PROGRESS_BUFFER;
  }

  /** The bound on tools running at once. */
  get maxParallel(): number {
    return this.#limit;
  }

  /**
   * Runs `jobs` and returns their events, for one `for await` loop (like an async
   * generator, a second loop over it sees nothing). Nothing starts before the loop
   * asks for the first event. An entry that is not a job (no call with a string `id`
   * and `args`) throws an `INVALID_OPTIONS` error here, naming its index.
   *
   * - Each final event names its job by index, exactly once per job, in completion
   *   order; an empty batch yields nothing. A tool's thrown error completes its job with
   *   that error; a programming fault with a {@link PanicError}; a job without a tool
   *   with `no tool for call "<id>"`.
   * - Each job's tool runs with a context derived from `options.context`: the job's call
   *   (with the executor's progress forwarder), the batch's signal, and the executor's
   *   recorder if it has one. The same context is {@link currentContext} inside the tool.
   * - Progress: a tool's updates arrive as non-final events, in order, before its final
   *   and never after it (later ones are dropped); the job's own `onUpdate`, if set, is
   *   called with each as it is delivered. Updates wait for the consumer, at most
   *   `progressBuffer` per job: beyond that the newest replaces the last one waiting, so
   *   a slow consumer costs no memory. A tool that must not lose updates awaits
   *   {@link progressTaken} and so goes at its consumer's pace.
   * - A chain's next job, and a job waiting for a slot, start once the consumer has
   *   received the previous final event (the `next()` carrying it resolved), never
   *   before; a loop body that awaits does not hold them back.
   * - Cancellation: aborting `options.signal` (or the context's signal) aborts every
   *   running call's signal and completes each unstarted job with a
   *   {@link CancelledError} reading as Go's `ctx.Err()`: `context canceled`, or
   *   `context deadline exceeded` when the signal timed out (`AbortSignal.timeout`);
   *   onStart is not called for them. A running call whose tool (or onStart) stops by
   *   throwing its signal's reason (`ctx.signal.throwIfAborted()`) completes with the
   *   same error, as Go's tool returning `ctx.Err()` does: not as the tool's own error,
   *   nor as a panic, whatever the reason is. Leaving the loop early does the
   *   same, yields nothing more, and the loop's exit waits until every running tool
   *   has returned, so nothing of the batch runs after it.
   */
  execute(jobs: readonly Job[], options: ExecuteOptions = {}): ExecutorRun {
    const context = options.context ?? createContext();
    const signals: AbortSignal[] = [];
    if (options.signal !== undefined) signals.push(options.signal);
    if (options.context !== undefined) signals.push(options.context.signal);
    const list = [...jobs];
    checkJobs(list);
    return new BatchRun({
      jobs: list,
      chains: batchLinks(list, this.#limit, this.#sequential),
      limit: this.#limit,
      progressBuffer: this.#progressBuffer,
      context,
      recorder: this.#options.recorder,
      onStart: this.#options.onStart,
      signals,
    });
  }

  /**
   * Runs `jobs` and collects how each ended, in job order, for callers that need no
   * progress. Never rejects for a job's failure: each outcome holds a result or an error.
   */
  async results(jobs: readonly Job[], options: ExecuteOptions = {}): Promise<JobOutcome[]> {
    const outcomes = new Array<JobOutcome>(jobs.length);
    for await (const event of this.execute(jobs, options)) {
      if (!event.final) continue;
      outcomes[event.index] =
        event.error === undefined ? { result: event.result } : { error: event.error };
    }
    return outcomes;
  }

  /**
   * The chains {@link Executor.execute} runs `jobs` in, each a list of job indices in
   * the model's order, together covering every job once. A serial batch is one chain of
   * every job; otherwise jobs whose tools name one resource form a chain placed where its
   * first job is, and every other job (one without a tool included) is a chain of its
   * own. No jobs, no chains. Reads the tools' properties and runs nothing.
   */
  chains(jobs: readonly Job[]): number[][] {
    return chainsOf(jobs, this.#limit, this.#sequential);
  }
}

/**
 * Throws, before anything runs, for an entry of `jobs` that is not a job: every job needs
 * a call with a string `id` and string `args` (its tool may be missing: that job completes
 * with `no tool for call "<id>"`).
 */
function checkJobs(jobs: readonly Job[]): void {
  for (let i = 0; i < jobs.length; i++) {
    const call = (jobs[i] as Job | null | undefined)?.call as Partial<Job['call']> | undefined;
    if (typeof call?.id !== 'string' || typeof call.args !== 'string') {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `agenttool: execute: jobs[${i}] is not a job: it needs a call with a string id and string args`,
      );
    }
  }
}
