/**
 * A folder the server's user may pass through but not list (`chmod 311`, as a shared
 * drop folder has it): the file tools reach what lies in it, as the shell does, since
 * each folder on the way is opened only to pin it. Run as a user without root's right to
 * list any folder: as root (CI), the check runs in a child process as `nobody`.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../cli/helpers';

beforeAll(() => ensureBuilt(), 300_000);

const NOBODY = 65534;
const WORKSPACE = join(__dirname, '..', '..', 'dist', 'pkg', 'workspace.js');

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pass-only-')));
});
afterEach(() => {
  chmodSync(join(base, 'root', 'drop'), 0o755);
  rmSync(base, { recursive: true, force: true });
});

/** Runs `script` (given `FileRoot` and `root`) as a user that cannot list `drop`. */
function runUnprivileged(script: string): string {
  const root = join(base, 'root');
  const program = `
    const { FileRoot } = require(${JSON.stringify(WORKSPACE)});
    const root = new FileRoot(${JSON.stringify(root)});
    (async () => { ${script} })().catch((error) => { console.log('ERR ' + error.message); });
  `;
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(base, NOBODY, NOBODY);
  const run = asRoot
    ? spawnSync(
        'setpriv',
        [
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          '--clear-groups',
          process.execPath,
          '-e',
          program,
        ],
        { encoding: 'utf8' },
      )
    : spawnSync(process.execPath, ['-e', program], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the check exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

it('reads and writes through a folder it may pass but not list', () => {
  const drop = join(base, 'root', 'drop');
  mkdirSync(join(drop, 'inner'), { recursive: true });
  writeFileSync(join(drop, 'inner', 'note.txt'), 'one\ntwo\n');
  writeFileSync(join(drop, 'top.txt'), 'top\n');
  if (process.getuid?.() === 0) {
    for (const path of [join(base, 'root'), drop, join(drop, 'inner')]) {
      chownSync(path, NOBODY, NOBODY);
    }
    for (const file of [join(drop, 'inner', 'note.txt'), join(drop, 'top.txt')]) {
      chownSync(file, NOBODY, NOBODY);
    }
  }
  chmodSync(drop, 0o311);
  const output = runUnprivileged(`
    const text = async (path) => (await root.read(path)).content.toString('utf8');
    console.log('read ' + JSON.stringify(await text('drop/inner/note.txt')));
    console.log('top ' + JSON.stringify(await text('drop/top.txt')));
    await root.write('drop/inner/made.txt', 'made\\n');
    await root.write('drop/new/deeper.txt', 'deeper\\n');
    console.log('resolved ' + (await root.resolve('drop/inner/note.txt')));
  `);
  expect(output).toBe(
    [
      'read "one\\ntwo\\n"',
      'top "top\\n"',
      `resolved ${join(base, 'root', 'drop', 'inner', 'note.txt')}`,
      '',
    ].join('\n'),
  );
  expect(readFileSync(join(drop, 'inner', 'made.txt'), 'utf8')).toBe('made\n');
  expect(readFileSync(join(drop, 'new', 'deeper.txt'), 'utf8')).toBe('deeper\n');
});

it('still keeps a link in such a folder from leading out of the workspace', () => {
  const drop = join(base, 'root', 'drop');
  mkdirSync(drop, { recursive: true });
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
  spawnSync('ln', ['-s', join(base, 'outside'), join(drop, 'out')]);
  if (process.getuid?.() === 0) {
    for (const path of [join(base, 'root'), drop, join(base, 'outside')]) {
      chownSync(path, NOBODY, NOBODY);
    }
  }
  chmodSync(drop, 0o311);
  const output = runUnprivileged(`
    try { await root.read('drop/out/secret.txt'); console.log('read it'); }
    catch (error) { console.log(error.name); }
  `);
  expect(output).toBe('PathEscapeError\n');
});
