import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runBatch } from '../../samples/readme/batch';
import { serveGreeter } from '../../samples/readme/greet';
import { greetRemotely } from '../../samples/readme/remote';
import { DEFAULT_WORKSPACE_FOLDER } from '../../samples/workspace/config';

const ROOT = path.join(__dirname, '../..');

// Every code block in the README that is preceded by `<!-- file: <path> -->` must be
// that file, byte for byte; the files are compiled by the build and run below.
describe('the README', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/<!-- file: (\S+) -->\n+```ts\n([\s\S]*?)```/g)];

  it('shows the example files', () => {
    expect(blocks.map((b) => b[1])).toEqual(
      expect.arrayContaining([
        'samples/readme/greet.ts',
        'samples/readme/batch.ts',
        'samples/readme/remote.ts',
      ]),
    );
  });

  it.each(blocks.map((b) => [b[1]!, b[2]!]))('shows %s as it is', async (file, shown) => {
    expect(shown).toBe(await readFile(path.join(ROOT, file), 'utf8'));
  });
});

describe('the default workspace root', () => {
  it('is told alike by the README and samples/README, as the code has it', () => {
    // The module's own default, and the one `npm start` sets when WORKSPACE_ROOT is unset.
    expect(DEFAULT_WORKSPACE_FOLDER).toBe('workspace');
    const start = fs.readFileSync(path.join(ROOT, 'scripts/start.js'), 'utf8');
    expect(start).toContain("process.env.WORKSPACE_ROOT = path.join(ROOT, '.tmp', 'workspace')");
    for (const file of ['README.md', 'samples/README.md']) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
      expect({
        file,
        moduleDefault: text.includes('`./workspace` under'),
        npmStartDefault: /`npm start` (uses|sets it, when unset, to) `\.tmp\/workspace`/.test(text),
      }).toEqual({ file, moduleDefault: true, npmStartDefault: true });
    }
  });
});

describe('the README examples run', () => {
  let root: string;
  const saved = process.env.WORKSPACE_ROOT;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'agenttool-readme-'));
    process.env.WORKSPACE_ROOT = root;
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.WORKSPACE_ROOT;
    else process.env.WORKSPACE_ROOT = saved;
    await rm(root, { recursive: true, force: true });
  });

  it('serves the greeter over HTTP and greets through the client', async () => {
    const greeter = await serveGreeter();
    try {
      expect(await greetRemotely(greeter.url, 'Ada')).toBe('Hello, Ada!');
    } finally {
      await greeter.stop();
    }
  });

  it('runs the batch: the chained commands in order, the write alongside', async () => {
    const { outputs, records } = await runBatch();
    expect(outputs[0]).toContain('hello.txt');
    expect(outputs[2]).toContain(path.join(root, 'logs'));
    expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(records.filter((r) => r.ns === 'shell:process-group')).toHaveLength(2);
  });
});
