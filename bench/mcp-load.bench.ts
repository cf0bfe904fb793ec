/**
 * The load check: 50 sessions of a 2025-era client, each making 200 calls of a tool that
 * writes 1 MiB of output as progress, against a server in its own process, by a client
 * that never reads what the server sends: each call's connection is held, unread, until
 * the call has had time to finish, then dropped. Two runs:
 * - the server as it is: its resident memory sampled from /proc throughout, the peak
 *   against its idle memory, and the peak over the first half of the calls against the
 *   peak over all of them (memory bounded by configuration stops growing: a client that
 *   sends twice as much does not raise it);
 * - the server collecting garbage twice a second: the most it retained (live heap plus
 *   external memory after a full collection), against the stated bound.
 * Not part of `npm test`. `LOAD_MODE=unbounded npm run bench -- mcp-load` serves without
 * a progress budget, for comparison.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const SESSIONS = 50;
const CALLS = 200;
/** Calls each session has in flight at once. */
const IN_FLIGHT = 10;
/** How long a call's connection is held unread before it is dropped. */
const HOLD_MS = 1500;
/** What the server may retain at most (live heap and external memory after a full GC). */
const RETAINED_BOUND_MB = 200;
/** How much the resident peak may still grow over the second half of the calls. */
const PLATEAU_GROWTH = 1.15;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** How many answers came with each HTTP status: every one must be 200 for the figures to hold. */
const statuses = new Map<number, number>();

function post(
  port: number,
  body: string,
  headers: Record<string, string>,
  read: boolean,
): Promise<{ session?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
        const session = res.headers['mcp-session-id'];
        if (read) {
          res.resume();
          res.on('end', () => resolve(typeof session === 'string' ? { session } : {}));
          return;
        }
        // Never read: hold the connection, then drop it.
        res.pause();
        setTimeout(() => {
          req.destroy();
          resolve({});
        }, HOLD_MS);
      },
    );
    req.on('error', (error) => (read ? reject(error) : resolve({})));
    req.end(body);
  });
}

async function session(port: number, onCall: () => void): Promise<void> {
  const opened = await post(
    port,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'load', version: '0' },
      },
    }),
    {},
    true,
  );
  const headers = { 'Mcp-Session-Id': opened.session ?? '', 'MCP-Protocol-Version': '2025-11-25' };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < CALLS) {
      const id = ++next;
      const call = {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'chatty', arguments: {}, _meta: { progressToken: `p${id}` } },
      };
      await post(port, JSON.stringify(call), headers, false);
      onCall();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

interface Run {
  readonly seconds: number;
  readonly idleMb: number;
  readonly peakMb: number;
  readonly firstHalfPeakMb: number;
  readonly retainedMb: number;
}

async function run(retained: boolean): Promise<Run> {
  const args = [
    ...(retained ? ['--expose-gc'] : []),
    join(__dirname, 'mcp-load-server.js'),
    ...(process.env.LOAD_MODE ? [process.env.LOAD_MODE] : []),
    ...(retained ? ['retained'] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve) =>
    lines.on('line', (line) => {
      if (line.startsWith('listening ')) resolve(line.slice('listening '.length));
    }),
  );
  const retainedLine = new Promise<number>((resolve) =>
    lines.on('line', (line) => {
      if (line.startsWith('retained ')) resolve(Number(line.slice('retained '.length)));
    }),
  );
  const port = Number(new URL(url).port);
  const pid = child.pid!;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idleMb = rssMb(pid);
  let peakMb = idleMb;
  let firstHalfPeakMb: number | undefined;
  let calls = 0;
  const half = (SESSIONS * CALLS) / 2;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 50);
  const started = Date.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, () =>
      session(port, () => {
        if (++calls === half) firstHalfPeakMb = peakMb;
      }),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  peakMb = Math.max(peakMb, rssMb(pid));
  child.kill('SIGTERM');
  const retainedMb = (await retainedLine) / (1024 * 1024);
  return { seconds, idleMb, peakMb, firstHalfPeakMb: firstHalfPeakMb ?? peakMb, retainedMb };
}

async function main(): Promise<void> {
  const plain = await run(false);
  const collected = await run(true);
  const growth = plain.peakMb / plain.firstHalfPeakMb;
  const plateau = growth <= PLATEAU_GROWTH;
  const within = collected.retainedMb <= RETAINED_BOUND_MB;
  console.log(
    `\nload check: ${SESSIONS} sessions x ${CALLS} calls (${IN_FLIGHT} in flight each), each call` +
      ` writing 1 MiB of progress to a client that never reads, in ${plain.seconds.toFixed(0)} s`,
  );
  console.log(`  server resident memory, idle:   ${plain.idleMb.toFixed(0)} MB (baseline)`);
  console.log(
    `  server resident memory, peak:   ${plain.peakMb.toFixed(0)} MB  ${(plain.peakMb / plain.idleMb).toFixed(2)}x idle`,
  );
  console.log(
    `    peak over the first half of the calls ${plain.firstHalfPeakMb.toFixed(0)} MB: the second half` +
      ` grew it ${growth.toFixed(2)}x (at most ${PLATEAU_GROWTH}x: ${plateau ? 'met' : 'NOT met'})`,
  );
  console.log(
    `  retained at most (live heap + external after a full GC, second run): ` +
      `${collected.retainedMb.toFixed(0)} MB  bound ${RETAINED_BOUND_MB} MB: ${within ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  (${SESSIONS * IN_FLIGHT} calls in flight at once at most; progress text per call is capped at` +
      ' 64 KiB and a client that does not read gets the latest progress only; the resident' +
      ' peak above the retained memory is heap V8 keeps for the allocation rate)',
  );
  // The server stands in for many clients' sessions, all from 127.0.0.1 here: an answer
  // other than 200 (a share refused) would mean less load than the figures claim.
  const refused = [...statuses].filter(([status]) => status !== 200);
  const answers = [...statuses.values()].reduce((a, b) => a + b, 0);
  console.log(
    refused.length === 0
      ? `  every one of the ${answers} requests was answered 200`
      : `  NOT a valid run: ${refused.map(([status, n]) => `${n} answered ${status}`).join(', ')} of ${answers}`,
  );
  if (!plateau || !within || refused.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
