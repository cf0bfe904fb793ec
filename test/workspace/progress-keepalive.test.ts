/**
 * `agenttool workspace` keeps a host waiting on a long command: hosts restart their
 * request timeout on each progress notification (the SDK client's
 * `resetTimeoutOnProgress`), and a command that is quiet, or whose output is past the
 * 64 KiB of text progress carries, still sends progress every `--progress-keepalive`.
 * Regression: such a command sent nothing more, and the host cancelled it at its
 * timeout (`npm ci`, a quiet test run).
 *
 * The built CLI, spoken to by the SDK's plain client over stdio and over Streamable
 * HTTP. Each command runs 2.5 times the client's timeout, in a shell started by a call
 * before it (the first call of a server loads and starts what the shell needs).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { connectWorkspace } from '../support/workspace-cli';

/** The server's keepalive, and the client's timeout it keeps restarting (15 intervals). */
const KEEPALIVE = ['--progress-keepalive', '100'];
const CLIENT_TIMEOUT_MS = 1500;

/** 70 KB of output (past the 64 KiB budget), then a tick every 0.25 s for 4 s. */
const FLOOD_THEN_TICKS =
  'head -c 70000 /dev/zero | tr "\\0" a; echo; for i in $(seq 1 16); do echo "tick $i"; sleep 0.25; done; echo finished';
/** Nothing at all for 4 s. */
const QUIET = 'sleep 4; echo finished';

type Era = 'legacy' | 'modern';
type Progress = { progress: number; total?: number | undefined; message?: string | undefined };

let root: string;
/** The shell handle of each client that is given one. */
const handles = new WeakMap<Client, string>();
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'workspace-keepalive-')));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(root, { recursive: true, force: true });
});

async function connect(era: Era, over: 'stdio' | 'http'): Promise<Client> {
  const c = await connectWorkspace(
    new Client(
      { name: 'a-host', version: '1.0.0' },
      { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
    ),
    over,
    root,
    cleanups,
    KEEPALIVE,
  );
  // The shell is started, and what it needs loaded, before the timed call; a 2026-07-28
  // client over HTTP keeps it by its handle.
  const started = await c.callTool(
    { name: 'bash', arguments: { command: 'true' } },
    { timeout: 60_000 },
  );
  const id = (started.structuredContent as Record<string, unknown> | undefined)?.['shell_id'];
  if (typeof id === 'string') handles.set(c, id);
  return c;
}

/** Runs `command` as a host that waits on progress would; its text, and the progress seen. */
async function run(c: Client, command: string): Promise<{ text: string; seen: Progress[] }> {
  const seen: Progress[] = [];
  const result = await c.callTool(
    { name: 'bash', arguments: { command, ...shellOf(c) } },
    {
      timeout: CLIENT_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => seen.push(progress),
    },
  );
  const content = (result.content ?? []) as readonly { text?: string }[];
  return { text: content.map((block) => block.text ?? '').join(''), seen };
}

function shellOf(c: Client): { shell_id?: string } {
  const id = handles.get(c);
  return id === undefined ? {} : { shell_id: id };
}

function expectIncreasing(seen: readonly Progress[]): void {
  for (let i = 1; i < seen.length; i++) {
    expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  }
}

// Each era and transport is covered in test/mcp/server/progress-keepalive.test.ts; here,
// the flag and the shell end to end, as hosts run them.
describe.each<[Era, 'stdio' | 'http']>([
  ['modern', 'stdio'],
  ['modern', 'http'],
])('a %s client over %s', (era, over) => {
  test('a command past the 64 KiB of text progress carries is kept alive to its end', async () => {
    const c = await connect(era, over);
    const { text, seen } = await run(c, FLOOD_THEN_TICKS);
    // (A 2026-07-28 client over HTTP is told the shell's handle after it.)
    expect(text).toContain('tick 16\nfinished\n');
    const truncated = seen.findIndex((p) => p.message?.endsWith('[output truncated]') === true);
    expect(truncated).toBeGreaterThanOrEqual(0);
    // Past the budget, the ticks are not sent: keepalives with numbers only are.
    const after = seen.slice(truncated + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const beat of after) expect(beat).toEqual({ progress: expect.any(Number) as number });
    expectIncreasing(seen);
  });
});

test.each<[Era]>([['legacy']])(
  'a %s client over stdio: a quiet command is kept alive to its end',
  async (era) => {
    const c = await connect(era, 'stdio');
    const { text, seen } = await run(c, QUIET);
    expect(text).toBe('finished\n');
    // Keepalives with numbers only, and the command's one line, if it came as progress.
    const beats = seen.filter((p) => p.message !== 'finished\n');
    expect(beats.length).toBeGreaterThan(0);
    for (const beat of beats) expect(beat).toEqual({ progress: expect.any(Number) as number });
    expectIncreasing(seen);
  },
);
