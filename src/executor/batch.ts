// Core's files, not its index: a CommonJS index re-exports through getters on an object
// V8 keeps in dictionary mode, about 8 ns per call, and these run for every job.
import { type Call, contextForCall, type ToolContext } from '../core/context';
import { contextRunner, type ContextRunner } from '../core/current-context';
import { AgentToolError, CancelledError, PanicError, toolFailure } from '../core/errors';
import { goQuote } from '../core/quote';
import { type Result } from '../core/result';
import { type Tool } from '../core/tool';
import { BatchTelemetry } from './batch-telemetry';
import { type ChainLinks } from './chains';
import { type DrainSource, ExecutorCall } from './executor-call';
import { cancelled, isThenable, onStartFailure, stoppedBy } from './failures';
import { Fifo } from './fifo';
import { Handover } from './handover';
import { ProgressQueue, type QueuedEvent } from './progress-queue';
import { type ExecutorEvent, type ExecutorRun, type Job, type OnStart } from './types';

/** What one batch runs with, settled by the executor before the run starts. */
export interface BatchPlan {
  readonly jobs: readonly Job[];
  readonly chains: ChainLinks;
  readonly limit: number;
  readonly progressBuffer: number;
  readonly context: ToolContext;
  readonly recorder: ToolContext['recorder'];
  readonly onStart: OnStart | undefined;
  readonly signals: readonly AbortSignal[];
}

const NEW = 0;
const RUNNING = 1;
const CLOSED = 2;

type Step = IteratorResult<ExecutorEvent, undefined>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One batch being run: an async iterator of its events for one `for await` loop. It
 * starts on the first `next()`. A final event is handed over when the `next()` that
 * carries it resolves; right after the consumer's continuation has had its turn, the
 * job's slot is released and the next job of its chain may be handed to its tool, as
 * the Go binding releases them once the consumer has received the final, while its loop
 * body still runs.
 */
export class BatchRun implements ExecutorRun, DrainSource {
  readonly #plan: BatchPlan;
  readonly #jobs: readonly Job[];
  readonly #n: number;
  readonly #limit: number;
  readonly #controller = new AbortController();
  /** What every job's context is made from: the batch's context, signal and recorder. */
  #jobBase: ToolContext;
  /** The batch's spans and metrics; undefined unless OpenTelemetry is set up. */
  #telemetry: BatchTelemetry | undefined;
  /** Runs a job's onStart and tool with its context current (made where the batch was). */
  readonly #runIn: ContextRunner = contextRunner();
  #state = NEW;

  /**
   * Jobs that wait for a slot, having their turn in their chain, in the order they asked:
   * a job asks once at most, so `n` places hold every job that will ever wait.
   */
  readonly #wanting: Int32Array;
  #wantHead = 0;
  #wantTail = 0;
  #active = 0;

  /** Per job: holds a slot; has its final. */
  readonly #holdsSlot: Uint8Array;
  readonly #settled: Uint8Array;
  /** Made at the batch's first progress update (most batches report none). */
  #progressState: ProgressQueue | undefined;

  readonly #ready = new Fifo<QueuedEvent>();
  #finalsDelivered = 0;
  /** When a final's slot and turn are given back (see Handover). */
  readonly #handover: Handover;
  /** The consumer's pending next(), when it waits for an event. */
  #waiter: ((step: Step | Promise<Step>) => void) | undefined;
  #waiting: Promise<Step> | undefined;
  /** The batch signal is aborted (kept as a field: it is read on every start). */
  #aborted = false;

  /** Jobs in onStart or in their tool; `return()` waits for them. */
  #inflight = 0;
  #idle: Promise<void> | undefined;
  #onIdle: (() => void) | undefined;
  #unlink: (() => void)[] = [];

  constructor(plan: BatchPlan) {
    this.#plan = plan;
    const n = plan.jobs.length;
    this.#jobs = plan.jobs;
    this.#n = n;
    this.#limit = plan.limit;
    this.#wanting = new Int32Array(n);
    this.#holdsSlot = new Uint8Array(n);
    this.#settled = new Uint8Array(n);
    this.#handover = new Handover(
      {
        isRunning: () => this.#state === RUNNING,
        release: (i) => this.#release(i),
        released: () => this.#pump(),
      },
      n,
    );
    const signal = this.#controller.signal;
    const recorder = plan.recorder;
    this.#jobBase = plan.context.with(recorder === undefined ? { signal } : { signal, recorder });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<Step> {
    // One loop calls next() after the previous one settled; a call made while another
    // still waits is served after it.
    const waiting = this.#waiting;
    if (waiting !== undefined) return waiting.then(() => this.next());
    if (this.#state === NEW) this.#start();
    else this.#handover.consumerReturned();
    const event = this.#state === CLOSED ? undefined : this.#ready.shift();
    if (event === undefined) return this.#finished() ? Promise.resolve(DONE) : this.#wait();
    if (!event.final) {
      const step = this.#deliverProgress(event);
      return isThenable(step) ? step : Promise.resolve(step);
    }
    this.#handOver(event.index);
    // The consumer attaches its continuation once this returns. The step is made here, in
    // sight of Promise.resolve, which then need not look for a `then` on it.
    this.#handover.ensurePass(2);
    return Promise.resolve({ done: false, value: event as ExecutorEvent });
  }

  /**
   * Leaves the batch: aborts every running call's signal, starts nothing more, and
   * settles once every running tool (and onStart) has returned.
   */
  async return(): Promise<Step> {
    if (this.#state !== CLOSED) {
      const running = this.#state === RUNNING;
      this.#close();
      if (running) {
        this.#aborted = true;
        this.#controller.abort(
          new CancelledError('agenttool: the batch was abandoned: its consumer left the loop'),
        );
      }
    }
    if (this.#inflight > 0) {
      this.#idle ??= new Promise<void>((resolve) => (this.#onIdle = resolve));
      await this.#idle;
    }
    this.#unlinkSignals();
    return DONE;
  }

  /** A progress update of job `index`, from its call's `onUpdate`. */
  progressOf(index: number, update: Result): void {
    this.#progress(index, update);
  }

  /** See {@link progressTaken}. */
  drained(index: number): Promise<void> {
    const progress = this.#progressState;
    if (progress === undefined || this.#state === CLOSED) return Promise.resolve();
    return progress.drained(index);
  }

  /**
   * True when the batch has nothing more to yield (closed, or every final delivered,
   * which closes it); called when no event is ready.
   */
  #finished(): boolean {
    if (this.#state === CLOSED) return true;
    if (this.#finalsDelivered !== this.#n) return false;
    this.#close();
    this.#unlinkSignals();
    return true;
  }

  #wait(): Promise<Step> {
    const waiting = new Promise<Step>((resolve) => (this.#waiter = resolve));
    this.#waiting = waiting;
    return waiting;
  }

  /** Job `i`'s final goes to the consumer: its slot and turn are released after (see Handover). */
  #handOver(i: number): void {
    this.#finalsDelivered++;
    this.#handover.handedOver(i);
  }

  /** Hands progress `event` to the consumer, calling the job's own progress callback first. */
  #deliverProgress(event: QueuedEvent): Step | Promise<Step> {
    this.#took(event);
    const onUpdate = this.#jobs[event.index]?.call.onUpdate;
    if (onUpdate !== undefined) {
      try {
        onUpdate(event.result as Result);
      } catch (error) {
        // The caller's own callback failed: end the batch as a throwing loop body would.
        return this.return().then(() => Promise.reject(error as Error));
      }
    }
    return { done: false, value: event as ExecutorEvent };
  }

  #start(): void {
    this.#state = RUNNING;
    const telemetry = BatchTelemetry.start(this.#plan, this);
    if (telemetry !== undefined) {
      this.#telemetry = telemetry;
      this.#jobBase = telemetry.jobBase(this.#jobBase);
    }
    for (const signal of this.#plan.signals) {
      if (signal.aborted) {
        this.#abort(signal.reason);
        break;
      }
      const onAbort = (): void => this.#abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#unlink.push(() => signal.removeEventListener('abort', onAbort));
    }
    // Every chain's first job asks for a slot, in the chains' order (as #want would, one
    // copy for them all: this runs once per batch, before the JIT has made it fast).
    const heads = this.#plan.chains.heads;
    if (this.#aborted) {
      for (let k = 0; k < heads.length; k++) {
        this.#complete(heads[k] as number, undefined, undefined);
      }
    } else {
      this.#wanting.set(heads);
      this.#wantTail = heads.length;
      const telemetry = this.#telemetry;
      if (telemetry !== undefined) {
        for (let k = this.#limit; k < heads.length; k++) {
          telemetry.waitingForSlot(heads[k] as number);
        }
      }
    }
    this.#pump();
  }

  /** The consumer has job `i`'s final: free its slot and move its chain on. */
  #release(i: number): void {
    if (this.#holdsSlot[i] === 1) {
      this.#holdsSlot[i] = 0;
      this.#active--;
    }
    const next = this.#plan.chains.next[i] as number;
    if (next !== -1) this.#want(next);
  }

  /** Job `i` has its turn and asks for a slot; after cancellation it completes at once. */
  #want(i: number): void {
    if (this.#aborted) return this.#complete(i, undefined, undefined);
    this.#wanting[this.#wantTail++] = i;
    const telemetry = this.#telemetry;
    if (telemetry !== undefined && this.#active + this.#wantTail - this.#wantHead > this.#limit) {
      telemetry.waitingForSlot(i);
    }
  }

  #pump(): void {
    while (this.#active < this.#limit && this.#wantHead < this.#wantTail) {
      const i = this.#wanting[this.#wantHead++] as number;
      this.#active++;
      this.#holdsSlot[i] = 1;
      this.#begin(i);
    }
  }

  #abort(reason: unknown): void {
    if (this.#state !== RUNNING || this.#aborted) return;
    this.#aborted = true;
    this.#controller.abort(reason);
    // Jobs still waiting for a slot never start: they complete cancelled now.
    while (this.#wantHead < this.#wantTail) {
      this.#complete(this.#wanting[this.#wantHead++] as number, undefined, undefined);
    }
  }

  /** Job `i` took its slot and its turn: hand it to onStart and its tool. */
  #begin(i: number): void {
    const job = this.#jobs[i] as Job;
    if (this.#aborted) return this.#complete(i, undefined, undefined);
    const tool = job.tool;
    if (tool === undefined || tool === null) {
      const error = new AgentToolError('NO_TOOL', `no tool for call ${goQuote(job.call.id)}`);
      return this.#complete(i, undefined, error);
    }
    const call = new ExecutorCall(job.call, this, i);
    const ctx = contextForCall(this.#jobBase, call);
    this.#inflight++;
    const telemetry = this.#telemetry;
    telemetry?.started(i, tool, ctx);
    const onStart = this.#plan.onStart;
    if (onStart === undefined) return this.#execute(i, tool, call, ctx);
    let started: void | Promise<void>;
    try {
      started =
        telemetry === undefined
          ? this.#runIn.run(ctx, () => onStart({ tool, call }, ctx))
          : this.#runIn.run(ctx, () => telemetry.within(i, () => onStart({ tool, call }, ctx)));
      if (isThenable(started)) {
        // Settles once, whatever the thenable does (see #execute).
        Promise.resolve(started).then(
          () => this.#execute(i, tool, call, ctx),
          (thrown: unknown) => this.#refused(i, call.id, thrown),
        );
        return;
      }
    } catch (thrown) {
      return this.#refused(i, call.id, thrown);
    }
    this.#execute(i, tool, call, ctx);
  }

  #execute(i: number, tool: Tool, call: Call, ctx: ToolContext): void {
    let out: Result | Promise<Result>;
    const telemetry = this.#telemetry;
    try {
      // The job's span is made current inside the runner, whose scope would hide it.
      out =
        telemetry === undefined
          ? this.#runIn.execute(ctx, tool, call)
          : this.#runIn.run(ctx, () => telemetry.within(i, () => tool.execute(call, ctx)));
      if (isThenable(out)) {
        // Promise.resolve hands a promise back as it is, and makes any other thenable
        // settle once (a `then` that calls back twice, or throws): one final per job.
        Promise.resolve(out).then(
          (result) => this.#settleResult(i, tool, result),
          (thrown: unknown) => this.#failed(i, tool, call.id, thrown),
        );
        return;
      }
    } catch (thrown) {
      return this.#failed(i, tool, call.id, thrown);
    }
    this.#settleResult(i, tool, out);
  }

  /** Job `i`'s tool threw `thrown`: the batch's cancellation, its own error, or a panic. */
  #failed(i: number, tool: Tool, id: string, thrown: unknown): void {
    const signal = this.#controller.signal;
    this.#settle(i, undefined, stoppedBy(thrown, signal, id) ?? toolFailure(tool.name, thrown));
  }

  /** Job `i`'s onStart threw `thrown`: the batch's cancellation, or a refusal of the job. */
  #refused(i: number, id: string, thrown: unknown): void {
    const signal = this.#controller.signal;
    this.#settle(i, undefined, stoppedBy(thrown, signal, id) ?? onStartFailure(id, thrown));
  }

  #settleResult(i: number, tool: Tool, result: unknown): void {
    if (typeof result === 'object' && result !== null) {
      return this.#settle(i, result as Result, undefined);
    }
    const fault = new TypeError(`execute returned ${String(result)} instead of a Result`);
    this.#settle(i, undefined, new PanicError(tool.name, fault));
  }

  #settle(i: number, result: Result | undefined, error: Error | undefined): void {
    this.#complete(i, result, error);
    if (--this.#inflight === 0 && this.#onIdle !== undefined) {
      this.#onIdle();
      this.#onIdle = undefined;
    }
  }

  /** Queues job `i`'s final event; neither result nor error means it was cancelled. */
  #complete(i: number, result: Result | undefined, error: Error | undefined): void {
    this.#settled[i] = 1;
    this.#progressState?.finished(i);
    if (this.#state !== RUNNING) {
      this.#telemetry?.final(i, result, error);
      return;
    }
    if (result !== undefined) {
      this.#telemetry?.final(i, result, undefined);
      this.#push({ index: i, final: true, result });
    } else {
      const failure = error ?? cancelled(this.#jobs[i]?.call.id ?? '', this.#controller.signal);
      this.#telemetry?.final(i, undefined, failure);
      this.#push({ index: i, final: true, error: failure });
    }
  }

  /**
   * A progress update of job `i`, queued as {@link ProgressQueue} says (bounded, the
   * newest kept). Dropped after the job's final or the batch's end. A tool that must not
   * lose updates awaits {@link progressTaken}.
   */
  #progress(i: number, update: Result): void {
    if (this.#settled[i] === 1 || this.#state !== RUNNING) return;
    this.#telemetry?.progress(i, update);
    const progress = (this.#progressState ??= new ProgressQueue(
      this.#n,
      this.#plan.progressBuffer,
    ));
    const event = progress.offer(i, update);
    if (event !== undefined) this.#push(event);
  }

  /** The consumer took progress `event` (so the progress state exists). */
  #took(event: QueuedEvent): void {
    (this.#progressState as ProgressQueue).took(event);
  }

  #push(event: QueuedEvent): void {
    const waiter = this.#waiter;
    if (waiter === undefined) {
      this.#ready.push(event);
      return;
    }
    this.#waiter = undefined;
    this.#waiting = undefined;
    if (event.final) {
      // The consumer is waiting: hand the final over now.
      this.#handOver(event.index);
      waiter({ done: false, value: event as ExecutorEvent });
      this.#handover.ensurePass(1);
    } else if (this.#jobs[event.index]?.call.onUpdate === undefined) {
      // Nothing of the caller's runs first: hand it over now.
      waiter(this.#deliverProgress(event));
    } else {
      // The caller's callback runs when the consumer takes the event, not inside the
      // tool's progress() call.
      this.#ready.push(event);
      waiter(Promise.resolve().then(() => this.#takeQueued()));
    }
  }

  /** The step after the caller's callback was put off: the event queued, or what comes now. */
  #takeQueued(): Step | Promise<Step> {
    if (this.#state === CLOSED) return DONE;
    const event = this.#ready.shift();
    if (event === undefined) return this.#finished() ? DONE : this.#wait();
    if (!event.final) return this.#deliverProgress(event);
    this.#handOver(event.index);
    return { done: false, value: event as ExecutorEvent };
  }

  #close(): void {
    this.#state = CLOSED;
    this.#telemetry?.end(this.#aborted || this.#finalsDelivered < this.#n);
    this.#ready.clear();
    this.#progressState?.releaseAll();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#waiting = undefined;
    waiter?.(DONE);
  }

  #unlinkSignals(): void {
    for (const unlink of this.#unlink) unlink();
    this.#unlink = [];
  }
}
