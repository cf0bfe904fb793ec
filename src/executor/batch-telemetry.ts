// Core's files, not its index: see batch.ts.
import { type Call, type Elicitor, type ToolContext } from '../core/context';
import { CancelledError } from '../core/errors';
import { ProgressInfo, type Result } from '../core/result';
import { meteringApi, type Otel, tracingApi } from '../core/otel';
import { DURATION_BUCKETS, INSTRUMENTATION_SCOPE, secondsSince } from '../core/telemetry';
import * as N from '../core/telemetry-names';
import { confinedBy, isSequential, resourceOf, type Tool } from '../core/tool';
import { type ChainLinks } from './chains';
import { type DrainSource, ExecutorCall } from './executor-call';
import { type Job } from './types';

type Span = import('@opentelemetry/api').Span;
type Context = import('@opentelemetry/api').Context;
type Attributes = import('@opentelemetry/api').Attributes;
type Histogram = import('@opentelemetry/api').Histogram;

/** What a batch's telemetry needs to know of the batch. */
export interface BatchShape {
  readonly jobs: readonly Job[];
  readonly chains: ChainLinks;
  readonly limit: number;
}

/** The most of a progress message or a question an event carries (characters). */
const TEXT_LIMIT = 256;

interface Instruments {
  readonly queue: Histogram;
  readonly run: Histogram;
}

// Made once per meter provider: the provider registered when first asked.
let instruments: { readonly of: unknown; readonly made: Instruments } | undefined;

function instrumentsOf(api: Otel): Instruments {
  const provider = api.metrics.getMeterProvider();
  if (instruments?.of !== provider) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS] };
    instruments = {
      of: provider,
      made: {
        queue: meter.createHistogram(N.METRIC_EXECUTOR_QUEUE_DURATION, {
          unit: 's',
          description:
            'How long a job of a batch waited (for its chain and a slot) before its tool was handed the call.',
          advice,
        }),
        run: meter.createHistogram(N.METRIC_EXECUTOR_JOB_DURATION, {
          unit: 's',
          description: "How long a job's tool ran, from its start to its final.",
          advice,
        }),
      },
    };
  }
  return instruments.made;
}

/**
 * A batch's spans and metrics, made only when OpenTelemetry is set up in the process (a
 * tracer or meter provider registered): one span for the batch, a child per job with an
 * event for each moment of its schedule, and the executor's duration histograms. The
 * batch run calls it at each moment; it never changes what the batch does.
 */
export class BatchTelemetry {
  readonly #shape: BatchShape;
  readonly #run: DrainSource;
  readonly #api: Otel;
  readonly #batch: Span | undefined;
  readonly #batchContext: Context | undefined;
  readonly #spans: (Span | undefined)[];
  readonly #contexts: (Context | undefined)[];
  readonly #instruments: Instruments | undefined;
  readonly #begun: number;
  readonly #startedAt: Float64Array;
  readonly #waitingForSlot: Uint8Array;
  #seq = 0;

  /** The telemetry of a batch starting now, or undefined when nothing would record it. */
  static start(shape: BatchShape, run: DrainSource): BatchTelemetry | undefined {
    const tracing = tracingApi();
    const metering = meteringApi();
    const api = tracing ?? metering;
    if (api === undefined) return undefined;
    return new BatchTelemetry(shape, run, api, tracing !== undefined, metering !== undefined);
  }

  private constructor(
    shape: BatchShape,
    run: DrainSource,
    api: Otel,
    traced: boolean,
    metered: boolean,
  ) {
    this.#shape = shape;
    this.#run = run;
    this.#api = api;
    const n = shape.jobs.length;
    this.#spans = new Array<Span | undefined>(n);
    this.#contexts = new Array<Context | undefined>(n);
    this.#startedAt = new Float64Array(n);
    this.#waitingForSlot = new Uint8Array(n);
    this.#begun = performance.now();
    this.#instruments = metered ? instrumentsOf(api) : undefined;
    if (!traced) return;
    const tracer = api.trace.getTracer(INSTRUMENTATION_SCOPE);
    const serial = n > 1 && shape.chains.heads.length === 1 && isSerial(shape.chains);
    const batch = tracer.startSpan(N.SPAN_BATCH, {
      kind: api.SpanKind.INTERNAL,
      attributes: {
        [N.ATTR_BATCH_SIZE]: n,
        [N.ATTR_BATCH_BOUND]: shape.limit,
        [N.ATTR_BATCH_CHAINS]: shape.chains.heads.length,
        [N.ATTR_BATCH_SERIAL]: serial,
      },
    });
    // A batch nobody samples costs nothing more: its jobs get no spans either.
    if (!batch.isRecording()) return;
    this.#batch = batch;
    this.#batchContext = api.trace.setSpan(api.context.active(), batch);
    this.#queueAll(tracer);
  }

  #queueAll(tracer: import('@opentelemetry/api').Tracer): void {
    const api = this.#api;
    const { jobs, chains } = this.#shape;
    const previous = new Int32Array(jobs.length).fill(-1);
    for (let i = 0; i < jobs.length; i++) {
      const next = chains.next[i] as number;
      if (next !== -1) previous[next] = i;
    }
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i] as Job;
      const tool = job.tool ?? undefined;
      const name = tool?.name ?? '';
      const attributes: Attributes = {
        [N.ATTR_GEN_AI_OPERATION_NAME]: N.EXECUTE_TOOL,
        [N.ATTR_GEN_AI_TOOL_NAME]: name,
        [N.ATTR_GEN_AI_TOOL_CALL_ID]: job.call.id,
        [N.ATTR_JOB_INDEX]: i,
      };
      if (tool !== undefined) {
        attributes[N.ATTR_GEN_AI_TOOL_TYPE] = 'function';
        attributes[N.ATTR_JOB_RESOURCE] = resourceOf(tool);
        attributes[N.ATTR_JOB_SEQUENTIAL] = isSequential(tool);
      }
      const span = tracer.startSpan(
        name === '' ? N.EXECUTE_TOOL : `${N.EXECUTE_TOOL} ${name}`,
        { kind: api.SpanKind.INTERNAL, attributes },
        this.#batchContext,
      );
      this.#spans[i] = span;
      this.#event(span, N.EVENT_QUEUED);
      const after = previous[i] as number;
      if (after !== -1) {
        const before = jobs[after] as Job;
        this.#event(span, N.EVENT_WAITING, {
          [N.ATTR_WAIT_ON]: 'chain',
          [N.ATTR_WAIT_RESOURCE]: tool === undefined ? '' : resourceOf(tool),
          [N.ATTR_WAIT_AFTER]: before.call.id,
          [N.ATTR_WAIT_AFTER_INDEX]: after,
        });
      }
    }
  }

  #event(span: Span, name: string, attributes: Attributes = {}): void {
    attributes[N.ATTR_EVENT_SEQ] = ++this.#seq;
    span.addEvent(name, attributes);
  }

  /** The batch's context with the elicitor wrapped, so each question is an event. */
  jobBase(base: ToolContext): ToolContext {
    const elicitor = base.elicitor;
    if (this.#batch === undefined || elicitor === undefined) return base;
    const asked: Elicitor = async (question, ctx) => {
      const span = this.#spanOfCall(ctx.call);
      if (span !== undefined) {
        this.#event(span, N.EVENT_ASKED, {
          [N.ATTR_ASK_MESSAGE]: clip(question.message),
        });
      }
      const answer = await elicitor(question, ctx);
      if (span !== undefined)
        this.#event(span, N.EVENT_ANSWERED, { [N.ATTR_ASK_ACTION]: answer.action });
      return answer;
    };
    return base.with({ elicitor: asked });
  }

  /** The span of the job whose call `call` is, when it is a job of this batch. */
  #spanOfCall(call: Call): Span | undefined {
    const index = ExecutorCall.indexIn(call, this.#run);
    return index === undefined ? undefined : this.#spans[index];
  }

  /** Job `i` has its turn but finds no free slot: it waits for one. */
  waitingForSlot(i: number): void {
    const span = this.#spans[i];
    if (span === undefined || this.#waitingForSlot[i] === 1) return;
    this.#waitingForSlot[i] = 1;
    this.#event(span, N.EVENT_WAITING, {
      [N.ATTR_WAIT_ON]: 'slot',
      [N.ATTR_WAIT_BOUND]: this.#shape.limit,
    });
  }

  /** Job `i` took its slot and its turn and is handed to onStart and its tool. */
  started(i: number, tool: Tool, ctx: ToolContext): void {
    const now = performance.now();
    this.#startedAt[i] = now;
    this.#instruments?.queue.record((now - this.#begun) / 1000, {
      [N.ATTR_GEN_AI_TOOL_NAME]: tool.name,
    });
    const span = this.#spans[i];
    if (span === undefined) return;
    let confined;
    try {
      confined = confinedBy(tool, ctx.call.args, ctx);
    } catch {
      // The tool's own answer failed; the executor does not ask it, so neither does this.
      confined = undefined;
    }
    if (confined !== undefined) {
      span.setAttribute(N.ATTR_JOB_CONFINED, confined.confined);
      if (confined.confined) span.setAttribute(N.ATTR_JOB_CONFINED_BY, confined.by);
    }
    this.#event(span, N.EVENT_STARTED);
  }

  /** Runs `fn` (the tool, or onStart) with job `i`'s span as the active span. */
  within<T>(i: number, fn: () => T): T {
    const span = this.#spans[i];
    if (span === undefined) return fn();
    let ctx = this.#contexts[i];
    if (ctx === undefined) {
      ctx = this.#api.trace.setSpan(this.#batchContext as Context, span);
      this.#contexts[i] = ctx;
    }
    return this.#api.context.with(ctx, fn);
  }

  /** A progress update of job `i`, as its tool reported it. */
  progress(i: number, update: Result): void {
    const span = this.#spans[i];
    if (span === undefined) return;
    const details = update.details;
    const attributes: Attributes = {};
    if (details instanceof ProgressInfo) {
      attributes[N.ATTR_PROGRESS_VALUE] = details.progress;
      if (details.total > 0) attributes[N.ATTR_PROGRESS_TOTAL] = details.total;
      attributes[N.ATTR_PROGRESS_MESSAGE] = clip(details.message);
    } else if (typeof update.output === 'string') {
      attributes[N.ATTR_PROGRESS_MESSAGE] = clip(update.output);
    }
    this.#event(span, N.EVENT_PROGRESS, attributes);
  }

  /**
   * Job `i` completed: with its result, its error, or (neither) cancelled; `error` is the
   * cancellation's error when it was. Ends its span.
   */
  final(i: number, result: Result | undefined, error: Error | undefined): void {
    const started = this.#startedAt[i] !== 0;
    const job = this.#shape.jobs[i];
    if (started && this.#instruments !== undefined) {
      const attributes: Attributes = { [N.ATTR_GEN_AI_TOOL_NAME]: job?.tool?.name ?? '' };
      if (result === undefined) attributes[N.ATTR_ERROR_TYPE] = errorType(error);
      this.#instruments.run.record(secondsSince(this.#startedAt[i] as number), attributes);
    }
    const span = this.#spans[i];
    if (span === undefined) return;
    this.#spans[i] = undefined;
    const outcome =
      result !== undefined
        ? 'ok'
        : error instanceof CancelledError || error === undefined
          ? 'cancelled'
          : 'error';
    span.setAttribute(N.ATTR_JOB_OUTCOME, outcome);
    span.setAttribute(N.ATTR_JOB_STARTED, started);
    const attributes: Attributes = { [N.ATTR_JOB_OUTCOME]: outcome };
    if (outcome === 'cancelled') span.setAttribute(N.ATTR_JOB_CANCELLED, true);
    if (outcome !== 'ok') {
      const type = errorType(error);
      span.setAttribute(N.ATTR_ERROR_TYPE, type);
      attributes[N.ATTR_ERROR_TYPE] = type;
      span.setStatus({
        code: this.#api.SpanStatusCode.ERROR,
        message: error?.message ?? 'context canceled',
      });
    } else if (result?.terminate === true) {
      attributes['agenttool.result.terminate'] = true;
    }
    this.#event(span, N.EVENT_FINAL, attributes);
    span.end();
  }

  /** The batch is over (every final delivered, or its consumer left): ends its span. */
  end(cancelled: boolean): void {
    const batch = this.#batch;
    if (batch === undefined) return;
    if (cancelled) batch.setAttribute(N.ATTR_BATCH_CANCELLED, true);
    batch.end();
  }
}

function isSerial(chains: ChainLinks): boolean {
  for (let i = 0; i < chains.next.length - 1; i++) if (chains.next[i] !== i + 1) return false;
  return true;
}

function clip(text: string): string {
  return text.length <= TEXT_LIMIT ? text : `${text.slice(0, TEXT_LIMIT)}…`;
}

/** `error.type`: `cancelled`, or the error's class name (`_OTHER` when it has none). */
function errorType(error: Error | undefined): string {
  if (error === undefined || error instanceof CancelledError) return 'cancelled';
  const name = error.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : '_OTHER';
}
