/**
 * The repository guard works in folders a sandboxed command can swap for links while it
 * works (the guard runs outside the sandbox, with every right of the server's user):
 * what it does by name in a folder it holds stays in that folder. Deterministically,
 * on a folder swapped between holding and writing; then against a process swapping a
 * repository's folder for a link to an outside one as fast as it can, while the guard
 * checks and disarms what is planted there.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { FolderReplacedError, PinnedFolder } from '../../src/shell/pinned-folder';
import { RepositoryGuard } from '../../src/shell/repository-guard';
import { killChildren, tempDir } from '../cli/helpers';

test('what is done by name in a held folder stays there when its path becomes a link', () => {
  const root = tempDir();
  const outside = tempDir();
  mkdirSync(join(root, 'a', 'b'), { recursive: true });
  const held = PinnedFolder.open(root, join(root, 'a', 'b'));
  try {
    // The folder moves away and a link to an outside folder takes its name.
    renameSync(join(root, 'a', 'b'), join(root, 'a', 'moved'));
    symlinkSync(outside, join(root, 'a', 'b'));
    writeFileSync(held.at('written'), 'x', { flag: 'wx' });
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(root, 'a', 'moved', 'written'), 'utf8')).toBe('x');
    // Nor is a file read through a link in it.
    symlinkSync(join(outside, 'secret'), join(root, 'a', 'moved', 'config'));
    writeFileSync(join(outside, 'secret'), 'secret');
    expect(() => held.readText('config', 1024)).toThrow('is no plain file now');
  } finally {
    held.close();
  }
  // A way through a link is refused when the folder is held.
  expect(() => PinnedFolder.open(root, join(root, 'a', 'b'))).toThrow(FolderReplacedError);
  expect(() => PinnedFolder.open(root, join(outside))).toThrow(FolderReplacedError);
});

const SWAPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b, seconds = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
end = time.time() + seconds
n = 0
while time.time() < end:
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    n += 1
print(n)
`;

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

test('a folder swapped for a link to an outside one while the guard disarms gets nothing written outside', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeFileSync(join(outside, 'config'), 'ORIGINAL\n');
  spawnSync('git', ['init', '-q', 'sub'], { cwd: root });
  const guard = new RepositoryGuard([root]);
  await guard.record();
  // The repository's folder, held, to plant into whichever name it has at the moment.
  const gitDir = openSync(join(root, 'sub', '.git'), 'r');
  symlinkSync(outside, join(root, 'sub', '.gl'));
  const swapper = spawn('python3', [
    '-c',
    SWAPPER,
    join(root, 'sub', '.git'),
    join(root, 'sub', '.gl'),
    '3',
  ]);
  const swaps = new Promise<number>((resolve) => {
    let said = '';
    swapper.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
    swapper.once('close', () => resolve(Number(said.trim())));
  });
  let checks = 0;
  try {
    const start = Date.now();
    while (Date.now() - start < 2500) {
      writeFileSync(`/proc/self/fd/${gitDir}/config`, `[alias]\n\tx${checks} = !touch ran\n`, {
        flag: 'a',
      });
      await guard.check();
      checks++;
    }
  } finally {
    closeSync(gitDir);
  }
  expect(await swaps).toBeGreaterThan(1000);
  expect(checks).toBeGreaterThan(20);
  expect(readdirSync(outside)).toEqual(['config']);
  expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('ORIGINAL\n');
  expect(existsSync(join(root, 'sub'))).toBe(true);
}, 20_000);
