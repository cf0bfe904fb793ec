import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Job,
  type Tool,
  Executor,
  annotationsOf,
  createContext,
  definitionOf,
  replayOf,
  toolFromInstance,
} from 'agenttool';
import { Sandbox } from '../../samples/fs/sandbox';
import { AppendFileTool, ReadFileTool, WriteFileTool } from '../../samples/fs/tools';

let base: string;
let root: string;
let readFile: Tool;
let writeFile: Tool;
let appendFile: Tool;
let ids = 0;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'fs-tools-')));
  root = join(base, 'root');
  mkdirSync(root);
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
  const sandbox = new Sandbox(root);
  readFile = toolFromInstance(new ReadFileTool(sandbox));
  writeFile = toolFromInstance(new WriteFileTool(sandbox));
  appendFile = toolFromInstance(new AppendFileTool(sandbox));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function job(tool: Tool, args: unknown): Job {
  return { tool, call: { id: `call_${++ids}`, args: JSON.stringify(args) } };
}

async function run(...jobs: Job[]): Promise<unknown[]> {
  const outcomes = await new Executor().results(jobs);
  return outcomes.map((o) =>
    o.error !== undefined ? `Error: ${o.error.message}` : o.result.output,
  );
}

describe('fs tools: what they declare', () => {
  const ctx = createContext();

  it('read_file is read-only and safe to replay', () => {
    expect(annotationsOf(readFile)).toMatchObject({ readOnly: true });
    expect(replayOf(readFile, '{"path":"a"}', ctx)).toBe('safe');
  });

  it('write_file is safe to replay; append_file is not known to be', () => {
    expect(replayOf(writeFile, '{"path":"a","content":""}', ctx)).toBe('safe');
    expect(replayOf(appendFile, '{"path":"a","content":""}', ctx)).toBe('unknown');
    expect(annotationsOf(writeFile)).toMatchObject({ readOnly: false, idempotent: true });
    expect(annotationsOf(appendFile)).toMatchObject({ readOnly: false, idempotent: false });
  });

  it('take a path, and content or an optional integer max_bytes', () => {
    expect(definitionOf(readFile).parameters).toMatchObject({
      properties: { path: { type: 'string' }, max_bytes: { type: 'integer' } },
      required: ['path'],
    });
    expect(definitionOf(writeFile).parameters).toMatchObject({ required: ['path', 'content'] });
    expect(definitionOf(appendFile).parameters).toMatchObject({ required: ['path', 'content'] });
  });
});

describe('fs tools through the executor', () => {
  it('write, append and read a file inside the root', async () => {
    expect(await run(job(writeFile, { path: 'notes/a.txt', content: 'one\n' }))).toEqual([
      'Wrote 4 bytes to notes/a.txt.',
    ]);
    expect(await run(job(appendFile, { path: 'notes/a.txt', content: 'two\n' }))).toEqual([
      'Appended 4 bytes to notes/a.txt.',
    ]);
    expect(await run(job(readFile, { path: 'notes/a.txt' }))).toEqual(['one\ntwo\n']);
    expect(readFileSync(join(root, 'notes/a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('read_file stops at max_bytes and says how to read more', async () => {
    writeFileSync(join(root, 'big.txt'), 'abcdefghij');
    expect(await run(job(readFile, { path: 'big.txt', max_bytes: 4 }))).toEqual([
      'abcd\n[truncated: showed 4 of 10 bytes; read with a larger max_bytes for more]',
    ]);
  });

  it('refuses every escape with a clear error and touches nothing', async () => {
    symlinkSync(join(base, 'outside'), join(root, 'out'));
    const attempts = [
      '../outside/secret.txt',
      join(base, 'outside', 'secret.txt'),
      'out/secret.txt',
    ];
    for (const path of attempts) {
      const outputs = await run(
        job(readFile, { path }),
        job(writeFile, { path, content: 'pwned' }),
        job(appendFile, { path, content: 'pwned' }),
      );
      for (const output of outputs) {
        expect(output).toMatch(
          new RegExp(
            `^Error: the path ${escape(JSON.stringify(path))} is outside the root directory ${escape(JSON.stringify(root))}`,
          ),
        );
      }
    }
    expect(readFileSync(join(base, 'outside', 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(join(root, 'outside'))).toBe(false);
  });

  it('reports a missing file and invalid arguments clearly', async () => {
    expect(await run(job(readFile, { path: 'nope.txt' }), job(writeFile, { path: 'x' }))).toEqual([
      'Error: cannot read "nope.txt": no such file',
      expect.stringMatching(/^Error: invalid arguments: .*content/),
    ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
