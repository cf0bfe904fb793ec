/**
 * A host that runs a model's tool calls at once (as agent frameworks do with the calls of
 * one turn) sends file changes and shell commands together: over stdio, and in a
 * 2025-era session over HTTP, a command waits for the file changes sent before it, while
 * file changes and reads never wait for a command. The built `agenttool workspace`,
 * driven by the SDK's own client in both eras.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { connectWorkspace } from '../support/workspace-cli';

type Era = 'legacy' | 'modern';

let root: string;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'calls-in-line-')));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(root, { recursive: true, force: true });
});

function connect(era: Era, over: 'stdio' | 'http'): Promise<Client> {
  const client = new Client(
    { name: 'a-host', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  return connectWorkspace(client, over, root, cleanups);
}

/** The call's text, `[error] …` for a tool error. */
async function call(c: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await c.callTool({ name, arguments: args }, { timeout: 60_000 });
  const text = (result.content as { text?: string }[]).map((block) => block.text ?? '').join('');
  return result.isError === true ? `[error] ${text}` : text;
}

describe.each([
  ['stdio', 'modern'],
  ['stdio', 'legacy'],
  ['http', 'legacy'],
] as const)('over %s, a %s client sending calls at once', (over, era) => {
  test('a script written and the command that runs it: the command finds it, 10 times over', async () => {
    const c = await connect(era, over);
    for (let round = 0; round < 10; round++) {
      const content = `echo ran ${round}\n`;
      const [written, ran] = await Promise.all([
        call(c, 'write_file', { path: `scripts/s${round}.sh`, content }),
        call(c, 'bash', { command: `bash scripts/s${round}.sh` }),
      ]);
      expect(written).toBe(`Wrote ${content.length} bytes to ${root}/scripts/s${round}.sh.`);
      expect(ran).toBe(`ran ${round}\n`);
    }
  }, 60_000);

  test('a read sent after a write sees it, while a command runs; neither waits for the command', async () => {
    const c = await connect(era, over);
    const order: string[] = [];
    // The command runs until the test makes the file `go`, once the others have answered.
    const command = call(c, 'bash', {
      command: 'until [ -e go ]; do sleep 0.05; done; echo done',
    }).then((text) => {
      order.push('command');
      return text;
    });
    const [written, read] = await Promise.all([
      call(c, 'write_file', { path: 'notes.md', content: 'fresh\n' }),
      call(c, 'read_file', { path: 'notes.md' }),
    ]);
    order.push('file calls');
    writeFileSync(join(root, 'go'), '');
    expect(written).toBe(`Wrote 6 bytes to ${root}/notes.md.`);
    expect(read).toContain('fresh');
    expect(await command).toBe('done\n');
    expect(order).toEqual(['file calls', 'command']);
  }, 60_000);

  test('a burst of 24 writes sent at once all land', async () => {
    const c = await connect(era, over);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(c, 'write_file', { path: `burst/f${i}.txt`, content: `${i}\n` }),
      ),
    );
    expect(answers.filter((a) => a.startsWith('[error]'))).toEqual([]);
    expect(await call(c, 'bash', { command: 'cat burst/*.txt | wc -l' })).toBe('24\n');
  }, 60_000);
});
