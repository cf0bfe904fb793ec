/**
 * A host that runs a model's tool calls at once (as agent frameworks do with the calls of
 * one turn) sends a file change and a shell command together: over stdio, and in a
 * 2025-era session over HTTP, they run in the order they came, as the model wrote them.
 * The built `agenttool workspace`, driven by the SDK's own client in both eras.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

  test('a command that writes a file, an append and an edit after it: nothing is lost', async () => {
    const c = await connect(era, over);
    for (let round = 0; round < 10; round++) {
      const path = `out-${round}.txt`;
      const answers = await Promise.all([
        call(c, 'bash', { command: `echo first > ${path}` }),
        call(c, 'append_file', { path, content: 'second\n' }),
        call(c, 'edit_file', { path, old_text: 'first', new_text: 'one' }),
        call(c, 'bash', { command: `cat ${path}` }),
      ]);
      expect(answers).toEqual([
        '(no output)',
        `Appended 7 bytes to ${root}/${path}.`,
        `Edited ${root}/${path}: replaced 1 occurrence, at line 1.`,
        'one\nsecond\n',
      ]);
      expect(readFileSync(join(root, path), 'utf8')).toBe('one\nsecond\n');
    }
  }, 60_000);

  test('a read runs beside a command still running', async () => {
    const c = await connect(era, over);
    await call(c, 'write_file', { path: 'notes.md', content: 'hello\n' });
    const order: string[] = [];
    // The command runs until the test makes the file `go`, once the read has answered.
    const command = call(c, 'bash', {
      command: 'until [ -e go ]; do sleep 0.05; done; echo done',
    }).then((text) => {
      order.push('command');
      return text;
    });
    const read = await call(c, 'read_file', { path: 'notes.md' });
    order.push('read');
    writeFileSync(join(root, 'go'), '');
    expect(read).toContain('hello');
    expect(await command).toBe('done\n');
    expect(order).toEqual(['read', 'command']);
  }, 60_000);
});
