/**
 * A file tool's write goes to a temporary file beside its target, renamed into place at
 * the end: a server killed outright meanwhile (a host's SIGKILL) must not leave that
 * file in the user's folder. The process's janitor removes it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../cli/helpers';

beforeAll(() => ensureBuilt(), 300_000);

const WORKSPACE = join(__dirname, '..', '..', 'dist', 'pkg', 'workspace.js');

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'hard-exit-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const temporaries = () => readdirSync(root).filter((name) => name.endsWith('.tmp'));

it('leaves no temporary file behind when the server is killed while it writes', async () => {
  // Large enough that writing and syncing it takes far longer than noticing its start.
  const program = `
    const { FileRoot } = require(${JSON.stringify(WORKSPACE)});
    const root = new FileRoot(${JSON.stringify(root)});
    root.write('big.bin', Buffer.alloc(512 * 1024 * 1024, 1)).then(() => console.log('written'));
  `;
  const server = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  server.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => server.once('exit', resolve));
  let seen: string[] = [];
  const until = Date.now() + 30_000;
  while (seen.length === 0 && Date.now() < until && server.exitCode === null) {
    seen = temporaries();
    if (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  server.kill('SIGKILL');
  await exited;
  expect(out).toBe('');
  expect(seen).toHaveLength(1);
  for (let i = 0; i < 250 && temporaries().length > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(temporaries()).toEqual([]);
}, 60_000);
