/**
 * A write the system stops part way: the built `FileRoot` in a process whose largest file
 * is capped (`ulimit -f`, as a full disk would stop it), so that an append fails after
 * some of its bytes went in. The file must be left as it was, so that a retry does not
 * append them twice.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';

let root: string;

beforeAll(() => ensureBuilt(), 300_000);

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'file-root-limits-')));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What `append(path, data)` on a FileRoot at `root` says, run where files stop at 1 KiB. */
function appendCapped(path: string, data: string): string {
  const script = `
    process.on('SIGXFSZ', () => undefined); // the write fails with EFBIG instead
    const { FileRoot } = require(process.argv[1]);
    new FileRoot(process.argv[2]).append(process.argv[3], process.argv[4]).then(
      (n) => console.log('appended ' + n),
      (error) => console.log(error.message),
    );`;
  const run = spawnSync(
    'bash',
    [
      '-c',
      'ulimit -f 1 && exec "$@"',
      'bash',
      process.execPath,
      '-e',
      script,
      join(ROOT, 'dist/pkg/workspace.js'),
      root,
      path,
      data,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`the child failed: ${run.stderr}`);
  return run.stdout.trim();
}

describe('FileRoot.append stopped part way', () => {
  it('takes back what it appended, and says why it failed', () => {
    writeFileSync(join(root, 'log.txt'), 'first line\n');
    expect(appendCapped('log.txt', 'x'.repeat(4096))).toBe(
      'cannot append to "log.txt": EFBIG: file too large',
    );
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('first line\n');
    // Within the cap, the same call appends.
    expect(appendCapped('log.txt', 'second line\n')).toBe('appended 12');
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('first line\nsecond line\n');
  });
});
