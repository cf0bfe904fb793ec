// Starts the parts of a scaled-out deployment on loopback ports for the scale-out test
// and benchmark: Redis and HAProxy from Debian's packages (scripts/setup-system.sh
// installs them) and `agenttool serve --http --redis` instances.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Client, type FetchLike } from '@modelcontextprotocol/client';
import { type Running, startAgenttool } from '../cli/helpers';

/** The key the instances share in the tests (64 hex digits: 32 bytes). */
export const TEST_STATE_KEY = 'a3f1c2e4b5d6978812ab34cd56ef7890a3f1c2e4b5d6978812ab34cd56ef7890';

/**
 * The path of a program installed from Debian's packages; throws, saying how to install
 * it, when it is absent (the test fails: it is never skipped).
 */
export function systemProgram(name: 'haproxy' | 'redis-server'): string {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/bin'];
  for (const dir of dirs) {
    const path = join(dir, name);
    if (dir !== '' && existsSync(path)) return path;
  }
  throw new Error(
    `${name} is not installed: run scripts/setup-system.sh (as root or with sudo; .ci/run does) to install haproxy and redis-server from Debian's packages`,
  );
}

/** A free TCP port on 127.0.0.1 (free when asked). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const processes = new Set<ChildProcess>();
const dirs: string[] = [];

/** A fresh temporary folder, removed by {@link stopAll}. */
export function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-scale-'));
  dirs.push(dir);
  return dir;
}

/** Kills every process started here and removes the temporary folders. */
export function stopAll(): void {
  for (const child of processes) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  processes.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function track(child: ChildProcess): ChildProcess {
  processes.add(child);
  child.once('exit', () => processes.delete(child));
  return child;
}

/** Waits until `text` appears in what `child` writes on `stream`. */
function waitForOutput(child: ChildProcess, text: string, what: string): Promise<void> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`${what} exited (${code}) before it was ready:\n${seen}`)),
    );
  });
}

/**
 * Starts a program on a port that was free when asked, again on another port when
 * something else took it in between (Redis and HAProxy cannot report a port the system
 * chose), up to three times.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      const taken = /Address already in use|cannot bind socket/i.test(String(error));
      if (!taken || attempt === 3) throw error;
    }
  }
}

/** Redis on a loopback port, without persistence. */
export function startRedis(): Promise<{ url: string; port: number }> {
  return onFreePort(async (port) => {
    const child = track(
      spawn(
        systemProgram('redis-server'),
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );
    await waitForOutput(child, 'Ready to accept connections', 'redis-server');
    return { url: `redis://127.0.0.1:${port}`, port };
  });
}

/** A running `agenttool serve --http --redis` instance. */
export interface Instance {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly records: string;
  readonly running: Running;
}

/** Starts one instance of `module` sharing `redisUrl`, named `name`. */
export async function startInstance(
  module: string,
  name: string,
  redisUrl: string,
  extra: readonly string[] = [],
): Promise<Instance> {
  const records = join(scratch(), `${name}.jsonl`);
  const running = startAgenttool(
    [
      'serve',
      module,
      '--http',
      '127.0.0.1:0',
      '--redis',
      redisUrl,
      '--instance',
      name,
      '--resumable',
      '--record',
      records,
      '--allowed-host',
      '127.0.0.1',
      'localhost',
      ...extra,
    ],
    {
      env: {
        SCALE_INSTANCE: name,
        AGENTTOOL_REQUEST_STATE_KEY: TEST_STATE_KEY,
      },
    },
  );
  track(running.process);
  const [, url, port] = await running.waitForStderr(
    /over Streamable HTTP at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n/,
  );
  return { name, url: url!, port: Number(port), records, running };
}

/** A running HAProxy in front of the instances. */
export interface Balancer {
  readonly url: string;
  readonly port: number;
  /** Each server's state as HAProxy sees it: `UP`, `DOWN`, … by server name. */
  states(): Promise<Record<string, string>>;
  readonly process: ChildProcess;
}

/**
 * The HAProxy configuration of docs/deploy.md for `instances` on loopback: round
 * robin, sticky on `Mcp-Session-Id`, health checks on /healthz, and retries of refused
 * connections and of 503 (new work a draining instance refused) on another instance.
 */
export function haproxyConfig(
  port: number,
  instances: readonly { name: string; port: number }[],
  socket: string,
): string {
  return `global
  maxconn 4096
  stats socket ${socket} level admin

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout check 2s
  option redispatch 1
  retries 2
  retry-on conn-failure 503

frontend mcp
  bind 127.0.0.1:${port}
  default_backend agents

backend agents
  balance roundrobin
  option httpchk GET /healthz
  http-check expect status 200
  stick-table type string len 64 size 100k expire 30m
  stick on req.hdr(mcp-session-id)
  stick store-response res.hdr(mcp-session-id)
${instances.map((i) => `  server ${i.name} 127.0.0.1:${i.port} check inter 300 fall 1 rise 1`).join('\n')}
`;
}

/** Starts HAProxy in front of `instances` and waits until it sees every one up. */
export function startBalancer(
  instances: readonly { name: string; port: number }[],
): Promise<Balancer> {
  return onFreePort((port) => startBalancerOn(port, instances));
}

async function startBalancerOn(
  port: number,
  instances: readonly { name: string; port: number }[],
): Promise<Balancer> {
  const dir = scratch();
  const socket = join(dir, 'haproxy.sock');
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, instances, socket));
  const child = track(
    spawn(systemProgram('haproxy'), ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const states = async (): Promise<Record<string, string>> => {
    const text = await adminCommand(socket, 'show stat\n');
    const result: Record<string, string> = {};
    for (const line of text.split('\n')) {
      const fields = line.split(',');
      if (fields[0] === 'agents' && fields[1] !== 'BACKEND' && fields[1] !== undefined) {
        result[fields[1]] = (fields[17] ?? '').split(' ')[0] ?? '';
      }
    }
    return result;
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited:\n${output}`);
    try {
      const seen = await states();
      if (instances.every((inst) => seen[inst.name] === 'UP')) break;
    } catch {
      // The socket is not there yet.
    }
    if (i > 200) throw new Error(`haproxy did not see every instance up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, port, states, process: child };
}

function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const connection = createConnection(socket, () => connection.end(command));
    connection.on('data', (chunk) => (text += chunk.toString()));
    connection.on('end', () => resolve(text));
    connection.on('error', reject);
  });
}

/** The text of a `tools/call` result's content blocks, joined. */
export function textOf(result: Record<string, unknown>): string {
  const content = (result.content ?? []) as { text?: string }[];
  return content.map((part) => part.text ?? '').join('');
}

/** A raw 2026-07-28 `tools/call` through the SDK client, input-required results included. */
export function rawCall(
  client: Client,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return client.request({ method: 'tools/call', params } as never, { allowInputRequired: true });
}

/** Sends each `tools/call` to the next of `targets` (the last one from then on). */
export function routedFetch(targets: readonly string[]): FetchLike {
  let calls = 0;
  return (_url, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const index = body.includes('"tools/call"') ? calls++ : 0;
    return fetch(targets[Math.min(index, targets.length - 1)]!, init);
  };
}
