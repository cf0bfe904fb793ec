import { type Call, type JsonValue, type Result, type ToolContext } from '../core';

/** Where a call's undelivered progress is counted: the batch run. */
export interface DrainSource {
  drained(index: number): Promise<void>;
}

/**
 * The call a job's tool receives: the job's call with the executor's own progress
 * forwarder. It remembers its run so {@link progressTaken} can find the job.
 */
export class ExecutorCall implements Call {
  readonly id: string;
  readonly idempotencyKey?: string;
  readonly value?: JsonValue;
  readonly onUpdate: (update: Result) => void;
  readonly #call: Call;
  readonly #run: DrainSource;
  readonly #index: number;

  constructor(call: Call, run: DrainSource, index: number, onUpdate: (update: Result) => void) {
    this.id = call.id;
    this.#call = call;
    if (call.idempotencyKey !== undefined) this.idempotencyKey = call.idempotencyKey;
    // Arguments a harness already decoded pass on as they are; their text is built
    // only if someone reads it.
    if (call.value !== undefined) this.value = call.value;
    this.onUpdate = onUpdate;
    this.#run = run;
    this.#index = index;
  }

  get args(): string {
    return this.#call.args;
  }

  /** The executor's drain promise for this call, or undefined for any other call. */
  static drained(call: Call): Promise<void> | undefined {
    return call instanceof ExecutorCall ? call.#run.drained(call.#index) : undefined;
  }
}

/**
 * Resolves once the consumer of the batch has taken every progress update the current
 * call reported so far (updates conflated away count as taken), or the batch is over.
 * A tool that streams many updates awaits it to be slowed to its consumer's pace. It
 * resolves at once outside an executor batch.
 */
export function progressTaken(ctx: ToolContext): Promise<void> {
  return ExecutorCall.drained(ctx.call) ?? Promise.resolve();
}
