import { type Call, type JsonValue, type Result, type ToolContext } from '../core';

/** The batch run a call belongs to: where its progress goes and is counted. */
export interface DrainSource {
  drained(index: number): Promise<void>;
  /** A progress update of job `index`. */
  progressOf(index: number, update: Result): void;
}

/**
 * The call a job's tool receives: the job's call with the executor's own progress
 * forwarder. It remembers its run so {@link progressTaken} can find the job.
 */
export class ExecutorCall implements Call {
  readonly id: string;
  readonly idempotencyKey?: string;
  readonly value?: JsonValue;
  readonly #call: Call;
  readonly #run: DrainSource;
  readonly #index: number;
  #onUpdate: ((update: Result) => void) | undefined;

  constructor(call: Call, run: DrainSource, index: number) {
    this.id = call.id;
    this.#call = call;
    if (call.idempotencyKey !== undefined) this.idempotencyKey = call.idempotencyKey;
    // Arguments a harness already decoded pass on as they are; their text is built
    // only if someone reads it.
    if (call.value !== undefined) this.value = call.value;
    this.#run = run;
    this.#index = index;
  }

  /** The executor's progress forwarder (made when first asked for: most tools report none). */
  get onUpdate(): (update: Result) => void {
    return (this.#onUpdate ??= (update) => this.#run.progressOf(this.#index, update));
  }

  get args(): string {
    return this.#call.args;
  }

  /** The index of `call`'s job when it is a job of `run`, else undefined. */
  static indexIn(call: Call, run: DrainSource): number | undefined {
    return call instanceof ExecutorCall && call.#run === run ? call.#index : undefined;
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
