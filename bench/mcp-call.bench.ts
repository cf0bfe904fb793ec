/**
 * MCP `tools/call` round trips, one at a time and with 32 in flight, on the same no-op
 * tool with five arguments, in both protocol eras. Every contender is called by the SDK
 * v2 `Client`:
 * - 2025 era, over `InMemoryTransport.createLinkedPair()`;
 * - 2026-07-28, through the server's web-standard fetch handler called in process (each
 *   request is served as over HTTP: classified, a server built for it, answered).
 * The contenders:
 * - floor: the SDK's low-level `Server` with a precompiled ajv validator (the protocol
 *   itself, and nothing a framework adds; in 2026-07-28 behind `createMcpHandler`);
 * - floor, ALS promise hooks on (2025): the same, after one AsyncLocalStorage run;
 * - floor, its client on a zod of its own: the same, with the client's zod apart from the
 *   server's, as agenttool's bundle has it (mcp-call-worker-own-zod): a client and a
 *   server that share zod in one process share the warm-up of its code, which is most of
 *   a fresh process's first calls;
 * - floor, requests told first: the same, dispatching as agenttool's servers do (a
 *   request checked with its own schema first, not after two that fail; see
 *   `RequestFirstServer` in mcp-call-contenders): what agenttool's call path costs
 *   beside the same dispatch;
 * - agenttool: `serveTools` on a `@Tool`/`@Param` class through `toolFromInstance`
 *   (`connect`, or `handler()`, which also checks Host and Origin and routes the eras);
 * - McpServer: the SDK's `McpServer` with the same tool as a zod object;
 * - fastmcp (2025): `FastMCP.connect(transport)` with a zod object; pings and roots off.
 *
 * Each contender runs in its own fresh process (mcp-call-worker), several times,
 * interleaved with the others, so no contender warms code for another. A figure is the
 * median of the processes' medians.
 */
import { median, runChild } from './mcp-child';
import {
  AGENTTOOL,
  COLD_CALLS,
  CONTENDER_NAMES,
  contenderKey,
  ERAS,
  FLOOR,
  FLOOR_OWN_ZOD,
  FLOOR_TOLD,
  IN_FLIGHT,
  MCP_SERVER,
  type WorkerFigures,
  WARM_CALLS,
} from './mcp-call-plan';
import { type Figure, report } from './measure';

const PASSES = 3;

async function main(): Promise<void> {
  const summary: string[] = [];
  for (const era of ERAS) {
    const names = CONTENDER_NAMES[era];
    const runs = new Map<string, WorkerFigures[]>(names.map((name) => [name, []]));
    for (let pass = 0; pass < PASSES; pass++) {
      // A different contender goes first in each pass, so none always meets the same load.
      const order = names.map((_, i) => names[(i + pass) % names.length]!);
      for (const name of order) {
        const worker = name === FLOOR_OWN_ZOD ? 'mcp-call-worker-own-zod.js' : 'mcp-call-worker.js';
        const { value } = await runChild<WorkerFigures>(worker, [contenderKey(era, name)]);
        runs.get(name)!.push(value);
      }
    }
    const figures = (pick: (f: WorkerFigures) => number): Figure[] =>
      [...runs].map(([name, values]) => ({ name, nsPerOp: median(values.map(pick)) }));
    const tables: [string, string, (f: WorkerFigures) => number][] = [
      ['sequential', 'wall time', (f) => f.sequential],
      ['sequential', 'CPU time', (f) => f.sequentialCpu],
      [
        'sequential',
        'CPU time, mean of the rounds (collections included)',
        (f) => f.sequentialCpuMean,
      ],
      [`${IN_FLIGHT} in flight`, 'wall time', (f) => f.concurrent],
      [`${IN_FLIGHT} in flight`, 'CPU time', (f) => f.concurrentCpu],
      [
        `the first ${COLD_CALLS} calls of a fresh process, one at a time`,
        'CPU time',
        (f) => f.coldCpu,
      ],
    ];
    for (const [mode, clock, pick] of tables) {
      const set = figures(pick);
      report(
        `protocol ${era}: tools/call, no-op tool with 5 arguments, ${mode}, ${clock}`,
        set,
        FLOOR,
      );
      const ours = set.find((f) => f.name === AGENTTOOL)!.nsPerOp;
      const ratio = (base: string): string =>
        (ours / set.find((f) => f.name === base)!.nsPerOp).toFixed(2);
      summary.push(
        `${era}, ${mode}, ${clock}: ${ratio(FLOOR)}x the floor, ${ratio(MCP_SERVER)}x McpServer, ` +
          `${ratio(FLOOR_TOLD)}x the floor told first, ${ratio(FLOOR_OWN_ZOD)}x the floor on two zods`,
      );
    }
  }
  console.log(
    `\n  agenttool (targets, CPU time: at most 1.05x the floor, below 1x McpServer):\n    ${summary.join('\n    ')}` +
      `\n  Medians of ${PASSES} fresh processes per contender, each the median of 7 timed rounds` +
      `\n  (the mean, for the row that says so: a round with a collection costs 2-3x one without)` +
      `\n  taken after ${WARM_CALLS} calls of warm-up (the steady state); the cold row is a fresh` +
      `\n  process's first ${COLD_CALLS} calls, before that warm-up.` +
      `\n  CPU time is the worker's user + system time (client and server share the process);` +
      `\n  on a loaded machine it is the steadier clock. fastmcp waits 1 ms after every tool call` +
      `\n  (await delay(1) in its handler), which bounds its sequential figure.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
