import { type Call, type RecordFunc, type Result, type Tool, type ToolContext } from '../core';

/** The bound on tools running at once when none is given. */
export const DEFAULT_MAX_PARALLEL = 8;

/** How many undelivered progress updates one job keeps before it conflates them. */
export const DEFAULT_PROGRESS_BUFFER = 64;

/** One call of a batch and the tool that serves it (undefined when the model named no known tool). */
export interface Job {
  readonly tool: Tool | undefined;
  readonly call: Call;
}

/** A progress update of the job at `index`, delivered before its final event. */
export interface ExecutorProgressEvent {
  readonly index: number;
  readonly final: false;
  readonly result: Result;
  readonly error?: undefined;
}

/** The completion of the job at `index`: its result, or the error it failed with. */
export type ExecutorFinalEvent =
  | {
      readonly index: number;
      readonly final: true;
      readonly result: Result;
      readonly error?: undefined;
    }
  | {
      readonly index: number;
      readonly final: true;
      readonly result?: undefined;
      readonly error: Error;
    };

/**
 * One step of a batch: a progress update when `final` is false, otherwise the
 * completion of the job at `index`. Exactly one final event per job, in completion
 * order; a job's progress events come before its final and never after.
 */
export type ExecutorEvent = ExecutorProgressEvent | ExecutorFinalEvent;

/** How one job of a batch ended, as {@link Executor.results} lists it. */
export type JobOutcome =
  | { readonly result: Result; readonly error?: undefined }
  | { readonly result?: undefined; readonly error: Error };

/** Called the moment a job is handed to its tool; an error or rejection stops the job. */
export type OnStart = (job: Job, ctx: ToolContext) => void | Promise<void>;

/** How an {@link Executor} runs every batch it is given. */
export interface ExecutorOptions {
  /**
   * At most this many tools run at once; a value that is not a positive number means
   * {@link DEFAULT_MAX_PARALLEL}. A bound of 1 makes every batch serial.
   */
  readonly maxParallel?: number | undefined;
  /**
   * Runs every batch one job at a time, in the model's order, ignoring resources. A batch
   * with any sequential tool runs that way regardless.
   */
  readonly sequential?: boolean | undefined;
  /**
   * Installed on every job's context, so a tool that writes a record while it runs
   * reaches the host. When unset, a recorder already on the batch's context is used.
   */
  readonly recorder?: RecordFunc | undefined;
  /**
   * Called the moment a job is handed to its tool: after the job took its slot in the
   * bound and its turn in its chain, with the call (its `onUpdate` the executor's own)
   * on the context, and before the tool runs. It holds the slot and the turn while it
   * runs. A thrown error or a rejection completes the job with that error and the tool
   * never runs; a programming fault there is named as onStart's
   * (`agenttool: OnStart for call "<id>" panicked: <value>`), not blamed on the tool.
   * Not called for a job cancelled before its turn, nor for a job without a tool.
   */
  readonly onStart?: OnStart | undefined;
  /**
   * How many progress updates of one job wait for the consumer before they are
   * conflated (default {@link DEFAULT_PROGRESS_BUFFER}, at least 1). See
   * {@link Executor.execute} on back-pressure.
   */
  readonly progressBuffer?: number | undefined;
}

/** What one batch runs under. */
export interface ExecuteOptions {
  /** Aborting it cancels the batch: running calls see their signal aborted, unstarted ones complete cancelled. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The context every job's context is derived from (its recorder, elicitor, session
   * and log); each job gets its own call and the batch's signal. Aborting its signal
   * cancels the batch too.
   */
  readonly context?: ToolContext | undefined;
}

/**
 * The events of one batch as {@link Executor.execute} returns them: an async iterator
 * for one `for await` loop. `return()` (what leaving the loop early calls) cancels the
 * batch and settles once every running tool has returned.
 */
export interface ExecutorRun extends AsyncIterableIterator<ExecutorEvent> {
  next(): Promise<IteratorResult<ExecutorEvent, undefined>>;
  return(value?: unknown): Promise<IteratorResult<ExecutorEvent, undefined>>;
}
