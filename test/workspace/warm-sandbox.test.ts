/**
 * `agenttool workspace` readies its sandbox's proxies a moment after it serves, before
 * the first command: the runtime they come from takes a fifth of a second to start them,
 * which the first `bash` call paid. The first shell uses those very proxies, and they
 * leave with the server, whether it is closed or SIGKILLed. Without a sandbox nothing is
 * started ahead. Spoken to by the SDK's plain client over stdio, as a host does; and
 * in an app's own process, through `warmSandbox` from `agenttool/shell`.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Shell, warmSandbox } from 'agenttool/shell';
import { CLI, ensureBuilt, killChildren, tempDir } from '../cli/helpers';
import { allGone, descendants, type ProcessInfo } from '../support/processes';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

beforeAll(() => ensureBuilt(), 300_000);

const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function host(
  args: readonly string[],
): Promise<{ client: Client; transport: StdioClientTransport; pid: number }> {
  const root = realpathSync(tempDir());
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'workspace', root, ...args],
    cwd: root,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'a-host', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server has no pid');
  pids.push(pid);
  await client.listTools();
  return { client, transport, pid };
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * The host-side ends of the proxies' bridges into the sandbox: the server's own socat
 * children (inside a sandbox, its other end is a socat too).
 */
const bridges = (pid: number): ProcessInfo[] =>
  descendants(pid).filter((proc) => proc.comm === 'socat' && parentOf(proc.pid) === pid);

/** Polls until the server has its proxies' bridges (socat); what it had then. */
async function warmed(pid: number): Promise<ProcessInfo[]> {
  for (let i = 0; i < 250; i += 1) {
    const found = bridges(pid);
    if (found.length > 0) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return bridges(pid);
}

const pidsOf = (procs: readonly ProcessInfo[]) => procs.map((proc) => proc.pid).sort();

test.each(['closed', 'SIGKILLed'] as const)(
  "the proxies' bridges are up before the first command, which uses them; none is left once %s",
  async (ending) => {
    const { client, pid } = await host([]);
    let before: ProcessInfo[] = [];
    let helpers: ProcessInfo[] = [];
    try {
      before = await warmed(pid);
      expect(before.length).toBeGreaterThan(0);
      const result = (await client.callTool({
        name: 'bash',
        arguments: { command: 'echo first' },
      })) as { content: { text: string }[] };
      expect(result.content[0]?.text).toBe('first\n');
      // The first shell's sandbox went through the bridges made ahead, not new ones.
      expect(pidsOf(bridges(pid))).toEqual(pidsOf(before));
      helpers = descendants(pid);
      expect(helpers.map((proc) => proc.comm)).toContain('bwrap');
    } finally {
      if (ending === 'closed') await client.close();
      else process.kill(pid, 'SIGKILL');
    }
    expect(await allGone(helpers)).toEqual([]);
    expect(await proxySocketsGone(pid)).toEqual([]);
  },
  60_000,
);

test('a server stopped before its first command leaves no bridge behind', async () => {
  const { client, pid } = await host([]);
  const before = await warmed(pid);
  expect(before.length).toBeGreaterThan(0);
  await client.close();
  expect(await allGone(before)).toEqual([]);
}, 60_000);

/**
 * Waits, boundedly, until none is left of the sockets the runtime's proxy made for the
 * server `pid` (named after it); those left then.
 */
async function proxySocketsGone(pid: number): Promise<string[]> {
  const left = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`srt-mux-${pid}-`));
  for (let i = 0; i < 250 && left().length > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return left();
}

/** The sockets a socat bridge listens on, from its command line. */
function socketsOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .flatMap((word) => /^UNIX-LISTEN:([^,]+)/.exec(word)?.[1] ?? []);
  } catch {
    return [];
  }
}

test('a server SIGKILLed while its sandbox starts leaves no bridge and no socket behind', async () => {
  const { pid } = await host([]);
  // Killed a moment after its first bridge listens: the runtime is still starting (it
  // polls for the bridge's socket, at 0 ms then 100 ms) and has not said what it
  // started. The janitor hears of each bridge as it is made; it cannot before, so a
  // kill in the millisecond between a bridge's start and that would leave it.
  let first: ProcessInfo[] = [];
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    } catch {
      break;
    }
    if (children.trim() !== '') first = bridges(pid);
    if (first.some((proc) => socketsOf(proc.pid).some((path) => existsSync(path)))) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 2));
  process.kill(pid, 'SIGKILL');
  expect(first.length).toBeGreaterThan(0);
  const sockets = first.flatMap((proc) => socketsOf(proc.pid));
  expect(sockets.length).toBeGreaterThan(0);
  expect(await allGone(first)).toEqual([]);
  for (let i = 0; i < 250 && sockets.some((path) => existsSync(path)); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(sockets.filter((path) => existsSync(path))).toEqual([]);
  expect(await proxySocketsGone(pid)).toEqual([]);
}, 60_000);

test('without a sandbox, nothing is started ahead', async () => {
  const { client, pid } = await host(['--no-sandbox']);
  try {
    // Well past the moment a sandboxed workspace readies its proxies.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(descendants(pid)).toEqual([]);
  } finally {
    await client.close();
  }
}, 60_000);

test("an app's warmSandbox readies the proxies a Shell then uses; once both let go, they stop", async () => {
  const cool = warmSandbox();
  const before = await warmed(process.pid);
  expect(before.length).toBeGreaterThan(0);
  const shell = new Shell({ cwd: realpathSync(tempDir()) });
  try {
    expect((await shell.run('echo in the sandbox')).output).toBe('in the sandbox\n');
    expect(pidsOf(bridges(process.pid))).toEqual(pidsOf(before));
  } finally {
    await shell.close();
  }
  // The shell is gone, the warm-up still holds them.
  expect(pidsOf(bridges(process.pid))).toEqual(pidsOf(before));
  await cool();
  expect(await allGone(before)).toEqual([]);
}, 60_000);
