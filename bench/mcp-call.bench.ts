/**
 * MCP `tools/call` round trips over the SDK's in-memory transport, one at a time and
 * with 32 in flight, on the same no-op tool with five arguments. Every contender is
 * called by the SDK `Client` over `InMemoryTransport.createLinkedPair()`:
 * - floor: the SDK's low-level `Server` with a precompiled ajv validator (the protocol
 *   itself, and nothing a framework adds);
 * - floor, ALS promise hooks on: the same, after one AsyncLocalStorage run (see below);
 * - agenttool: `serveTools` on a `@Tool`/`@Param` class through `toolFromInstance`;
 * - McpServer: the SDK's `McpServer` with the same tool as a zod shape;
 * - fastmcp: `FastMCP.connect(transport)` (its documented in-process entry) with a zod
 *   object; pings and roots off so no timers or extra requests run alongside.
 *
 * Each contender runs in its own fresh process (mcp-call-worker), several times,
 * interleaved with the others: in one process the first contender would warm the SDK
 * code the later ones share, and our server's AsyncLocalStorage would turn on promise
 * hooks (Node 20) for every contender measured after it. A figure is the median of the
 * processes' medians.
 */
import { median, runChild } from './mcp-child';
import {
  AGENTTOOL,
  CONTENDER_NAMES,
  FLOOR,
  FLOOR_HOOKS,
  IN_FLIGHT,
  type WorkerFigures,
} from './mcp-call-plan';
import { type Figure, report } from './measure';

const PASSES = 3;

async function main(): Promise<void> {
  const runs = new Map<string, WorkerFigures[]>(CONTENDER_NAMES.map((name) => [name, []]));
  for (let pass = 0; pass < PASSES; pass++) {
    // A different contender goes first in each pass, so none always meets the same load.
    const order = CONTENDER_NAMES.map(
      (_, i) => CONTENDER_NAMES[(i + pass) % CONTENDER_NAMES.length]!,
    );
    for (const name of order) {
      const { value } = await runChild<WorkerFigures>('mcp-call-worker.js', [name]);
      runs.get(name)!.push(value);
    }
  }
  const figures = (pick: (f: WorkerFigures) => number): Figure[] =>
    [...runs].map(([name, values]) => ({ name, nsPerOp: median(values.map(pick)) }));
  const title = (mode: string, clock: string): string =>
    `tools/call round trip, no-op tool with 5 arguments, in-memory transport, ${mode}, ${clock}`;
  const tables: [string, string, (f: WorkerFigures) => number][] = [
    ['sequential', 'wall time', (f) => f.sequential],
    ['sequential', 'CPU time', (f) => f.sequentialCpu],
    [`${IN_FLIGHT} in flight`, 'wall time', (f) => f.concurrent],
    [`${IN_FLIGHT} in flight`, 'CPU time', (f) => f.concurrentCpu],
  ];
  const summary: string[] = [];
  for (const [mode, clock, pick] of tables) {
    const set = figures(pick);
    report(title(mode, clock), set, FLOOR);
    const ours = set.find((f) => f.name === AGENTTOOL)!.nsPerOp;
    const ratio = (base: string): string =>
      (ours / set.find((f) => f.name === base)!.nsPerOp).toFixed(2);
    summary.push(
      `${mode}, ${clock}: ${ratio(FLOOR)}x the floor, ${ratio(FLOOR_HOOKS)}x the floor with hooks on`,
    );
  }
  console.log(
    `\n  agenttool (target: at most 1.05x the floor):\n    ${summary.join('\n    ')}` +
      `\n  Medians of ${PASSES} fresh processes per contender, each the median of 7 timed rounds.` +
      `\n  CPU time is the worker's user + system time; on a loaded machine it is the steadier clock.` +
      `\n  fastmcp waits 1 ms after every tool call (await delay(1) in its handler), which bounds` +
      `\n  its sequential figure.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
