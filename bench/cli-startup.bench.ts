/**
 * The `agenttool` command's start, from spawning it to the answer to the first
 * `tools/list`: `agenttool workspace` over stdio, in a fresh process each time, with
 * Node's module compile cache on (`NODE_COMPILE_CACHE`, warmed by one run first) and off
 * (`NODE_DISABLE_COMPILE_CACHE=1`). Runs alternate; a figure is the median. The command
 * does not turn the cache on itself: on these machines it measured no gain (a CommonJS
 * module is compiled lazily, function by function, so little is left for a cache).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Figure, report } from './measure';

const CLI = join(__dirname, '../src/cli/main.js');
const RUNS = 9;

/** Milliseconds from spawn to the first tools/list answer. */
function startToList(dir: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [CLI, 'workspace', dir, '--no-sandbox'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('"id":2')) {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        child.kill('SIGKILL');
        resolve(ms);
      }
    });
    child.on('error', reject);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cli-startup-'));
  const cache = mkdtempSync(join(tmpdir(), 'cli-startup-cache-'));
  try {
    const on = { NODE_COMPILE_CACHE: cache };
    const off = { NODE_DISABLE_COMPILE_CACHE: '1' };
    await startToList(dir, on);
    const withCache: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      without.push(await startToList(dir, off));
      withCache.push(await startToList(dir, on));
    }
    const figures: Figure[] = [
      { name: 'compile cache off', nsPerOp: median(without) * 1e6 },
      { name: 'compile cache on', nsPerOp: median(withCache) * 1e6 },
    ];
    report(
      'agenttool workspace (stdio): spawn to the first tools/list answer',
      figures,
      'compile cache off',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
