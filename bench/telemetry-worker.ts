// One mode of the telemetry benchmark in its own process, printed as one JSON line for
// telemetry.bench. The modes:
// - `absent`: @opentelemetry/api cannot be loaded (its resolution fails, as for an app
//   that does not have it installed);
// - `present`: the API is installed and loaded, and no provider is registered;
// - `unsampled`: the SDK's tracer provider registered with a sampler that records
//   nothing (`AlwaysOffSampler`, as a head sampler decides for most requests of a busy
//   service), and no meter provider;
// - `sdk`: the OpenTelemetry SDK's tracer provider with an in-memory span exporter and
//   its meter provider with an in-memory metric reader, registered globally.
import Module from 'node:module';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createContext, Executor, type Job, newTool, type Result, type Tool } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { measure } from './measure';
import { median } from './mcp-child';

export type Mode = 'absent' | 'present' | 'unsampled' | 'sdk';

/** ns per operation of each workload (wall time, and the process's CPU time). */
export interface TelemetryFigures {
  readonly batch: number;
  readonly single: number;
  readonly mcp: number;
  readonly batchCpu: number;
  readonly singleCpu: number;
  readonly mcpCpu: number;
}

const RESULT: Result = { output: 'ok' };
const noop = async (): Promise<Result> => RESULT;
const JOBS = 10_000;

function blockApi(): void {
  // Node resolves every require through this; the API is then as good as not installed.
  const resolver = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
  };
  const resolve = resolver._resolveFilename;
  resolver._resolveFilename = (request, ...rest) => {
    if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/')) {
      throw Object.assign(new Error(`Cannot find module '${request}'`), {
        code: 'MODULE_NOT_FOUND',
      });
    }
    return resolve(request, ...rest);
  };
}

/** Registers the SDK's tracer provider with a sampler that samples no trace. */
function registerUnsampled(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- only this mode loads the SDK */
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const traceSdk =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  /* eslint-enable @typescript-eslint/no-require-imports */
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(
    new traceSdk.BasicTracerProvider({
      sampler: new traceSdk.AlwaysOffSampler(),
      spanProcessors: [new traceSdk.SimpleSpanProcessor(new traceSdk.InMemorySpanExporter())],
    }),
  );
}

/** Registers the SDK as an app would; returns what empties the exporters between rounds. */
function registerSdk(): () => void {
  /* eslint-disable @typescript-eslint/no-require-imports -- only this mode loads the SDK */
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const traceSdk =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const metricSdk =
    require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const exporter = new traceSdk.InMemorySpanExporter();
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(
    new traceSdk.BasicTracerProvider({
      spanProcessors: [new traceSdk.SimpleSpanProcessor(exporter)],
    }),
  );
  const metricExporter = new metricSdk.InMemoryMetricExporter(
    metricSdk.AggregationTemporality.CUMULATIVE,
  );
  api.metrics.setGlobalMeterProvider(
    new metricSdk.MeterProvider({
      readers: [
        new metricSdk.PeriodicExportingMetricReader({
          exporter: metricExporter,
          exportIntervalMillis: 3_600_000,
        }),
      ],
    }),
  );
  return () => {
    exporter.reset();
    metricExporter.reset();
  };
}

function withCpu(round: (ops: number) => Promise<void>, between: () => void) {
  const samples: number[] = [];
  return {
    samples,
    round: async (ops: number) => {
      between();
      const start = process.cpuUsage();
      await round(ops);
      const used = process.cpuUsage(start);
      samples.push(((used.user + used.system) * 1000) / ops);
    },
  };
}

async function figure(
  round: (ops: number) => Promise<void>,
  ops: number,
  between: () => void,
  rounds = 9,
): Promise<[wall: number, cpu: number]> {
  const options = { ops, rounds, warmup: 3 };
  (globalThis as { gc?: () => void }).gc?.();
  const timed = withCpu(round, between);
  const { nsPerOp } = await measure('', timed.round, options);
  return [nsPerOp, median(timed.samples.slice(options.warmup))];
}

async function main(): Promise<void> {
  const mode = process.argv[2] as Mode;
  let between = (): void => undefined;
  if (mode === 'absent') blockApi();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded, nothing registered
  else if (mode === 'present') require('@opentelemetry/api');
  else if (mode === 'unsampled') registerUnsampled();
  else if (mode === 'sdk') between = registerSdk();
  else throw new Error(`unknown mode ${JSON.stringify(mode)}`);

  // The executor bench's batch: 70% independent, 30% over 10 resources, bound 8.
  const plain = newTool({ name: 'plain', execute: noop });
  const resourced = Array.from({ length: 10 }, (_, r) =>
    newTool({ name: `res${r}`, resource: `res:${r}`, execute: noop }),
  );
  const jobs: Job[] = [];
  for (let i = 0; i < JOBS; i++) {
    const tool = i % 10 < 7 ? plain : (resourced[i % 10] as Tool);
    jobs.push({ tool, call: { id: `call_${i}`, args: '{}' } });
  }
  const executor = new Executor({ maxParallel: 8 });
  const batch = async (): Promise<void> => {
    for await (const event of executor.execute(jobs)) if (!event.final) throw new Error('progress');
  };
  const one: Job[] = [{ tool: plain, call: { id: 'one', args: '{}' } }];
  const single = async (ops: number): Promise<void> => {
    for (let i = 0; i < ops; i++) await executor.results(one);
  };

  // A call through connectMcp (client) to serveTools (server), in memory, 2025 era. The
  // tool-list grace is off: it waits 50 ms after each call for a list change, which would
  // hide what the call itself costs.
  const server = serveTools([newTool({ name: 'noop', execute: noop })]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const remote = await connectMcp({ transport: clientEnd, notificationGrace: 0 });
  const remoteNoop = remote.tools()[0] as Tool;
  const ctx = createContext();
  const mcp = async (ops: number): Promise<void> => {
    for (let i = 0; i < ops; i++) await remoteNoop.execute({ id: `m${i}`, args: '{}' }, ctx);
  };

  // One batch is a round of a few ms: more rounds than the others, or the median wanders.
  const [b, bCpu] = await figure(() => batch(), 1, between, 31);
  const [s, sCpu] = await figure(single, 20_000, between);
  const [m, mCpu] = await figure(mcp, 1_500, between);
  await remote.close();
  await server.close();
  const figures: TelemetryFigures = {
    batch: b / JOBS,
    single: s,
    mcp: m,
    batchCpu: bCpu / JOBS,
    singleCpu: sCpu,
    mcpCpu: mCpu,
  };
  console.log(JSON.stringify(figures));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
