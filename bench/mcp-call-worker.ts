// One contender of the tools/call benchmark in its own process: sequential and
// IN_FLIGHT-in-flight figures, printed as one JSON line for mcp-call.bench.
import { type Client } from '@modelcontextprotocol/client';
import { measure } from './measure';
import { median } from './mcp-child';
import { CONTENDERS, NAME } from './mcp-call-contenders';
import { COLD_CALLS, FASTMCP, IN_FLIGHT, WARM_CALLS, type WorkerFigures } from './mcp-call-plan';
import { NOOP_ARGS } from './mcp-noop';

const call = (client: Client): Promise<unknown> =>
  client.callTool({ name: NAME, arguments: { ...NOOP_ARGS } });

/** Calls between two turns of the event loop (see {@link turns}). */
const CALLS_PER_TURN = 100;

/**
 * A turn of the event loop every CALLS_PER_TURN calls, for every caller at once. In
 * memory a call is promises only, so without it the loop never turns: what a
 * FinalizationRegistry lets go of (an AbortSignal that follows another, as undici's
 * Request and `AbortSignal.any` make) is never let go of, and the old generation grows
 * with every call (2-3 KB a call in the 2026-07-28 era), making each collection dearer
 * the longer a run. A served process turns its loop on every read.
 */
function turns(): () => Promise<void> | undefined {
  let calls = 0;
  let turn: Promise<void> | undefined;
  return () => {
    if (turn !== undefined) return turn;
    if (++calls % CALLS_PER_TURN !== 0) return undefined;
    turn = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      turn = undefined;
    });
    return turn;
  };
}

const sequential = (client: Client) => async (ops: number) => {
  const turn = turns();
  for (let i = 0; i < ops; i++) {
    const waiting = turn();
    if (waiting !== undefined) await waiting;
    await call(client);
  }
};

/** IN_FLIGHT workers, each calling again as soon as its last call answered. */
const concurrent = (client: Client) => async (ops: number) => {
  const turn = turns();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next++ < ops) {
      const waiting = turn();
      if (waiting !== undefined) await waiting;
      await call(client);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
};

/**
 * `round` plus the process CPU time (user + system) each of its calls took, per
 * operation: on a loaded machine CPU time is steadier than wall time, and over an
 * in-memory transport all the work is this process's.
 */
function withCpu(round: (ops: number) => Promise<void>): {
  round: (ops: number) => Promise<void>;
  samples: number[];
} {
  const samples: number[] = [];
  return {
    samples,
    round: async (ops) => {
      const start = process.cpuUsage();
      await round(ops);
      const used = process.cpuUsage(start);
      samples.push(((used.user + used.system) * 1000) / ops);
    },
  };
}

/**
 * The wall and CPU time per call of `round`: medians of the timed rounds, and the mean
 * CPU time over all of them. A round in which the young generation is collected costs
 * two to three times one without (the collector's threads count as CPU time), and with
 * one collection every few rounds the median is a round without: the mean is the figure
 * that includes what collections cost.
 */
async function figure(
  name: string,
  round: (ops: number) => Promise<void>,
  ops: number,
): Promise<{ wall: number; cpu: number; cpuMean: number }> {
  const options = { ops, rounds: 7, warmup: 2 };
  (globalThis as { gc?: () => void }).gc?.();
  const timed = withCpu(round);
  const { nsPerOp } = await measure(name, timed.round, options);
  const rounds = timed.samples.slice(options.warmup);
  const cpuMean = rounds.reduce((sum, sample) => sum + sample, 0) / rounds.length;
  return { wall: nsPerOp, cpu: median(rounds), cpuMean };
}

/** CPU time per call of the process's first `ops` calls, one at a time. */
async function coldCpu(client: Client, ops: number): Promise<number> {
  const start = process.cpuUsage();
  await sequential(client)(ops);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / ops;
}

async function main(): Promise<void> {
  const name = process.argv[2] ?? '';
  const make = CONTENDERS.get(name);
  if (make === undefined) throw new Error(`unknown contender ${JSON.stringify(name)}`);
  const contender = await make();
  // fastmcp waits 1 ms after every tool (`await delay(1)`), so fewer calls give it as
  // many milliseconds as the others get.
  const slow = name.endsWith(`/${FASTMCP}`);
  // What a short-lived server (a stdio server a host spawns per window) mostly runs:
  // code that is not optimised yet.
  // Start-up's garbage is collected first: whether its first full collection falls in
  // these calls or after them depends on what was loaded and in which order (it moved
  // the floor's 2025 figure from 60 to 130 µs a call), and it is start-up's cost.
  (globalThis as { gc?: () => void }).gc?.();
  const cold = await coldCpu(contender.client, COLD_CALLS);
  // Then warm to the steady state before the timed rounds: the rounds are short, and a
  // longer call path takes more calls to be optimised and for the heap to settle; left
  // in the rounds, that measured warm-up rather than a call.
  await concurrent(contender.client)(slow ? WARM_CALLS / 10 : WARM_CALLS);
  const seq = await figure(name, sequential(contender.client), slow ? 60 : 700);
  const par = await figure(name, concurrent(contender.client), slow ? 500 : 1500);
  await contender.close();
  const figures: WorkerFigures = {
    sequential: seq.wall,
    concurrent: par.wall,
    sequentialCpu: seq.cpu,
    sequentialCpuMean: seq.cpuMean,
    concurrentCpu: par.cpu,
    coldCpu: cold,
  };
  console.log(JSON.stringify(figures));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
