/**
 * `agenttool workspace` as hosts run it: the built CLI, spoken to by the SDK's plain
 * client (no extension of ours) over stdio and over Streamable HTTP, in both eras.
 * - A 2026-07-28 client over HTTP has no session: it keeps its shell by the `shell_id`
 *   handle a result gives, carried as an ordinary argument, as a model would.
 * - Calls sent together on one shell both run, in the order they came; a call sent right
 *   after a cancel runs once the cancelled command is gone.
 * - The list is fixed, so `tools.listChanged` is false.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, connectWorkspace } from '../support/workspace-cli';

type Era = 'legacy' | 'modern';

interface CallResult {
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

let root: string;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'workspace-hosts-')));
  mkdirSync(join(root, 'sub'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(root, { recursive: true, force: true });
});

function client(era: Era): Client {
  return new Client(
    { name: 'a-host', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
}

function connect(era: Era, over: 'stdio' | 'http'): Promise<Client> {
  return connectWorkspace(client(era), over, root, cleanups);
}

function textOf(result: CallResult): string {
  return (result.content ?? []).map((block) => block.text ?? '').join('');
}

async function bash(
  c: Client,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal; onprogress?: () => void } = {},
): Promise<CallResult> {
  return (await c.callTool(
    { name: 'bash', arguments: args },
    {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onprogress === undefined ? {} : { onprogress: options.onprogress }),
      timeout: 60_000,
    },
  )) as CallResult;
}

function shellIdOf(result: CallResult): string {
  const id = result.structuredContent?.['shell_id'];
  if (typeof id !== 'string') throw new Error(`no shell_id in ${JSON.stringify(result)}`);
  return id;
}

describe('a 2026-07-28 client over HTTP, carrying shell_id as a model would', () => {
  test('keeps its directory and variables under the handle; without it, a new shell', async () => {
    const c = await connect('modern', 'http');
    expect(c.getServerCapabilities()?.tools?.listChanged).toBe(false);
    const tools = await c.listTools();
    const bashTool = tools.tools.find((tool) => tool.name === 'bash');
    expect(bashTool?.inputSchema.properties).toHaveProperty('shell_id');
    expect(bashTool?.description).toContain('A shell unused for 30 minutes is closed.');

    const first = await bash(c, { command: 'cd sub && export WHO=model' });
    const id = shellIdOf(first);
    expect(textOf(first)).toBe(
      `(no output)\n[shell_id: ${id} (a new shell; pass shell_id to keep using it)]`,
    );
    const kept = await bash(c, { command: 'pwd; echo $WHO', shell_id: id });
    expect(kept.isError).toBeUndefined();
    expect(textOf(kept)).toBe(`${join(root, 'sub')}\nmodel\n`);
    expect(shellIdOf(kept)).toBe(id);

    // Two handles are two shells.
    const fresh = await bash(c, { command: 'pwd; echo "[$WHO]"' });
    const other = shellIdOf(fresh);
    expect(other).not.toBe(id);
    expect(textOf(fresh).startsWith(`${root}\n[]\n[shell_id: ${other} `)).toBe(true);
    expect(textOf(await bash(c, { command: 'echo $WHO', shell_id: id }))).toBe('model\n');

    // The restart tool takes the handle too, and restarts that shell alone.
    const restarted = (await c.callTool({
      name: 'restart',
      arguments: { shell_id: id },
    })) as CallResult;
    expect(textOf(restarted)).toBe('The shell was restarted.');
    expect(textOf(await bash(c, { command: 'pwd', shell_id: id }))).toBe(`${root}\n`);

    const unknown = await bash(c, { command: 'true', shell_id: 'shell_nothing' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain(
      'shell_id "shell_nothing" names no open shell: it was closed (after 30 minutes unused, or when the server restarted) or was never given to this caller; call again without shell_id to start a new shell',
    );
  });
});

describe.each([
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'legacy'],
  ['http', 'modern'],
] as const)('over %s, a %s client', (over, era) => {
  test('has calls sent together on one shell both run, in the order they came', async () => {
    const c = await connect(era, over);
    expect(c.getServerCapabilities()?.tools?.listChanged).toBe(false);
    // A 2026-07-28 client over HTTP keeps its shell by handle; the others by session.
    const first = await bash(c, { command: 'cd sub' });
    const handle = over === 'http' && era === 'modern' ? { shell_id: shellIdOf(first) } : {};
    let started!: () => void;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const slow = bash(
      c,
      { command: 'echo started; sleep 0.3; echo one >> order.txt', ...handle },
      { onprogress: () => started() },
    );
    // Sent once the first is running, so that over HTTP it arrives second.
    await firstStarted;
    const quick = bash(c, { command: 'echo two >> order.txt; pwd', ...handle });
    const [a, b] = await Promise.all([slow, quick]);
    expect(a.isError).toBeUndefined();
    expect(b.isError).toBeUndefined();
    expect(textOf(b)).toBe(`${join(root, 'sub')}\n`);
    expect(readFileSync(join(root, 'sub', 'order.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  test('runs a call sent right after a cancel, once the cancelled command is gone', async () => {
    const c = await connect(era, over);
    const first = await bash(c, { command: 'export KEPT=yes' });
    const handle = over === 'http' && era === 'modern' ? { shell_id: shellIdOf(first) } : {};
    const cancel = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const long = bash(
      c,
      { command: 'echo started; sleep 120; echo never >> never.txt', ...handle },
      { signal: cancel.signal, onprogress: () => started() },
    );
    long.catch(() => undefined);
    await running;
    cancel.abort();
    const after = await bash(c, { command: 'echo "after $KEPT"', ...handle });
    expect(after.isError).toBeUndefined();
    expect(textOf(after)).toBe('after yes\n');
    await expect(long).rejects.toThrow();
  });
});

describe("the command's compile cache, inside the workspace", () => {
  test('is read-only to the sandboxed shell: no code planted for the next start', async () => {
    const cacheHome = join(root, '.cache');
    const cache = join(cacheHome, 'agenttool', 'node-compile-cache');
    const c = client('legacy');
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'workspace', root],
        cwd: root,
        env: { ...(process.env as Record<string, string>), XDG_CACHE_HOME: cacheHome },
        stderr: 'ignore',
      }),
    );
    cleanups.push(() => c.close());
    const result = await bash(c, {
      command: `touch ${cache}/planted; touch ${root}/written && echo other-writes-work`,
    });
    expect(textOf(result)).toMatch(
      /Read-only file system|Permission denied|Operation not permitted/,
    );
    expect(textOf(result)).toContain('other-writes-work');
    expect(existsSync(join(cache, 'planted'))).toBe(false);
    expect(existsSync(join(root, 'written'))).toBe(true);
  });
});

describe('a message larger than the server reads over stdio (10 MiB)', () => {
  test('is answered with an error, and the server and its shell go on', async () => {
    const c = await connect('legacy', 'stdio');
    await bash(c, { command: 'cd sub && export KEPT=yes' });
    const content = 'x'.repeat(11 * 1024 * 1024);
    const refused = c.callTool(
      { name: 'write_file', arguments: { path: 'big.txt', content } },
      { timeout: 60_000 },
    );
    await expect(refused).rejects.toThrow(
      /Message too large: the limit over stdio is 10485760 bytes, and this one had 1153\d{4}/,
    );
    expect(existsSync(join(root, 'big.txt'))).toBe(false);
    expect(textOf(await bash(c, { command: 'pwd; echo $KEPT' }))).toBe(
      `${join(root, 'sub')}\nyes\n`,
    );
  });
});

describe('a result longer than a stdio client reads (the SDK client: 10 MiB)', () => {
  test.each(['legacy', 'modern'] as const)(
    '%s: read_file of 4 MiB of control characters is a tool error, and the server and its shell go on',
    async (era) => {
      // Each byte is six as JSON (\u0001): 24 MiB, which the SDK's client would not read,
      // and it would close the connection.
      writeFileSync(join(root, 'controls.txt'), Buffer.alloc(4 * 1024 * 1024, 1));
      const c = await connect(era, 'stdio');
      await bash(c, { command: 'cd sub && export KEPT=yes' });
      const result = (await c.callTool(
        { name: 'read_file', arguments: { path: 'controls.txt', max_bytes: 4 * 1024 * 1024 } },
        { timeout: 60_000 },
      )) as CallResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /^The result of this call is 251\d{5} bytes as JSON, more than the 10420224 bytes this server sends in one message over stdio; it was not sent\. Ask for less at a time/,
      );
      expect(textOf(await bash(c, { command: 'pwd; echo $KEPT' }))).toBe(
        `${join(root, 'sub')}\nyes\n`,
      );
    },
  );
});
