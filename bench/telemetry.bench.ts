/**
 * What OpenTelemetry costs on the call path, each mode in fresh processes, interleaved
 * (see telemetry-worker): the executor's 10,000-job batch (per job), a batch of one job
 * (per batch), and a tools/call through connectMcp to serveTools in memory (per call).
 * The baseline is `absent` (the API cannot be loaded); `present` (the API installed
 * and loaded, no provider registered) must cost at most 1.02x of it; `unsampled` (the
 * SDK's tracer provider with a sampler that records no trace) and `sdk` (the SDK with
 * in-memory exporters, every span and metric recorded) are printed for what they are.
 */
import { median, runChild } from './mcp-child';
import { type Figure, report } from './measure';
import { type Mode, type TelemetryFigures } from './telemetry-worker';

const MODES: readonly Mode[] = ['absent', 'present', 'unsampled', 'sdk'];
const NAMES: Record<Mode, string> = {
  absent: 'API not installed',
  present: 'API installed, no provider',
  unsampled: 'SDK, no trace sampled',
  sdk: 'SDK + in-memory exporters',
};
const PASSES = 5;
const TARGET = 1.02;

async function main(): Promise<void> {
  const runs = new Map<Mode, TelemetryFigures[]>(MODES.map((mode) => [mode, []]));
  for (let pass = 0; pass < PASSES; pass++) {
    const order = MODES.map((_, i) => MODES[(i + pass) % MODES.length] as Mode);
    for (const mode of order) {
      const { value } = await runChild<TelemetryFigures>('telemetry-worker.js', [mode]);
      runs.get(mode)?.push(value);
    }
  }
  const tables: [string, keyof TelemetryFigures][] = [
    ['executor, 10,000 no-op jobs, per job, wall time', 'batch'],
    ['executor, 10,000 no-op jobs, per job, CPU time', 'batchCpu'],
    ['executor, a batch of one no-op job, per batch, wall time', 'single'],
    ['executor, a batch of one no-op job, per batch, CPU time', 'singleCpu'],
    ['MCP tools/call through connectMcp to serveTools in memory, wall time', 'mcp'],
    ['MCP tools/call through connectMcp to serveTools in memory, CPU time', 'mcpCpu'],
  ];
  const summary: string[] = [];
  for (const [title, key] of tables) {
    const figures: Figure[] = MODES.map((mode) => ({
      name: NAMES[mode],
      nsPerOp: median((runs.get(mode) ?? []).map((f) => f[key])),
    }));
    report(`telemetry: ${title}`, figures, NAMES.absent);
    const base = figures[0]?.nsPerOp ?? Number.NaN;
    const ratio = (mode: Mode): string =>
      ((figures[MODES.indexOf(mode)]?.nsPerOp ?? Number.NaN) / base).toFixed(2);
    summary.push(
      `${key}: no provider ${ratio('present')}x, no trace sampled ${ratio('unsampled')}x, SDK ${ratio('sdk')}x`,
    );
  }
  console.log(
    `\n  Against the API not installed (target for "no provider": at most ${TARGET}x):\n    ${summary.join('\n    ')}` +
      `\n  Medians of ${PASSES} fresh processes per mode, each the median of its timed rounds (31 batches of 10,000, 9 of the others).`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
