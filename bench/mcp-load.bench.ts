/**
 * The load check: 50 sessions of a 2025-era client, each making 200 calls of a tool that
 * writes 1 MiB of output as progress, against a server in its own process, by a client
 * that never reads what the server sends: each call's connection is held, unread, until
 * the call has had time to finish, then dropped. The server's resident memory is sampled
 * from /proc throughout; the figure is its peak against its resident memory when idle
 * (measured in the same run) and against the stated bound. Not part of `npm test`.
 * `LOAD_MODE=unbounded npm run bench -- mcp-load` serves without a progress budget, for
 * comparison (measured here: 309 MB peak, and 5x slower).
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
/** The bound the server's peak resident memory must stay under. */
const BOUND_MB = 300;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

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

async function session(port: number): Promise<void> {
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
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function main(): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      join(__dirname, 'mcp-load-server.js'),
      ...(process.env.LOAD_MODE ? [process.env.LOAD_MODE] : []),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('listening ')) resolve(line.slice('listening '.length));
    }),
  );
  const port = Number(new URL(url).port);
  const pid = child.pid!;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssMb(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const started = Date.now();
  await Promise.all(Array.from({ length: SESSIONS }, () => session(port)));
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(pid));
  child.kill('SIGKILL');
  console.log(
    `\nload check: ${SESSIONS} sessions x ${CALLS} calls (${IN_FLIGHT} in flight each), each call` +
      ` writing 1 MiB of progress to a client that never reads, in ${seconds.toFixed(0)} s`,
  );
  console.log(`  server resident memory, idle:   ${idle.toFixed(0)} MB (baseline)`);
  console.log(
    `  server resident memory, peak:   ${peak.toFixed(0)} MB  ${(peak / idle).toFixed(2)}x idle` +
      `  bound ${BOUND_MB} MB: ${peak <= BOUND_MB ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  (${SESSIONS * IN_FLIGHT} calls in flight at once at most; progress text per call is capped at` +
      ' 64 KiB and a client that does not read gets the latest progress only)',
  );
  if (peak > BOUND_MB) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
