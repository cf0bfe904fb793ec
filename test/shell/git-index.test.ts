/**
 * The repository guard finds the submodules a repository's index names by reading the
 * index file: held here to what git itself lists (`git ls-files --stage`, mode 160000)
 * for each format an index can have, made by the real git.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitlinks } from '../../src/shell/git-index';
import { killChildren, tempDir } from '../cli/helpers';
import { GIT_ENV, gitOrThrow } from '../support/git';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

const git = gitOrThrow;

/** A repository with files and gitlinks at several depths, its index in `shape`. */
function repository(shape: (root: string) => void, init: string[] = []): string {
  const root = tempDir();
  git(root, 'init', '-q', ...init, '.');
  for (let i = 0; i < 30; i++) {
    mkdirSync(join(root, `dir-${i % 4}`), { recursive: true });
    writeFileSync(join(root, `dir-${i % 4}`, `file-${i}.txt`), `${i}\n`);
  }
  git(root, 'add', '.');
  const commit =
    git(root, 'commit', '-q', '-m', 'x') === '' ? git(root, 'rev-parse', 'HEAD').trim() : '';
  for (const path of ['lib', 'vendor/deep/inner', 'dir-2/éclair']) {
    git(root, 'update-index', '--add', '--cacheinfo', `160000,${commit},${path}`);
  }
  shape(root);
  return root;
}

/** What git lists as gitlinks in `root`'s index. */
function listed(root: string): string[] {
  return git(root, 'ls-files', '--stage', '-z')
    .split('\0')
    .filter((line) => line.startsWith('160000 '))
    .map((line) => line.slice(line.indexOf('\t') + 1))
    .sort();
}

const SHAPES: readonly (readonly [string, (root: string) => void, readonly string[]])[] = [
  ['version 2', () => undefined, []],
  [
    'version 3 (an extended entry)',
    (root: string) => {
      writeFileSync(join(root, 'new.txt'), 'n');
      git(root, 'add', '--intent-to-add', 'new.txt');
    },
    [],
  ],
  [
    'version 4 (paths compressed)',
    (root: string) => void git(root, 'update-index', '--index-version', '4'),
    [],
  ],
  ['a split index', (root: string) => void git(root, 'update-index', '--split-index'), []],
  ['SHA-256', () => undefined, ['--object-format=sha256']],
];

test.each(SHAPES)(
  'reads the gitlinks of an index of %s as git lists them',
  (_name, shape, init) => {
    const root = repository(shape, [...init]);
    const expected = listed(root);
    expect(expected).toEqual(['dir-2/éclair', 'lib', 'vendor/deep/inner']);
    expect(gitlinks(join(root, '.git'))).toEqual({
      links: expect.arrayContaining(expected),
      complete: true,
    });
    expect(gitlinks(join(root, '.git')).links).toHaveLength(expected.length);
  },
);

test('reads nothing from what is no index, and goes on past one cut short', () => {
  const root = tempDir();
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git', 'index'), 'not an index');
  expect(gitlinks(join(root, '.git'))).toEqual({ links: [], complete: true });
  const repo = repository(() => undefined);
  const index = join(repo, '.git', 'index');
  const whole = readFileSync(index);
  writeFileSync(index, whole.subarray(0, 200));
  expect(() => gitlinks(join(repo, '.git'))).not.toThrow();
});

test('says when it left gitlinks unread: past 1024, an index that is a link, more shared indexes than git keeps', () => {
  const root = repository(() => undefined);
  const commit = gitOrThrow(root, 'rev-parse', 'HEAD').trim();
  const lines = Array.from({ length: 1030 }, (_, i) => `160000 ${commit}\tmany/${i}\n`).join('');
  const added = spawnSync('git', ['update-index', '--index-info'], {
    cwd: root,
    input: lines,
    env: GIT_ENV,
  });
  expect(added.status).toBe(0);
  const read = gitlinks(join(root, '.git'));
  expect(read.complete).toBe(false);
  expect(read.links).toHaveLength(1024);

  const linked = repository(() => undefined);
  const index = join(linked, '.git', 'index');
  renameSync(index, join(linked, 'index-elsewhere'));
  symlinkSync(join(linked, 'index-elsewhere'), index);
  expect(gitlinks(join(linked, '.git'))).toEqual({ links: [], complete: false });

  const split = repository((repo) => void git(repo, 'update-index', '--split-index'));
  for (let i = 0; i < 4; i++) {
    writeFileSync(join(split, '.git', `sharedindex.${'0'.repeat(39)}${i}`), 'x');
  }
  expect(gitlinks(join(split, '.git')).complete).toBe(false);
});
