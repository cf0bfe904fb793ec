/**
 * A batch as OpenTelemetry sees it, with the SDK's in-memory exporter: one span for the
 * batch and a child per job, each job's schedule as events (queued, waiting on a chain
 * or a slot, started, progress, asked and answered, final), the job's resource,
 * sequential flag and confinement as attributes, a cancelled job's span saying so, and
 * the executor's queue-time histogram.
 */
import { trace } from '@opentelemetry/api';
import { type ReadableSpan, type TimedEvent } from '@opentelemetry/sdk-trace-base';
import {
  createContext,
  Executor,
  type Job,
  newTool,
  ProgressInfo,
  text,
  type Tool,
} from 'agenttool';
import { describeSpans, setUpTelemetry, type Telemetry } from './otel';

let otel: Telemetry;
beforeEach(() => (otel = setUpTelemetry()));
afterEach(() => otel.shutdown());

function jobOf(tool: Tool, id: string, args: unknown = {}): Job {
  return { tool, call: { id, args: JSON.stringify(args) } };
}

function jobSpan(spans: readonly ReadableSpan[], id: string): ReadableSpan {
  const found = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === id);
  if (found === undefined) throw new Error(`no span of call ${id}:\n${describeSpans(spans)}`);
  return found;
}

function names(span: ReadableSpan): string[] {
  return span.events.map((e) => e.name);
}

function seq(event: TimedEvent | undefined): number {
  return event?.attributes?.['agenttool.event.seq'] as number;
}

function eventOf(span: ReadableSpan, name: string): TimedEvent {
  const found = span.events.find((e) => e.name === name);
  if (found === undefined)
    throw new Error(`${span.name} has no ${name} event: ${names(span).join(', ')}`);
  return found;
}

test('a batch is a span with a child span per job, named and attributed as the conventions say', async () => {
  const write = newTool({
    name: 'write',
    resource: 'file:notes',
    confined: () => ({ confined: true, by: 'workspace' }),
    execute: () => text('written'),
  });
  const look = newTool({ name: 'look', execute: () => text('seen') });
  const executor = new Executor({ maxParallel: 4 });
  const outcomes = await executor.results([jobOf(write, 'call_w'), jobOf(look, 'call_l')]);
  expect(outcomes.map((o) => o.result?.output)).toEqual(['written', 'seen']);

  const spans = otel.spans();
  const batch = spans.find((s) => s.name === 'agenttool.batch');
  expect(batch).toBeDefined();
  expect(batch?.attributes).toMatchObject({
    'agenttool.batch.size': 2,
    'agenttool.batch.bound': 4,
    'agenttool.batch.chains': 2,
  });
  const w = jobSpan(spans, 'call_w');
  expect(w.name).toBe('execute_tool write');
  expect(w.parentSpanContext?.spanId).toBe(batch?.spanContext().spanId);
  expect(w.spanContext().traceId).toBe(batch?.spanContext().traceId);
  expect(w.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'write',
    'gen_ai.tool.call.id': 'call_w',
    'agenttool.job.resource': 'file:notes',
    'agenttool.job.sequential': false,
    'agenttool.job.confined': true,
    'agenttool.job.confined_by': 'workspace',
    'agenttool.job.outcome': 'ok',
  });
  expect(names(w)).toEqual(['queued', 'started', 'final']);
  const l = jobSpan(spans, 'call_l');
  expect(l.attributes['agenttool.job.confined']).toBe(false);
  expect(l.attributes['agenttool.job.resource']).toBe('');
});

test('a chain waits in model order: each job waits for the one before it, and starts after it', async () => {
  const order: string[] = [];
  const step = newTool({
    name: 'step',
    resource: 'shell:session',
    execute: async (call) => {
      order.push(call.id);
      await new Promise((resolve) => setImmediate(resolve));
      return text(call.id);
    },
  });
  const free = newTool({ name: 'free', execute: () => text('free') });
  const jobs = [
    jobOf(step, 's1'),
    jobOf(free, 'f1'),
    jobOf(step, 's2'),
    jobOf(step, 's3'),
    jobOf(free, 'f2'),
  ];
  await new Executor().results(jobs);
  expect(order).toEqual(['s1', 's2', 's3']);

  const spans = otel.spans();
  const [s1, s2, s3] = ['s1', 's2', 's3'].map((id) => jobSpan(spans, id)) as [
    ReadableSpan,
    ReadableSpan,
    ReadableSpan,
  ];
  expect(names(s1)).toEqual(['queued', 'started', 'final']);
  for (const [span, after, index] of [
    [s2, 's1', 0],
    [s3, 's2', 2],
  ] as const) {
    expect(names(span)).toEqual(['queued', 'waiting', 'started', 'final']);
    expect(eventOf(span, 'waiting').attributes).toMatchObject({
      'agenttool.wait.on': 'chain',
      'agenttool.wait.resource': 'shell:session',
      'agenttool.wait.after_call_id': after,
      'agenttool.wait.after_index': index,
    });
  }
  // The waits are told in model order, and each job starts only after its predecessor's final.
  expect(seq(eventOf(s2, 'waiting'))).toBeLessThan(seq(eventOf(s3, 'waiting')));
  expect(seq(eventOf(s1, 'final'))).toBeLessThan(seq(eventOf(s2, 'started')));
  expect(seq(eventOf(s2, 'final'))).toBeLessThan(seq(eventOf(s3, 'started')));
  // The free jobs waited on nothing.
  expect(names(jobSpan(spans, 'f2'))).toEqual(['queued', 'started', 'final']);
});

test('a job past the bound waits for a slot, and the event says which bound', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow = newTool({
    name: 'slow',
    execute: async () => {
      await gate;
      return text('done');
    },
  });
  const running = new Executor({ maxParallel: 2 }).results(
    ['a', 'b', 'c'].map((id) => jobOf(slow, id)),
  );
  setImmediate(release);
  await running;
  const spans = otel.spans();
  expect(names(jobSpan(spans, 'a'))).toEqual(['queued', 'started', 'final']);
  const c = jobSpan(spans, 'c');
  expect(names(c)).toEqual(['queued', 'waiting', 'started', 'final']);
  expect(eventOf(c, 'waiting').attributes).toMatchObject({
    'agenttool.wait.on': 'slot',
    'agenttool.wait.bound': 2,
  });
});

test('progress updates and questions are events of the job, in the order they happened', async () => {
  const asking = newTool({
    name: 'asking',
    execute: async (_call, ctx) => {
      ctx.progress(new ProgressInfo(1, 3, 'reading'));
      ctx.progress('half way');
      const answer = await ctx.ask({ message: 'Go on?' });
      ctx.progress(new ProgressInfo(3, 3, 'done'));
      return text(answer.action);
    },
  });
  const context = createContext({ elicitor: () => ({ action: 'accept', content: {} }) });
  const outcomes = await new Executor().results([jobOf(asking, 'q1')], { context });
  expect(outcomes[0]?.result?.output).toBe('accept');
  const span = jobSpan(otel.spans(), 'q1');
  expect(names(span)).toEqual([
    'queued',
    'started',
    'progress',
    'progress',
    'asked',
    'answered',
    'progress',
    'final',
  ]);
  const progress = span.events.filter((e) => e.name === 'progress');
  expect(progress[0]?.attributes).toMatchObject({
    'agenttool.progress.value': 1,
    'agenttool.progress.total': 3,
    'agenttool.progress.message': 'reading',
  });
  expect(progress[1]?.attributes?.['agenttool.progress.message']).toBe('half way');
  expect(eventOf(span, 'asked').attributes?.['agenttool.ask.message']).toBe('Go on?');
  expect(eventOf(span, 'answered').attributes?.['agenttool.ask.action']).toBe('accept');
  const seqs = span.events.map(seq);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
});

test("a cancelled job's span says so: one stopped while it ran, one that never started", async () => {
  const controller = new AbortController();
  const step = newTool({
    name: 'step',
    resource: 'r',
    execute: (_call, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        controller.abort();
      }),
  });
  const outcomes = await new Executor().results([jobOf(step, 'first'), jobOf(step, 'second')], {
    signal: controller.signal,
  });
  expect(outcomes[1]?.error?.message).toBe('context canceled');
  const spans = otel.spans();
  const first = jobSpan(spans, 'first');
  expect(first.attributes).toMatchObject({
    'agenttool.job.outcome': 'error',
    'agenttool.job.started': true,
  });
  expect(first.status).toMatchObject({ code: 2, message: 'stopped' });
  const second = jobSpan(spans, 'second');
  expect(second.attributes).toMatchObject({
    'agenttool.job.outcome': 'cancelled',
    'agenttool.job.cancelled': true,
    'agenttool.job.started': false,
    'error.type': 'cancelled',
  });
  expect(second.status).toMatchObject({ code: 2, message: 'context canceled' });
  expect(names(second)).toEqual(['queued', 'waiting', 'final']);
  expect(eventOf(second, 'final').attributes?.['agenttool.job.outcome']).toBe('cancelled');
  const batch = spans.find((s) => s.name === 'agenttool.batch');
  expect(batch?.attributes['agenttool.batch.cancelled']).toBe(true);
});

test('leaving the loop early ends the batch span cancelled and every job span', async () => {
  const waits = newTool({
    name: 'waits',
    execute: (_call, ctx) =>
      new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(text('late')))),
  });
  const quick = newTool({ name: 'quick', execute: () => text('quick') });
  for await (const event of new Executor().execute([jobOf(quick, 'q'), jobOf(waits, 'w')])) {
    if (event.final) break;
  }
  const spans = otel.spans();
  expect(spans.filter((s) => s.name.startsWith('execute_tool')).length).toBe(2);
  expect(spans.find((s) => s.name === 'agenttool.batch')?.attributes).toMatchObject({
    'agenttool.batch.cancelled': true,
  });
});

test("a tool's own spans are children of its job's span", async () => {
  const traced = newTool({
    name: 'traced',
    execute: async () => {
      await Promise.resolve();
      trace.getTracer('tool').startSpan('inside').end();
      return text('ok');
    },
  });
  await new Executor().results([jobOf(traced, 't1')]);
  const spans = otel.spans();
  const inside = spans.find((s) => s.name === 'inside');
  expect(inside?.parentSpanContext?.spanId).toBe(jobSpan(spans, 't1').spanContext().spanId);
});

test('the executor times each job in its queue and at work', async () => {
  const step = newTool({ name: 'step', resource: 'r', execute: () => text('ok') });
  await new Executor().results([jobOf(step, 'a'), jobOf(step, 'b'), jobOf(step, 'c')]);
  const collected = await otel.metrics();
  const queue = collected.get('agenttool.executor.queue.duration');
  expect(queue?.descriptor.unit).toBe('s');
  const points = queue?.dataPoints ?? [];
  expect(points).toHaveLength(1);
  expect(points[0]?.attributes).toEqual({ 'gen_ai.tool.name': 'step' });
  expect((points[0]?.value as { count: number }).count).toBe(3);
  const run = collected.get('agenttool.executor.job.duration');
  expect((run?.dataPoints[0]?.value as { count: number }).count).toBe(3);
});
