import {
  AgentToolError,
  errorMessage,
  goQuote,
  recordOf,
  type Result,
  type ToolContext,
  type ToolRecord,
} from '../core';
import { Executor } from './executor';
import { type ExecutorEvent, type Job, type JobOutcome } from './types';

/** Runs one gathered batch: an executor's `execute`, or an app's. */
export type RunBatch = (
  jobs: readonly Job[],
  signal: AbortSignal | undefined,
) => AsyncIterable<ExecutorEvent>;

/** How a {@link CallBatcher} runs the batches it gathers. */
export interface CallBatcherOptions {
  /** Runs a batch; by default `executor`'s `execute` with `context`. */
  readonly run?: RunBatch | undefined;
  /** The executor of the default `run`; a new `Executor()` (bound 8) by default. */
  readonly executor?: Executor | undefined;
  /**
   * The host's context: the calls run with it (default `run`: its recorder takes what a
   * tool records, its elicitor the questions), and the Recordable details of each result
   * are written through its recorder before the call's outcome is handed back, as a host
   * writes them. A recorder that fails makes that failure the call's outcome.
   */
  readonly context?: ToolContext | undefined;
}

/** What the loop knows about one call it hands over. */
export interface HandOver {
  /**
   * The model turn the call belongs to: any object the loop gives every call of one
   * turn (and a new one for the next). Calls of one step are batched together; without
   * a step, calls handed over in the same turn of the event loop are.
   */
  readonly step?: object | undefined;
  /** The call's own signal; the batch is cancelled when any of its calls' signals aborts. */
  readonly signal?: AbortSignal | undefined;
}

interface Waiting {
  readonly job: Job;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (outcome: JobOutcome) => void;
}

/** The calls of one step gathered so far, until the batch is released. */
interface Gathering {
  /** Each call id announced before its call arrives, by its place in the model's order. */
  readonly announced: Map<string, number>;
  /** The ids of the calls handed over. */
  readonly arrived: Set<string>;
  /** How many announced calls have been handed over. */
  announcedArrived: number;
  /** The calls handed over, in arrival order. */
  readonly waiting: Waiting[];
  released: boolean;
  timer: NodeJS.Immediate | undefined;
}

/**
 * Gathers the calls that an agent loop hands over one at a time (a tool's `execute` per
 * call) back into the batch the model returned, so that they run by the executor's rules:
 * resource chains in the model's order, sequential tools alone, the bound, records and
 * progress. Each call's promise resolves with its own outcome as soon as it completes.
 *
 * A batch is released as soon as every call announced (`announce`) for its step has been
 * handed over, or else once the event loop has finished its current turn (the loop has
 * then handed over every call it hands over at once). Calls that arrive later form a
 * batch of their own: a batch orders nothing against another one.
 */
export class CallBatcher {
  readonly #steps = new WeakMap<object, Gathering>();
  readonly #run: RunBatch;
  readonly #context: ToolContext | undefined;
  /** The step of calls handed over without one. */
  readonly #unnamed = {};

  constructor(options: CallBatcherOptions = {}) {
    const context = options.context;
    this.#context = context;
    if (options.run !== undefined) {
      this.#run = options.run;
    } else {
      const executor = options.executor ?? new Executor();
      this.#run = (jobs, signal) =>
        executor.execute(jobs, context === undefined ? { signal } : { signal, context });
    }
  }

  /**
   * Announces a call of `step` before the loop hands it over (a hook the loop calls for
   * each call in the model's order, before it executes any). The batch then runs the
   * calls in the order they were announced, and starts the moment the last announced
   * call is handed over. An announced call that never arrives (the loop did not execute
   * it) is left out.
   */
  announce(step: object, callId: string): void {
    const gathering = this.#gathering(step);
    if (gathering.announced.has(callId)) return;
    gathering.announced.set(callId, gathering.announced.size);
    if (gathering.arrived.has(callId)) gathering.announcedArrived++;
  }

  /**
   * Hands over one call and resolves with how it ended once it ran in its batch: its
   * result, or the error it failed with (never a rejection for the tool's failure).
   * Progress reaches the call's own `onUpdate`, as the executor delivers it.
   */
  run(job: Job, handOver: HandOver = {}): Promise<JobOutcome> {
    const step = handOver.step ?? this.#unnamed;
    const gathering = this.#gathering(step);
    const outcome = new Promise<JobOutcome>((resolve) => {
      gathering.waiting.push({ job, signal: handOver.signal, resolve });
    });
    const id = job.call.id;
    if (!gathering.arrived.has(id)) {
      gathering.arrived.add(id);
      if (gathering.announced.has(id)) gathering.announcedArrived++;
    }
    if (everyAnnouncedArrived(gathering)) this.#release(step, gathering);
    else gathering.timer ??= setImmediate(() => this.#release(step, gathering));
    return outcome;
  }

  #gathering(step: object): Gathering {
    const open = this.#steps.get(step);
    if (open !== undefined && !open.released) return open;
    const gathering: Gathering = {
      announced: new Map(),
      arrived: new Set(),
      announcedArrived: 0,
      waiting: [],
      released: false,
      timer: undefined,
    };
    this.#steps.set(step, gathering);
    return gathering;
  }

  #release(step: object, gathering: Gathering): void {
    if (gathering.released) return;
    gathering.released = true;
    if (gathering.timer !== undefined) clearImmediate(gathering.timer);
    if (this.#steps.get(step) === gathering) this.#steps.delete(step);
    // Announced calls in their announced order, then the others as they arrived.
    const rank = (waiting: Waiting, arrival: number): number =>
      gathering.announced.get(waiting.job.call.id) ?? gathering.announced.size + arrival;
    const ordered = gathering.waiting
      .map((waiting, arrival) => ({ waiting, rank: rank(waiting, arrival) }))
      .sort((a, b) => a.rank - b.rank)
      .map((entry) => entry.waiting);
    void this.#drive(ordered);
  }

  async #drive(batch: readonly Waiting[]): Promise<void> {
    const settled = new Set<number>();
    const signals = [...new Set(batch.flatMap((w) => (w.signal === undefined ? [] : [w.signal])))];
    const signal = signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
    let failure: unknown;
    try {
      const events = this.#run(
        batch.map((w) => w.job),
        signal,
      );
      for await (const event of events) {
        const waiting = batch[event.index];
        if (!event.final || waiting === undefined || settled.has(event.index)) continue;
        settled.add(event.index);
        if (event.error !== undefined) waiting.resolve({ error: event.error });
        else this.#handBack(waiting, event.result);
      }
    } catch (error) {
      failure = error;
    }
    batch.forEach((waiting, index) => {
      if (settled.has(index)) return;
      const reason = failure === undefined ? 'no final event for it' : errorMessage(failure);
      waiting.resolve({
        error: new AgentToolError(
          'INTERNAL',
          `agenttool: call ${goQuote(waiting.job.call.id)}: its batch ended without it: ${reason}`,
        ),
      });
    });
  }

  /**
   * Hands `result` back to its call once its Recordable details are written through the
   * host's recorder, as a host writes them; a record that cannot be made or written is
   * the call's outcome instead. Each call's write is its own: a slow or failing one holds
   * back no other call of the batch (a recorder may be called concurrently).
   */
  #handBack(waiting: Waiting, result: Result): void {
    const context = this.#context;
    const recorder = context?.recorder;
    let record: ToolRecord | undefined;
    try {
      record = recorder === undefined ? undefined : recordOf(result.details);
    } catch (error) {
      waiting.resolve({ error: asError(error) });
      return;
    }
    if (context === undefined || recorder === undefined || record === undefined) {
      waiting.resolve({ result });
      return;
    }
    const written = record;
    void (async () => recorder(written, context.with({ call: waiting.job.call })))().then(
      () => waiting.resolve({ result }),
      (error: unknown) => waiting.resolve({ error: asError(error) }),
    );
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function everyAnnouncedArrived(gathering: Gathering): boolean {
  return gathering.announced.size > 0 && gathering.announcedArrived === gathering.announced.size;
}
