// A batch run with an in-memory exporter and drawn as a trace viewer draws it: one row
// per span, a bar from its start to its end, and its events below it.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Executor, type Job, newTool, type Result, type ToolContext } from 'agenttool';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Three commands on one shell (a chain) and two reads, two tools at a time. */
function jobs(): Job[] {
  const command = newTool({
    name: 'run_command',
    resource: 'shell:session',
    execute: async (_call, ctx: ToolContext): Promise<Result> => {
      ctx.progress('running');
      await pause(30);
      return { output: 'done' };
    },
  });
  const read = newTool({
    name: 'read_file',
    execute: async (): Promise<Result> => {
      await pause(20);
      return { output: 'text' };
    },
  });
  return [
    { tool: command, call: { id: 'call_1', args: '{}' } },
    { tool: read, call: { id: 'call_2', args: '{}' } },
    { tool: command, call: { id: 'call_3', args: '{}' } },
    { tool: read, call: { id: 'call_4', args: '{}' } },
    { tool: command, call: { id: 'call_5', args: '{}' } },
  ];
}

const ms = (time: [number, number]) => time[0] * 1e3 + time[1] / 1e6;

/** The spans drawn, `width` columns for the whole batch. */
export function draw(spans: readonly ReadableSpan[], width = 40): string {
  // The batch first, then its jobs in the model's order.
  const index = (s: ReadableSpan) => Number(s.attributes['agenttool.job.index'] ?? -1);
  const sorted = [...spans].sort((a, b) => index(a) - index(b));
  const origin = ms(sorted[0]?.startTime ?? [0, 0]);
  const total = Math.max(...sorted.map((s) => ms(s.endTime) - origin), 1);
  const column = (t: number) => Math.round(((t - origin) / total) * (width - 1));
  const lines: string[] = [];
  for (const span of sorted) {
    const from = column(ms(span.startTime));
    const to = column(ms(span.endTime));
    const bar = ' '.repeat(from) + '█'.repeat(Math.max(to - from, 1));
    const id = span.attributes['gen_ai.tool.call.id'];
    const name = id === undefined ? span.name : `${String(id)} ${span.name}`;
    lines.push(`${name.padEnd(31)} |${bar.padEnd(width)}|`);
    for (const event of span.events) {
      const on = event.attributes?.['agenttool.wait.on'];
      const label = on === undefined ? event.name : `${event.name} (${String(on)})`;
      const at = ' '.repeat(column(ms(event.time))) + '^';
      lines.push(`  ${label.padEnd(29)} |${at.padEnd(width)}|`);
    }
  }
  return lines.join('\n');
}

/** Runs the batch traced and returns its spans, finished. */
export async function traceBatch(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  try {
    await new Executor({ maxParallel: 2 }).results(jobs());
    return exporter.getFinishedSpans();
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}

// `node waterfall.js` prints the picture of one run.
if (require.main === module) {
  void traceBatch().then((spans) => console.log(draw(spans)));
}
