/**
 * Scale-out throughput: 2026-07-28 `tools/call`s of a tool that spends about a
 * millisecond of CPU, 32 in flight, through HAProxy to one, two and four `agenttool serve
 * --http --redis` instances sharing a Redis (all on this machine), as ratios against one
 * instance; and the latency the balancer's hop adds to one call at a time, against the
 * same call made directly. HAProxy and Redis come from Debian's packages
 * (scripts/setup-system.sh). Not part of `npm test`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'pkg', 'agenttool.js');
const MODULE = join(__dirname, 'scale-app.module.js');
const KEY = 'b'.repeat(64);
const IN_FLIGHT = 32;
const CALLS = 3000;
const LATENCY_CALLS = 400;

const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'agenttool-scale-bench-'));

function program(name: string): string {
  for (const d of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/bin']) {
    if (d !== '' && existsSync(join(d, name))) return join(d, name);
  }
  throw new Error(`${name} is not installed: run scripts/setup-system.sh (as root or with sudo)`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** CPU time a process has used so far (user + system), in milliseconds, from /proc. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks of 10 ms (USER_HZ 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function start(
  command: string,
  args: string[],
  ready: RegExp,
  env = {},
): Promise<RegExpMatchArray & { pid: number }> {
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const watch = (line: string): void => {
      seen += `${line}\n`;
      const match = ready.exec(seen);
      if (match !== null) resolve(Object.assign(match, { pid: child.pid ?? 0 }));
    };
    createInterface({ input: child.stdout }).on('line', watch);
    createInterface({ input: child.stderr }).on('line', watch);
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}):\n${seen}`)));
  });
}

async function startInstance(name: string, redis: string): Promise<{ port: number; pid: number }> {
  const match = await start(
    process.execPath,
    [
      CLI,
      'serve',
      MODULE,
      '--http',
      '127.0.0.1:0',
      '--redis',
      redis,
      '--instance',
      name,
      '--allowed-host',
      '127.0.0.1',
    ],
    /over Streamable HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
    { AGENTTOOL_REQUEST_STATE_KEY: KEY },
  );
  return { port: Number(match[1]), pid: match.pid };
}

async function startBalancer(
  ports: readonly number[],
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const config = join(dir, `haproxy-${port}.cfg`);
  writeFileSync(
    config,
    `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  option redispatch 1
  retries 2
  retry-on conn-failure 503
frontend mcp
  bind 127.0.0.1:${port}
  default_backend agents
backend agents
  balance roundrobin
  option httpchk GET /healthz
${ports.map((p, i) => `  server i${i} 127.0.0.1:${p} check inter 1000`).join('\n')}
`,
  );
  const child = spawn(program('haproxy'), ['-db', '-f', config], { stdio: 'ignore' });
  children.push(child);
  // Ready when a call goes through.
  for (let i = 0; ; i++) {
    try {
      await callOnce(new Agent({ keepAlive: true }), port, 0);
      return { port, child };
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function callOnce(agent: Agent, port: number, id: number): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'work', arguments: {}, _meta: META },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'work',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200 || !text.includes('"resultType":"complete"')) {
            reject(new Error(`call failed: ${res.statusCode} ${text.slice(0, 200)}`));
          } else resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Calls per second with `IN_FLIGHT` calls in flight, over `CALLS` calls. */
async function throughput(port: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < CALLS) await callOnce(agent, port, next++);
  };
  // Warm-up, then the timed run.
  next = CALLS - 200;
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return CALLS / seconds;
}

/** The median time of one call at a time, in microseconds. */
async function latency(port: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 50; i++) await callOnce(agent, port, i);
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_CALLS; i++) {
    const started = process.hrtime.bigint();
    await callOnce(agent, port, i);
    samples.push(Number(process.hrtime.bigint() - started) / 1e3);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const redisPort = await freePort();
  const redisServer = await start(
    program('redis-server'),
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    /Ready to accept connections/,
  );
  const redis = `redis://127.0.0.1:${redisPort}`;
  const instances = await Promise.all(['i0', 'i1', 'i2', 'i3'].map((n) => startInstance(n, redis)));
  console.log(
    `scale-out: ${CALLS} calls of a ~1 ms CPU tool, ${IN_FLIGHT} in flight, through HAProxy (${cpus().length} cores here)`,
  );
  const rates: [number, number][] = [];
  const costs: Record<string, number>[] = [];
  for (const count of [1, 2, 4]) {
    const serving = instances.slice(0, count);
    const lb = await startBalancer(serving.map((i) => i.port));
    const instancesCpu = (): number => serving.reduce((sum, i) => sum + cpuMs(i.pid), 0);
    const before = {
      instances: instancesCpu(),
      haproxy: cpuMs(lb.child.pid ?? 0),
      redis: cpuMs(redisServer.pid),
      client: process.cpuUsage(),
    };
    rates.push([count, await throughput(lb.port)]);
    const client = process.cpuUsage(before.client);
    // CPU per call, in ms; the warm-up's 200 calls count too.
    const calls = CALLS + 200;
    costs.push({
      instances: (instancesCpu() - before.instances) / calls,
      haproxy: (cpuMs(lb.child.pid ?? 0) - before.haproxy) / calls,
      redis: (cpuMs(redisServer.pid) - before.redis) / calls,
      client: (client.user + client.system) / 1000 / calls,
    });
    lb.child.kill('SIGKILL');
  }
  const one = rates[0]![1];
  rates.forEach(([count, rate], i) => {
    const cost = costs[i]!;
    console.log(
      `  ${count} instance${count === 1 ? ' ' : 's'}  ${rate.toFixed(0).padStart(6)} calls/s  ${(rate / one).toFixed(2)}x one instance   CPU per call: instances ${cost['instances']!.toFixed(2)} ms, HAProxy ${cost['haproxy']!.toFixed(2)} ms, Redis ${cost['redis']!.toFixed(2)} ms, load generator ${cost['client']!.toFixed(2)} ms`,
    );
  });
  const total = Object.values(costs[0]!).reduce((sum, ms) => sum + ms, 0);
  const perInstance = costs[0]!['instances']!;
  console.log(
    `\nprojected from the CPU per call measured with one instance: an instance serves at most ${(1000 / perInstance).toFixed(0)} calls/s per core it gets; the whole setup needs ${total.toFixed(2)} ms of CPU per call, so ${cpus().length} idle cores would carry about ${((cpus().length * 1000) / total).toFixed(0)} calls/s`,
  );
  const lb = await startBalancer(instances.slice(0, 1).map((i) => i.port));
  const direct = await latency(instances[0]!.port);
  const balanced = await latency(lb.port);
  console.log('\nthe balancer hop, one call at a time (median)');
  console.log(`  direct to an instance  ${direct.toFixed(0).padStart(6)} µs`);
  console.log(
    `  through HAProxy        ${balanced.toFixed(0).padStart(6)} µs  (+${(balanced - direct).toFixed(0)} µs, ${(balanced / direct).toFixed(2)}x direct)`,
  );
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
