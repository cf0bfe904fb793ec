/**
 * Start-up as a host sees it: from spawning a server to the answer to its first
 * `tools/list` over stdio (an `initialize`, its notification and the list, written at
 * once), for the `agenttool` command (`workspace`, and `serve` of a module file), for a
 * user's own app on `agenttool/mcp`, against a bare `node -e ''` (spawn to exit), the
 * SDK's McpServer with zod serving the same tool, and the Go peer (the MCP Go SDK that
 * agenttool's Go binding serves with; built by scripts/setup-go-peer.sh, skipped when
 * absent). Each contender runs once untimed (which also fills a compile cache), then
 * RUNS times, the contenders taking turns; a figure is the median.
 *
 * The command's bin turns on Node's compile cache (in XDG_CACHE_HOME, here a temporary
 * folder) and a code cache of the package's files; an app turns the first on with
 * NODE_COMPILE_CACHE or `module.enableCompileCache()` at its top, and both by importing
 * agenttool/code-cache first. Rows with the cache off say what it buys.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './mcp-child';
import { type Figure, report } from './measure';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'dist/pkg/agenttool.js');
const GO_PEER = join(ROOT, '.tmp/go-peer/agenttool-go-peer');
const FIXTURES = join(ROOT, 'test/fixtures/contract');
const RUNS = 11;

const BARE = "bare node (node -e '')";
const MCP_SERVER = 'SDK McpServer + zod (app)';
const GO = 'Go peer (go-sdk, serve-stdio)';

interface Contender {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Measured to exit rather than to the list's answer. */
  readonly exits?: boolean;
}

const INITIALIZE = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'startup-bench', version: '1' },
    },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join('');

/** Milliseconds from spawn to the list's answer (or to exit, for the bare node). */
function once(contender: Contender): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(contender.command, [...contender.args], {
      env: { ...process.env, ...contender.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const elapsed = (): number => Number(process.hrtime.bigint() - start) / 1e6;
    let out = '';
    let err = '';
    let done = false;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!done && /"id":2\b/.test(out)) {
        done = true;
        const ms = elapsed();
        // Stopped as a host stops it, by closing its stdin; the next run starts once it
        // has exited (a server that outstays 5 s is killed).
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => (clearTimeout(timer), resolve(ms)));
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (done) return;
      done = true;
      if (contender.exits === true && code === 0) resolve(elapsed());
      else reject(new Error(`${contender.name} exited ${code} before answering:\n${err}${out}`));
    });
    if (contender.exits !== true) child.stdin.write(INITIALIZE);
    child.stdin.on('error', () => undefined);
  });
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'startup-bench-'));
  const workspace = join(scratch, 'workspace');
  const node = process.execPath;
  const cacheHome = { XDG_CACHE_HOME: join(scratch, 'cache-home') };
  const appCache = { NODE_COMPILE_CACHE: join(scratch, 'app-cache') };
  const noCache = { NODE_DISABLE_COMPILE_CACHE: '1' };
  const module = join(__dirname, 'startup-app.module.js');
  const contenders: Contender[] = [
    { name: BARE, command: node, args: ['-e', ''], exits: true },
    ...(existsSync(GO_PEER)
      ? [{ name: GO, command: GO_PEER, args: ['serve-stdio', '--fixtures', FIXTURES] }]
      : []),
    { name: MCP_SERVER, command: node, args: [join(__dirname, 'startup-app-mcpserver.js')] },
    {
      name: 'agenttool/mcp app, compile cache off',
      command: node,
      args: [join(__dirname, 'startup-app-agenttool.js')],
      env: noCache,
    },
    {
      name: 'agenttool/mcp app, compile cache on',
      command: node,
      args: [join(__dirname, 'startup-app-agenttool.js')],
      env: appCache,
    },
    {
      name: 'agenttool/mcp app, agenttool/code-cache',
      command: node,
      args: [join(__dirname, 'startup-app-code-cache.js')],
      env: cacheHome,
    },
    {
      name: 'agenttool serve <module>, cache off',
      command: node,
      args: [BIN, 'serve', module],
      env: noCache,
    },
    {
      name: 'agenttool serve <module>',
      command: node,
      args: [BIN, 'serve', module],
      env: cacheHome,
    },
    {
      name: 'agenttool workspace',
      command: node,
      args: [BIN, 'workspace', workspace],
      env: cacheHome,
    },
  ];
  try {
    mkdirSync(workspace);
    const runs = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    for (const contender of contenders) await once(contender);
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? contenders : [...contenders].reverse();
      for (const contender of order) runs.get(contender.name)!.push(await once(contender));
    }
    const figures: Figure[] = contenders.map((c) => ({
      name: c.name,
      nsPerOp: median(runs.get(c.name)!) * 1e6,
    }));
    const title = 'spawn to the first tools/list answered over stdio (2025 initialize)';
    report(`${title}, against a bare node`, figures, BARE);
    report('the same, against the SDK McpServer', figures, MCP_SERVER);
    if (existsSync(GO_PEER)) report('the same, against the Go peer', figures, GO);
    else console.log('\n  (Go peer not built: bash scripts/setup-go-peer.sh)');
    console.log(
      `\n  Target: at most 200 ms for the command and an app; goal 3x bare node. Medians of ${RUNS}` +
        ' fresh processes per contender, taking turns.',
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
