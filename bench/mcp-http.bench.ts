/**
 * MCP `tools/call` round trips over HTTP on loopback sockets, one at a time and with 32
 * in flight, on the same no-op tool with five arguments, in both protocol eras; every
 * server in its own process (mcp-http-server), called by the SDK v2 `Client` over its
 * Streamable HTTP transport from this one. The contenders:
 * - floor: the SDK's low-level `Server` with a precompiled ajv validator, mounted as the
 *   SDK says (2025 era: `NodeStreamableHTTPServerTransport`, a server per session;
 *   2026-07-28: `createMcpHandler` through `toNodeHandler`, a server per request), behind
 *   the SDK's own Host and Origin guards, since ours checks them too;
 * - agenttool: `serveTools(...).listenHttp()` on a `@Tool`/`@Param` class (both eras on
 *   one endpoint, DNS-rebinding protection and fair shares on, as by default);
 * - McpServer: the same mounting as the floor with the SDK's `McpServer` and a zod object.
 * The figures are the server's CPU time per call (the server process's user + system
 * time: where the contenders differ) and wall time per call; each the median of 3 fresh
 * server processes, each the median of its timed rounds. One more row is a fresh server
 * process's first calls (its CPU time over them), before the timed rounds warm it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { median } from './mcp-child';
import { NAME } from './mcp-call-contenders';
import { AGENTTOOL, COLD_CALLS, FLOOR, IN_FLIGHT, MCP_SERVER } from './mcp-call-plan';
import { HTTP_ERAS, type HttpEra } from './mcp-http-plan';
import { NOOP_ARGS } from './mcp-noop';
import { type Figure, report } from './measure';

const PASSES = 3;
const ROUNDS = 7;
const WARMUP = 2;
const CONTENDERS = [FLOOR, AGENTTOOL, MCP_SERVER] as const;

interface Served {
  readonly url: string;
  /** The server process's CPU time so far, in µs. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function serve(era: HttpEra, name: string): Promise<Served> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'mcp-http-server.js'), era, name],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines: Interface = createInterface({ input: child.stdout! });
  const waiting: ((line: Record<string, unknown>) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line) as Record<string, unknown>));
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve) => waiting.push(resolve));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { url } = (await next()) as { url: string };
  return {
    url,
    cpu: async () => {
      const answer = next();
      child.stdin!.write('cpu\n');
      return (await answer).cpu as number;
    },
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

async function connect(era: HttpEra, url: string): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '0' },
    era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const result = await client.callTool({ name: NAME, arguments: { ...NOOP_ARGS } });
  const first = (result.content as { text?: string }[] | undefined)?.[0];
  if (result.isError === true || first?.text !== 'ok') {
    throw new Error(`the no-op call did not answer ok: ${JSON.stringify(result)}`);
  }
  return client;
}

const call = (client: Client): Promise<unknown> =>
  client.callTool({ name: NAME, arguments: { ...NOOP_ARGS } });

async function sequential(client: Client, ops: number): Promise<void> {
  for (let i = 0; i < ops; i++) await call(client);
}

async function concurrent(client: Client, ops: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next++ < ops) await call(client);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

interface Timed {
  readonly wall: number;
  readonly serverCpu: number;
}

/** ns per call over `ROUNDS` rounds of `ops` calls after `WARMUP` rounds: the medians. */
async function timed(
  served: Served,
  round: (ops: number) => Promise<void>,
  ops: number,
): Promise<Timed> {
  for (let i = 0; i < WARMUP; i++) await round(ops);
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const cpuBefore = await served.cpu();
    const start = process.hrtime.bigint();
    await round(ops);
    walls.push(Number(process.hrtime.bigint() - start) / ops);
    cpus.push(((await served.cpu()) - cpuBefore) * (1000 / ops));
  }
  return { wall: median(walls), serverCpu: median(cpus) };
}

interface Pass {
  /** Server CPU time per call of its first COLD_CALLS calls, one at a time, in ns. */
  readonly cold: number;
  readonly sequential: Timed;
  readonly concurrent: Timed;
}

/**
 * Server CPU per call of a fresh server process's first `ops` calls, one at a time: what
 * a short-lived server mostly runs (code not yet optimised), with only the server's own
 * code in the process (in memory, a client and a server that share zod share its warm-up).
 */
async function cold(served: Served, client: Client, ops: number): Promise<number> {
  const cpuBefore = await served.cpu();
  await sequential(client, ops);
  return ((await served.cpu()) - cpuBefore) * (1000 / ops);
}

async function pass(era: HttpEra, name: string): Promise<Pass> {
  const served = await serve(era, name);
  try {
    const client = await connect(era, served.url);
    try {
      return {
        cold: await cold(served, client, COLD_CALLS),
        sequential: await timed(served, (ops) => sequential(client, ops), 300),
        concurrent: await timed(served, (ops) => concurrent(client, ops), 1000),
      };
    } finally {
      await client.close();
    }
  } finally {
    await served.stop();
  }
}

async function main(): Promise<void> {
  const summary: string[] = [];
  for (const era of HTTP_ERAS) {
    const runs = new Map<string, Pass[]>(CONTENDERS.map((name) => [name, []]));
    for (let i = 0; i < PASSES; i++) {
      // A different contender goes first in each pass, so none always meets the same load.
      for (let j = 0; j < CONTENDERS.length; j++) {
        const name = CONTENDERS[(i + j) % CONTENDERS.length]!;
        runs.get(name)!.push(await pass(era, name));
      }
    }
    const tables: [string, string, (p: Pass) => number][] = [
      [
        `the first ${COLD_CALLS} calls of a fresh server process, one at a time`,
        'server CPU time',
        (p) => p.cold,
      ],
      ['sequential', 'server CPU time', (p) => p.sequential.serverCpu],
      ['sequential', 'wall time', (p) => p.sequential.wall],
      [`${IN_FLIGHT} in flight`, 'server CPU time', (p) => p.concurrent.serverCpu],
      [`${IN_FLIGHT} in flight`, 'wall time', (p) => p.concurrent.wall],
    ];
    for (const [mode, clock, pick] of tables) {
      const set: Figure[] = [...runs].map(([name, passes]) => ({
        name,
        nsPerOp: median(passes.map(pick)),
      }));
      report(
        `protocol ${era}: HTTP tools/call, no-op tool with 5 arguments, ${mode}, ${clock}`,
        set,
        FLOOR,
      );
      const ours = set.find((f) => f.name === AGENTTOOL)!.nsPerOp;
      const ratio = (base: string): string =>
        (ours / set.find((f) => f.name === base)!.nsPerOp).toFixed(2);
      summary.push(
        `${era}, ${mode}, ${clock}: ${ratio(FLOOR)}x the floor, ${ratio(MCP_SERVER)}x McpServer`,
      );
    }
  }
  console.log(
    `\n  agenttool over HTTP (targets, server CPU time: at most 1.05x the floor):\n    ${summary.join('\n    ')}` +
      `\n  Medians of ${PASSES} fresh server processes per contender, each the median of ${ROUNDS} timed rounds.` +
      `\n  Server CPU time is the server process's user + system time; the client (this process) is` +
      `\n  the same for every contender.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
