/**
 * Our HTTP server against the Go peer's (test/interop/go/peer: the MCP Go SDK v1.8.0
 * that agenttool's mcpserver v0.0.15 serves with, and the peer's stand-in for
 * mcpserver's mapping) on the same no-op tool with five arguments, called by the same
 * client (our `connectMcp`, in each era, its tool-list grace off since both servers
 * advertise list changes): `tools/call` one at a time and 32 in flight,
 * and a fresh process's start-up to its first `tools/list`. Ratios are ours / Go's,
 * whichever way they fall. Needs `bash scripts/setup-go-peer.sh` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, definitionHash, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import { median } from './mcp-child';
import { NOOP_ARGS } from './mcp-noop';
import { type Figure, measure, report } from './measure';

const ROOT = join(__dirname, '..', '..');
const PEER = join(ROOT, '.tmp/go-peer/agenttool-go-peer');
const FIXTURES = join(ROOT, 'test/fixtures/contract');
const IN_FLIGHT = 32;
const GO = 'Go peer (go-sdk v1.8.0)';
const OURS = 'agenttool';

interface Started {
  readonly url: string;
  readonly child: ChildProcess;
  readonly spawnedAt: bigint;
  readonly listeningAt: bigint;
}

function start(side: 'ours' | 'go'): Promise<Started> {
  const spawnedAt = process.hrtime.bigint();
  const child =
    side === 'go'
      ? spawn(PEER, ['serve-http', '--fixtures', FIXTURES], { stdio: ['pipe', 'pipe', 'inherit'] })
      : spawn(process.execPath, [join(__dirname, 'go-peer-ours.js')], {
          stdio: ['pipe', 'pipe', 'inherit'],
        });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${side} did not start in 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${side} exited (${code})`)));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      const { url } = JSON.parse(out.split('\n')[0]!) as { url: string };
      resolve({ url, child, spawnedAt, listeningAt: process.hrtime.bigint() });
    });
  });
}

async function stop(s: Started): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.stdin?.end();
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function noopOf(remote: RemoteTools): Tool {
  const tool = remote.tools().find((t) => t.name === 'noop');
  if (tool === undefined) throw new Error('no noop tool');
  return tool;
}

async function callOnce(tool: Tool, i: number): Promise<void> {
  const call = { id: `call_${i}`, args: JSON.stringify(NOOP_ARGS) };
  await tool.execute(call, createContext({ call }));
}

/** Start-up: a fresh server process to the first tools/list answered, through our client. */
async function startup(side: 'ours' | 'go', protocol: 'legacy' | 'modern'): Promise<number> {
  const s = await start(side);
  try {
    const remote = await connectMcp({ transport: { url: s.url }, protocol });
    noopOf(remote);
    const ns = Number(process.hrtime.bigint() - s.spawnedAt);
    await remote.close();
    return ns;
  } finally {
    await stop(s);
  }
}

async function main(): Promise<void> {
  if (!existsSync(PEER)) {
    console.error(`${PEER} is missing: run bash scripts/setup-go-peer.sh (needs Go 1.25+)`);
    process.exit(1);
  }
  const summary: string[] = [];
  for (const protocol of ['legacy', 'modern'] as const) {
    const servers = { ours: await start('ours'), go: await start('go') };
    try {
      const remotes = {
        ours: await connectMcp({
          transport: { url: servers.ours.url },
          protocol,
          notificationGrace: 0,
        }),
        go: await connectMcp({
          transport: { url: servers.go.url },
          protocol,
          notificationGrace: 0,
        }),
      };
      const tools = { ours: noopOf(remotes.ours), go: noopOf(remotes.go) };
      if (definitionHash(tools.ours) !== definitionHash(tools.go)) {
        throw new Error('the two no-op tools are not one definition');
      }
      const era = protocol === 'modern' ? '2026-07-28' : '2025 era';
      const sequential: Figure[] = [];
      const concurrent: Figure[] = [];
      for (const [name, side] of [
        [OURS, 'ours'],
        [GO, 'go'],
      ] as const) {
        sequential.push(
          await measure(
            name,
            async (ops) => {
              for (let i = 0; i < ops; i++) await callOnce(tools[side], i);
            },
            { ops: 200, rounds: 5 },
          ),
        );
        concurrent.push(
          await measure(
            name,
            async (ops) => {
              let next = 0;
              const worker = async (): Promise<void> => {
                while (next < ops) await callOnce(tools[side], next++);
              };
              await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
            },
            { ops: 640, rounds: 5 },
          ),
        );
      }
      report(`${era}: HTTP tools/call, no-op tool, sequential, wall time`, sequential, GO);
      report(`${era}: HTTP tools/call, ${IN_FLIGHT} in flight, wall time`, concurrent, GO);
      const ratio = (set: Figure[]): string => (set[0]!.nsPerOp / set[1]!.nsPerOp).toFixed(2);
      summary.push(
        `${era}: tools/call ${ratio(sequential)}x Go sequential, ${ratio(concurrent)}x Go with ${IN_FLIGHT} in flight`,
      );
      await remotes.ours.close();
      await remotes.go.close();
    } finally {
      await stop(servers.ours);
      await stop(servers.go);
    }
    const startups: Figure[] = [];
    for (const [name, side] of [
      [OURS, 'ours'],
      [GO, 'go'],
    ] as const) {
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) runs.push(await startup(side, protocol));
      startups.push({ name, nsPerOp: median(runs) });
    }
    report(
      `${protocol === 'modern' ? '2026-07-28' : '2025 era'}: fresh process to the first tools/list (median of 5)`,
      startups,
      GO,
    );
    summary.push(
      `${protocol === 'modern' ? '2026-07-28' : '2025 era'}: start-up ${(startups[0]!.nsPerOp / startups[1]!.nsPerOp).toFixed(2)}x Go`,
    );
  }
  console.log(`\n  agenttool against the Go peer (ours / Go):\n    ${summary.join('\n    ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
