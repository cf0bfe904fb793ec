import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
  linkSync,
  lstatSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PathEscapeError, FileRoot, READ_BYTES_AT_ONCE } from '../../src/workspace/file-root';

let base: string;
let root: string;
let outside: string;
let sandbox: FileRoot;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sandbox-test-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  writeFileSync(join(root, 'hello.txt'), 'hello world');
  sandbox = new FileRoot(root);
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('special files', () => {
  // A named pipe would make a plain open wait for the other end forever.
  beforeEach(() => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
  });

  it('refuses to read a named pipe instead of waiting for a writer', async () => {
    await expect(sandbox.read('pipe')).rejects.toThrow(/not a regular file/);
  });

  it('refuses to append to a named pipe instead of waiting for a reader', async () => {
    await expect(sandbox.append('pipe', 'x')).rejects.toThrow(
      'cannot append to "pipe": it is not a regular file (a pipe, socket or device)',
    );
  });

  it('refuses to write over a named pipe, which stays one', async () => {
    await expect(sandbox.write('pipe', 'x')).rejects.toThrow(
      'cannot write "pipe": it is not a regular file (a pipe, socket or device)',
    );
    expect(lstatSync(join(root, 'pipe')).isFIFO()).toBe(true);
  });
});

/** Every entry under a directory, recursively, to show that a refusal touched nothing. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

async function expectRefused(path: string, contains: string): Promise<void> {
  const before = [tree(root), tree(outside)];
  for (const attempt of [
    () => sandbox.read(path),
    () => sandbox.write(path, 'x'),
    () => sandbox.append(path, 'x'),
  ]) {
    const error: unknown = await attempt().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PathEscapeError);
    const message = (error as Error).message;
    expect(message).toContain(JSON.stringify(path));
    expect(message).toContain(JSON.stringify(root));
    expect(message).toContain(contains);
  }
  expect([tree(root), tree(outside)]).toEqual(before);
  expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
}

describe('FileRoot: paths inside the root', () => {
  it('resolves relative paths, inner "..", and absolute paths under the root', async () => {
    expect(await sandbox.resolve('hello.txt')).toBe(join(root, 'hello.txt'));
    expect(await sandbox.resolve('a/../hello.txt')).toBe(join(root, 'hello.txt'));
    expect(await sandbox.resolve('./new/deeper/file')).toBe(join(root, 'new/deeper/file'));
    expect(await sandbox.resolve(join(root, 'hello.txt'))).toBe(join(root, 'hello.txt'));
    expect(await sandbox.resolve('.')).toBe(root);
  });

  it('accepts a root reached through a link, under either spelling', async () => {
    symlinkSync(root, join(base, 'alias'));
    const viaAlias = new FileRoot(join(base, 'alias'));
    expect(viaAlias.realRoot).toBe(root);
    expect(await viaAlias.resolve(join(base, 'alias', 'hello.txt'))).toBe(join(root, 'hello.txt'));
    expect(await viaAlias.resolve(join(root, 'hello.txt'))).toBe(join(root, 'hello.txt'));
    expect((await viaAlias.read('hello.txt')).content.toString()).toBe('hello world');
  });

  it('follows links that stay inside the root', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync('real', join(root, 'dirlink'));
    symlinkSync(join(root, 'hello.txt'), join(root, 'filelink'));
    expect(await sandbox.resolve('dirlink/x')).toBe(join(root, 'real/x'));
    expect((await sandbox.read('filelink')).content.toString()).toBe('hello world');
  });
});

describe('FileRoot: escapes are refused and nothing is touched', () => {
  it('refuses ".." that climbs out', async () => {
    await expectRefused('../outside/secret.txt', `its ".." climbs out`);
    await expectRefused('sub/../../outside/new.txt', 'climbs out');
    await expectRefused('..', 'climbs out');
  });

  it('refuses absolute paths elsewhere', async () => {
    await expectRefused(join(outside, 'secret.txt'), 'it is absolute');
    await expectRefused('/etc/passwd', 'it is absolute');
    await expectRefused(`${root}-sibling/file`, 'it is absolute');
  });

  it('refuses a linked directory that points outside', async () => {
    symlinkSync(outside, join(root, 'out'));
    await expectRefused('out/secret.txt', 'through a symbolic link');
    await expectRefused('out/new/file.txt', 'through a symbolic link');
    await expectRefused('out', 'through a symbolic link');
  });

  it('refuses a linked file that points outside', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.txt'));
    await expectRefused('leak.txt', 'through a symbolic link');
  });

  it('refuses a dangling link whose target would be created outside', async () => {
    symlinkSync(join(outside, 'planted.txt'), join(root, 'dangling'));
    await expectRefused('dangling', join(outside, 'planted.txt'));
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });

  it('refuses a chain of links that ends outside, and a relative link that climbs out', async () => {
    symlinkSync('../outside', join(root, 'climb'));
    symlinkSync('climb', join(root, 'chain'));
    await expectRefused('chain/secret.txt', 'through a symbolic link');
    await expectRefused('climb/secret.txt', 'through a symbolic link');
  });

  it("names where a link leads as it words it, not where the server's own links lead", async () => {
    // Resolved in the server, /proc/self/fd/0 and /proc/self/cwd are the server's.
    symlinkSync('/proc/self/fd/0', join(root, 'fd'));
    symlinkSync('/proc/self/cwd/etc', join(root, 'cwd'));
    await expectRefused('fd', 'through a symbolic link, it leads to "/proc/self/fd/0"');
    await expectRefused('cwd/passwd', 'it leads to "/proc/self/cwd/etc/passwd"');
  });

  it('stops on a link loop with an error instead of hanging', async () => {
    symlinkSync('loop-b', join(root, 'loop-a'));
    symlinkSync('loop-a', join(root, 'loop-b'));
    await expect(sandbox.write('loop-a', 'x')).rejects.toThrow('too many symbolic links');
  });

  it('refuses empty paths and NUL characters', async () => {
    await expect(sandbox.read('')).rejects.toThrow('the path is empty');
    await expect(sandbox.write('a\0b', 'x')).rejects.toThrow('NUL');
  });

  it('refuses a lone surrogate in a path or in text, which UTF-8 cannot carry, writing nothing', async () => {
    await expect(sandbox.write('half\ud800.txt', 'x')).rejects.toThrow(
      'contains a lone surrogate, half of a pair that no file name can hold',
    );
    await expect(sandbox.write('half.txt', 'a\udc00b')).rejects.toThrow(
      'cannot write "half.txt": the content holds a lone surrogate (U+DC00, at character 1)',
    );
    await expect(sandbox.append('half.txt', 'ab\ud83d')).rejects.toThrow(
      'cannot append to "half.txt": the content holds a lone surrogate (U+D83D, at character 2)',
    );
    expect(existsSync(join(root, 'half.txt'))).toBe(false);
    expect(readdirSync(root).some((name) => name.startsWith('half'))).toBe(false);
    // A pair whole is text, written as UTF-8.
    expect(await sandbox.write('whole.txt', 'a\ud83d\ude00')).toBe(5);
    expect(readFileSync(join(root, 'whole.txt'), 'utf8')).toBe('a\u{1F600}');
  });
});

describe('FileRoot: reading', () => {
  it('reads at most maxBytes and says how big the file is', async () => {
    expect(await sandbox.read('hello.txt', { maxBytes: 5 })).toEqual({
      content: Buffer.from('hello'),
      size: 11,
      truncated: true,
      fromLine: 1,
      offset: 0,
    });
    expect(await sandbox.read('hello.txt')).toEqual({
      content: Buffer.from('hello world'),
      size: 11,
      truncated: false,
      fromLine: 1,
      offset: 0,
    });
  });

  it('reads from a line, so many lines, whole lines within maxBytes, and refuses a line past the end', async () => {
    // Lines across the 64 KiB blocks the start is looked for in.
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(root, 'long.txt'), `${lines.join('\n')}\n`);
    const text = async (options: Parameters<FileRoot['read']>[1]) => {
      const read = await sandbox.read('long.txt', options);
      return { text: read.content.toString(), truncated: read.truncated, offset: read.offset };
    };
    expect(await text({ fromLine: 9_999, lines: 3 })).toEqual({
      text: 'line 9999\nline 10000\nline 10001\n',
      truncated: true,
      offset: lines.slice(0, 9_998).join('\n').length + 1,
    });
    expect(await text({ fromLine: 19_999 })).toMatchObject({
      text: 'line 19999\nline 20000\n',
      truncated: false,
    });
    expect(await text({ lines: 2 })).toMatchObject({ text: 'line 1\nline 2\n', truncated: true });
    // maxBytes first: the whole lines within it.
    expect(await text({ fromLine: 5, maxBytes: 15 })).toMatchObject({
      text: 'line 5\nline 6\n',
      truncated: true,
    });
    await expect(sandbox.read('long.txt', { fromLine: 20_001 })).rejects.toThrow(
      'cannot read "long.txt": line 20001 is past its end: the file has 20000 lines',
    );
    // A last line without its newline is a line; an empty file has none.
    writeFileSync(join(root, 'two.txt'), 'a\nb');
    expect((await sandbox.read('two.txt', { fromLine: 2 })).content.toString()).toBe('b');
    await expect(sandbox.read('two.txt', { fromLine: 3 })).rejects.toThrow(
      'line 3 is past its end: the file has 2 lines',
    );
    writeFileSync(join(root, 'empty.txt'), '');
    await expect(sandbox.read('empty.txt', { fromLine: 2 })).rejects.toThrow(
      'the file has 0 lines',
    );
    await expect(sandbox.read('two.txt', { fromLine: 0 })).rejects.toThrow(
      'fromLine must be a positive integer, got 0',
    );
    await expect(sandbox.read('two.txt', { lines: 1.5 })).rejects.toThrow(
      'lines must be a positive integer, got 1.5',
    );
  });

  it('says clearly when the file is missing or a directory', async () => {
    await expect(sandbox.read('missing.txt')).rejects.toThrow(
      `cannot read "missing.txt": no such file under the workspace root "${root}": relative paths start there`,
    );
    mkdirSync(join(root, 'dir'));
    await expect(sandbox.read('dir')).rejects.toThrow('it is a directory');
  });

  it('says a name may be spelled in the other Unicode form', async () => {
    // Decomposed, as macOS makes it; asked for composed, as a model writes it.
    writeFileSync(join(root, 'cafe\u0301.txt'), 'x');
    await expect(sandbox.read('caf\u00e9.txt')).rejects.toThrow(
      'and the name on disk may use the other: find it in the shell with a glob (ls caf*)',
    );
    await expect(sandbox.read('missing.txt')).rejects.not.toThrow('Unicode');
  });
});

describe('FileRoot: many reads at once', () => {
  const FOUR_MIB = 4 * 1024 * 1024;

  it(`hold at most ${READ_BYTES_AT_ONCE} bytes: one more waits its turn, and leaves the line when its signal aborts`, async () => {
    writeFileSync(join(root, 'big.txt'), Buffer.alloc(FOUR_MIB, 'a'));
    const holding = Array.from({ length: READ_BYTES_AT_ONCE / FOUR_MIB }, () =>
      sandbox.read('big.txt', { maxBytes: FOUR_MIB }),
    );
    const stop = new AbortController();
    const cancelled = sandbox.read('big.txt', { maxBytes: FOUR_MIB, signal: stop.signal });
    const next = sandbox.read('hello.txt', { maxBytes: FOUR_MIB });
    // Aborted before any read could finish: it was waiting, so it gives up at once.
    stop.abort(new Error('the caller went away'));
    await expect(cancelled).rejects.toThrow('the caller went away');
    for (const read of await Promise.all(holding)) {
      expect(read.content.length).toBe(FOUR_MIB);
      expect(read.truncated).toBe(false);
    }
    expect((await next).content.toString()).toBe('hello world');
  });

  it('an aborted signal is refused before anything is read', async () => {
    await expect(
      sandbox.read('hello.txt', { signal: AbortSignal.abort(new Error('too late')) }),
    ).rejects.toThrow('too late');
  });

  it('a read larger than all of them goes alone, whole', async () => {
    const size = READ_BYTES_AT_ONCE + FOUR_MIB;
    writeFileSync(join(root, 'huge.bin'), Buffer.alloc(size, 'b'));
    const [small, huge, after] = await Promise.all([
      sandbox.read('hello.txt'),
      sandbox.read('huge.bin'),
      sandbox.read('hello.txt', { maxBytes: 5 }),
    ]);
    expect(small.content.toString()).toBe('hello world');
    expect(huge.content.length).toBe(size);
    expect(huge.truncated).toBe(false);
    expect(after.content.toString()).toBe('hello');
  });
});

describe('FileRoot: writing', () => {
  it('replaces a file by renaming a complete temporary file over it', async () => {
    chmodSync(join(root, 'hello.txt'), 0o640);
    const inodeBefore = statSync(join(root, 'hello.txt')).ino;
    expect(await sandbox.write('hello.txt', 'replaced ✓')).toBe(Buffer.byteLength('replaced ✓'));
    expect(readFileSync(join(root, 'hello.txt'), 'utf8')).toBe('replaced ✓');
    expect(statSync(join(root, 'hello.txt')).ino).not.toBe(inodeBefore);
    expect(statSync(join(root, 'hello.txt')).mode & 0o777).toBe(0o640);
    expect(readdirSync(root)).toEqual(['hello.txt']);
  });

  it('creates missing parent directories inside the root', async () => {
    await sandbox.write('a/b/c.txt', 'deep');
    expect(readFileSync(join(root, 'a/b/c.txt'), 'utf8')).toBe('deep');
  });

  it('writes through a link inside the root to its target and keeps the link', async () => {
    symlinkSync('hello.txt', join(root, 'link.txt'));
    await sandbox.write('link.txt', 'through');
    expect(lstatSync(join(root, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'hello.txt'), 'utf8')).toBe('through');
  });

  it('creates the target of a dangling link that points inside', async () => {
    symlinkSync('made.txt', join(root, 'pending'));
    await sandbox.write('pending', 'made');
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('made');
  });

  it('leaves no temporary file behind when the write fails', async () => {
    await expect(sandbox.write('hello.txt/child', 'x')).rejects.toThrow(
      'cannot write "hello.txt/child": "hello.txt" on its way is not a directory',
    );
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'b'), 'a file');
    await expect(sandbox.append('a/b/c/d.txt', 'x')).rejects.toThrow(
      'cannot append to "a/b/c/d.txt": "a/b" on its way is not a directory',
    );
    rmSync(join(root, 'a'), { recursive: true });
    mkdirSync(join(root, 'dir'));
    await expect(sandbox.write('dir', 'x')).rejects.toThrow('it is a directory');
    expect(readdirSync(root).sort()).toEqual(['dir', 'hello.txt']);
  });

  it('appends, creating the file when absent', async () => {
    expect(await sandbox.append('log.txt', 'one\n')).toBe(4);
    await sandbox.append('log.txt', 'two\n');
    await sandbox.append('hello.txt', '!');
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(readFileSync(join(root, 'hello.txt'), 'utf8')).toBe('hello world!');
  });
});

describe('FileRoot: hard links', () => {
  // A hard link inside the root to a file outside passes every path check: the file's
  // other names cannot be seen from the one inside.
  beforeEach(() => linkSync(join(outside, 'secret.txt'), join(root, 'linked.txt')));

  it('reads a file whose other names lie nowhere kept from the tools, as pnpm links its store', async () => {
    expect(await sandbox.read('linked.txt')).toMatchObject({ content: Buffer.from('secret') });
  });

  it('refuses to read a file that is another name of one kept from the tools, or when that cannot be told', async () => {
    const keeping = new FileRoot(root, { sandbox: { denyRead: [outside] } });
    await expect(keeping.read('linked.txt')).rejects.toThrow(
      `cannot read "linked.txt": it is another name (a hard link) of "${join(outside, 'secret.txt')}", which the workspace keeps from its tools`,
    );
    // Past the depth it looks through, what the folder holds is not known: refused.
    const deep = join(base, 'kept', ...Array.from({ length: 9 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'key'), 'key');
    const unsure = new FileRoot(root, { sandbox: { denyRead: [join(base, 'kept')] } });
    await expect(unsure.read('linked.txt')).rejects.toThrow(
      'cannot read "linked.txt": the file has 1 other hard link, which may lie outside the workspace',
    );
  });

  it('refuses to append to a file with other hard links, leaving it as it was', async () => {
    await expect(sandbox.append('linked.txt', 'appended')).rejects.toThrow(
      'cannot append to "linked.txt": the file has 1 other hard link',
    );
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('writes a new file in place of the link: the file outside is left as it was', async () => {
    await sandbox.write('linked.txt', 'replaced');
    expect(readFileSync(join(root, 'linked.txt'), 'utf8')).toBe('replaced');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(statSync(join(outside, 'secret.txt')).nlink).toBe(1);
    expect(await sandbox.read('linked.txt')).toMatchObject({ content: Buffer.from('replaced') });
  });
});

describe('FileRoot: deep new paths', () => {
  const deep = (n: number): string =>
    `${Array.from({ length: n }, (_, i) => `d${i}`).join('/')}/file.txt`;

  it('writes and appends under 60 directories that do not exist yet', async () => {
    expect(await sandbox.write(`w/${deep(60)}`, 'deep')).toBe(4);
    expect(readFileSync(join(root, 'w', deep(60)), 'utf8')).toBe('deep');
    expect(await sandbox.append(`a/${deep(60)}`, 'deep')).toBe(4);
    expect(readFileSync(join(root, 'a', deep(60)), 'utf8')).toBe('deep');
  });
});

describe('new FileRoot', () => {
  it('refuses a root that is missing or not a directory', () => {
    expect(() => new FileRoot(join(base, 'nope'))).toThrow(
      `the root directory ${JSON.stringify(join(base, 'nope'))} does not exist`,
    );
    expect(() => new FileRoot(join(root, 'hello.txt'))).toThrow('is not a directory');
    expect(() => new FileRoot('')).toThrow('the root directory is empty');
  });
});

describe("FileRoot: what the shell's sandbox keeps read-only stays so", () => {
  // A model that cannot write a git hook from its sandboxed shell must not write it
  // through the file tools, which run in the server, outside the sandbox.
  const PROTECTED = [
    ['.bashrc', '.bashrc files stay read-only'],
    ['deep/er/than/a/scan/.BashRC', '.BashRC files stay read-only'],
    ['sub/.mcp.json', '.mcp.json files stay read-only'],
    ['.vscode/settings.json', '.vscode stays read-only'],
    ['a/.claude/commands/deploy.md', '.claude/commands stays read-only'],
    ['.git/hooks/pre-commit', "a repository's .git file, hooks and config stay read-only"],
    ['.git/config', "a repository's .git file, hooks and config stay read-only"],
    ['sub/.git/hooks/post-checkout', "a repository's .git file, hooks and config"],
    ['.git/modules/lib/hooks/pre-push', "a repository's .git file, hooks and config"],
    ['sub/.git', "a repository's .git file, hooks and config"],
    // Where git reads the config from: a common folder, a worktree's.
    ['.git/commondir', "a repository's .git file, hooks and config"],
    ['.git/config.worktree', "a repository's .git file, hooks and config"],
    ['.git/worktrees/w/config.worktree', "a repository's .git file, hooks and config"],
    ['.git/modules/lib/commondir', "a repository's .git file, hooks and config"],
  ] as const;

  it.each(PROTECTED)('refuses to write or append to %s, creating nothing', async (path, why) => {
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    const before = tree(root);
    for (const [verb, attempt] of [
      ['write', () => sandbox.write(path, 'x')],
      ['append to', () => sandbox.append(path, 'x')],
    ] as const) {
      await expect(attempt()).rejects.toThrow(`cannot ${verb} ${JSON.stringify(path)}: ${why}`);
    }
    expect(tree(root)).toEqual(before);
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('judges where a link leads, not the name it is given by', async () => {
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    symlinkSync('.git/hooks', join(root, 'hooks'));
    symlinkSync('.git/config', join(root, 'settings'));
    symlinkSync('.claude', join(root, 'dotclaude'));
    await expect(sandbox.write('hooks/pre-commit', 'x')).rejects.toThrow(
      `cannot write "hooks/pre-commit": a repository's .git file, hooks and config stay read-only`,
    );
    await expect(sandbox.append('settings', 'x')).rejects.toThrow(
      `cannot append to "settings": a repository's .git file, hooks and config stay read-only`,
    );
    await expect(sandbox.write('dotclaude/commands/x.md', 'x')).rejects.toThrow(
      'cannot write "dotclaude/commands/x.md": .claude/commands stays read-only',
    );
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(root, '.claude'))).toBe(false);
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it("refuses what would make a folder a bare repository's, whichever comes first", async () => {
    mkdirSync(join(root, 'store', 'objects'), { recursive: true });
    mkdirSync(join(root, 'store', 'refs'), { recursive: true });
    await sandbox.write('store/HEAD', 'ref: refs/heads/main\n');
    const why = `"store" holds a HEAD, as a git repository's own folder does: git on the host would take it as a repository, and run its hooks, or what its config names, outside the sandbox`;
    await expect(sandbox.write('store/config', '[core]\n')).rejects.toThrow(
      `cannot write "store/config": ${why}`,
    );
    await expect(sandbox.append('store/commondir', '..')).rejects.toThrow(
      `cannot append to "store/commondir": ${why}`,
    );
    await sandbox.write('other/config', '[alias]\n');
    await expect(sandbox.write('other/HEAD', 'ref: refs/heads/main\n')).rejects.toThrow(
      `cannot write "other/HEAD": "other" holds a config, as a git repository's own folder does`,
    );
    expect(existsSync(join(root, 'store', 'config'))).toBe(false);
    expect(existsSync(join(root, 'other', 'HEAD'))).toBe(false);
    // A HEAD that links to a branch not made yet counts (git takes it), at any depth.
    mkdirSync(join(root, 'a', 'b', 'x', 'objects'), { recursive: true });
    mkdirSync(join(root, 'a', 'b', 'x', 'refs', 'heads'), { recursive: true });
    symlinkSync('refs/heads/main', join(root, 'a', 'b', 'x', 'HEAD'));
    await expect(sandbox.write('a/b/x/config', '[alias]\n')).rejects.toThrow(
      `cannot write "a/b/x/config": "a/b/x" holds a HEAD, as a git repository's own folder does`,
    );
    expect(existsSync(join(root, 'a', 'b', 'x', 'config'))).toBe(false);
    // A config or a HEAD alone is any file.
    await sandbox.write('app/config', 'port=1\n');
    await sandbox.write('docs/HEAD', 'top\n');
  });

  it("refuses the hooks of a bare repository's layout at any depth, and a HEAD beside hooks", async () => {
    // A bare repository deep in the tree (a test fixture's remote), and the folder that
    // `git init --separate-git-dir` made, which the project's `.git` links to.
    for (const repo of ['fixtures/srv/origin.git', 'proj-gitdir']) {
      mkdirSync(join(root, repo, 'hooks'), { recursive: true });
      mkdirSync(join(root, repo, 'refs'), { recursive: true });
      writeFileSync(join(root, repo, 'HEAD'), 'ref: refs/heads/main\n');
    }
    mkdirSync(join(root, 'proj'));
    symlinkSync('../proj-gitdir', join(root, 'proj', '.git'));
    await expect(
      sandbox.write('fixtures/srv/origin.git/hooks/post-receive', '#!/bin/sh\n'),
    ).rejects.toThrow(
      `cannot write "fixtures/srv/origin.git/hooks/post-receive": "fixtures/srv/origin.git" holds a HEAD, as a git repository's own folder does (its hooks): git on the host would take it as a repository, and run its hooks, or what its config names, outside the sandbox`,
    );
    await expect(sandbox.append('proj-gitdir/hooks/pre-commit', 'x')).rejects.toThrow(
      `"proj-gitdir" holds a HEAD, as a git repository's own folder does (its hooks)`,
    );
    // Named through the link, it is a .git folder's.
    await expect(sandbox.write('proj/.git/hooks/pre-commit', 'x')).rejects.toThrow(
      `cannot write "proj/.git/hooks/pre-commit": a repository's .git file, hooks and config stay read-only`,
    );
    await expect(sandbox.write('proj-gitdir/worktrees/w/config.worktree', 'x')).rejects.toThrow(
      `"proj-gitdir" holds a HEAD, as a git repository's own folder does (its worktrees)`,
    );
    // A HEAD beside a hooks folder would make its hooks a repository's.
    mkdirSync(join(root, 'lib', 'hooks'), { recursive: true });
    await expect(sandbox.write('lib/HEAD', 'ref: refs/heads/main\n')).rejects.toThrow(
      `cannot write "lib/HEAD": "lib" holds a hooks, as a git repository's own folder does`,
    );
    expect(existsSync(join(root, 'proj-gitdir', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(root, 'fixtures', 'srv', 'origin.git', 'hooks', 'post-receive'))).toBe(
      false,
    );
    expect(existsSync(join(root, 'lib', 'HEAD'))).toBe(false);
    // A project's own hooks folder, with no HEAD beside it, is any folder.
    await sandbox.write('src/hooks/use-items.ts', 'export {};\n');
    await sandbox.write('lib/hooks/use-items.ts', 'export {};\n');
  });

  it('reads them, and writes what lies beside them', async () => {
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    writeFileSync(join(root, '.bashrc'), 'alias ll="ls -l"\n');
    expect((await sandbox.read('.git/config')).content.toString()).toBe('[core]\n');
    expect((await sandbox.read('.bashrc')).content.toString()).toBe('alias ll="ls -l"\n');
    for (const path of ['.git/HEAD', '.github/workflows/ci.yml', 'claude/notes.md', 'bashrc']) {
      await sandbox.write(path, 'ok');
      expect(readFileSync(join(root, path), 'utf8')).toBe('ok');
    }
    // An agent's folder of settings is held whole, a note in it too.
    await expect(sandbox.write('.claude/notes.md', 'ok')).rejects.toThrow(
      'cannot write ".claude/notes.md": .claude stays read-only',
    );
  });

  it('neither reads nor writes the credentials a sandboxed command cannot read', async () => {
    // The workspace is the home folder here, as when a server is started in it.
    const home = process.env['HOME'];
    process.env['HOME'] = root;
    try {
      mkdirSync(join(root, '.ssh'));
      writeFileSync(join(root, '.ssh', 'id_ed25519'), 'key');
      mkdirSync(join(root, 'private'));
      writeFileSync(join(root, 'private', 'notes'), 'mine');
      symlinkSync('.ssh', join(root, 'keys'));
      const files = new FileRoot(root, { sandbox: { denyRead: ['~/private'] } });
      for (const path of ['.ssh/id_ed25519', 'keys/id_ed25519', 'private/notes']) {
        await expect(files.read(path)).rejects.toThrow(
          `cannot read ${JSON.stringify(path)}: it is in`,
        );
      }
      await expect(files.write('.ssh/authorized_keys', 'key')).rejects.toThrow(
        `cannot write ".ssh/authorized_keys": it is in ${JSON.stringify(join(root, '.ssh'))}, which the workspace keeps from its tools`,
      );
      await expect(files.append('.aws/credentials', 'x')).rejects.toThrow(
        `cannot append to ".aws/credentials": it is in ${JSON.stringify(join(root, '.aws'))}`,
      );
      expect(existsSync(join(root, '.ssh', 'authorized_keys'))).toBe(false);
      expect(existsSync(join(root, '.aws'))).toBe(false);
      expect((await files.read('hello.txt')).content.toString()).toBe('hello world');
    } finally {
      process.env['HOME'] = home;
    }
  });

  it('compares names as a file system that ignores case opens them', async () => {
    // macOS's opens .SSH/id_rsa as .ssh/id_rsa, and folds the long s (U+017F) to s: so
    // the checks fold case and compatibility forms (here, on Linux, the names would be
    // other files, and are refused all the same).
    const home = process.env['HOME'];
    process.env['HOME'] = root;
    try {
      const files = new FileRoot(root);
      await expect(files.read('.SSH/id_ed25519')).rejects.toThrow(
        `cannot read ".SSH/id_ed25519": it is in ${JSON.stringify(join(root, '.ssh'))}, which the workspace keeps from its tools`,
      );
      await expect(files.read('.\u017f\u017fh/id_ed25519')).rejects.toThrow(
        'which the workspace keeps',
      );
      await expect(files.write('.ZSHENV', 'x')).rejects.toThrow(
        `cannot write ".ZSHENV": it is in ${JSON.stringify(join(root, '.zshenv'))}, a start-up file`,
      );
    } finally {
      process.env['HOME'] = home;
    }
    for (const path of [
      '.git/hook\u017f/pre-commit',
      '.v\u017fcode/tasks.json',
      'a/.ba\u017fhrc',
    ]) {
      await expect(sandbox.write(path, 'x')).rejects.toThrow(
        `cannot write ${JSON.stringify(path)}: `,
      );
      expect(existsSync(join(root, path))).toBe(false);
    }
    mkdirSync(join(root, 'bare'));
    writeFileSync(join(root, 'bare', 'HEAD'), 'ref: refs/heads/main\n');
    await expect(sandbox.write('bare/hook\u017f/pre-commit', 'x')).rejects.toThrow(
      '"bare" holds a HEAD',
    );
    // A file named as one of Object's properties is a file like any other.
    await sandbox.write('constructor', 'x');
    await sandbox.write('lib/__proto__', 'x');
    expect(readFileSync(join(root, 'constructor'), 'utf8')).toBe('x');
  });

  it("refuses a home folder's start-up files where the workspace is that folder", async () => {
    const home = process.env['HOME'];
    process.env['HOME'] = root;
    try {
      const files = new FileRoot(root);
      const cases: [path: string, held: string][] = [
        ['.zshenv', '.zshenv'],
        ['.config/git/config', '.config/git/config'],
        ['.config/fish/config.fish', '.config/fish'],
        ['.bash_aliases', '.bash_aliases'],
        ['.local/bin/ls', '.local/bin'],
      ];
      for (const [path, held] of cases) {
        await expect(files.write(path, 'x')).rejects.toThrow(
          `cannot write ${JSON.stringify(path)}: it is in ${JSON.stringify(join(root, held))}, a start-up file of the home folder (it runs outside the sandbox at the user's next login, shell or git command), which stays read-only`,
        );
        expect(existsSync(join(root, path))).toBe(false);
      }
      // The sandbox runtime's list, held in a home folder too, says what it is.
      await expect(files.write('.profile', 'x')).rejects.toThrow(
        'cannot write ".profile": .profile files stay read-only: a shell or another tool runs or trusts what they say outside the sandbox',
      );
      await expect(files.write('.vscode/tasks.json', 'x')).rejects.toThrow(
        'cannot write ".vscode/tasks.json": .vscode stays read-only',
      );
      // Any other hidden name there, even missing (as the shell cannot make one).
      await expect(files.write('.config/git/ignore', 'node_modules\n')).rejects.toThrow(
        `cannot write ".config/git/ignore": it is in ${JSON.stringify(join(root, '.config'))}, a hidden file or folder of the home folder (settings and tools the user's programs run outside the sandbox), which stays read-only, there or not`,
      );
      // bin is as often a project's folder as a home's.
      await files.write('bin/tool', '#!/bin/sh\n');
    } finally {
      process.env['HOME'] = home;
    }
    // Elsewhere than the home folder, they are a project's files.
    const files = new FileRoot(root);
    await files.write('.zshenv', 'export A=1\n');
    await files.write('.local/bin/run', '#!/bin/sh\n');
  });

  it("refuses a home folder's hidden entries where the workspace is that folder, the rest is the work", async () => {
    for (const dir of ['.config/Claude', '.cargo', '.local/lib/python3.12/site-packages']) {
      mkdirSync(join(root, dir), { recursive: true });
    }
    writeFileSync(join(root, '.cargo', 'env'), 'export PATH=$HOME/.cargo/bin:$PATH\n');
    const home = process.env['HOME'];
    process.env['HOME'] = root;
    try {
      const files = new FileRoot(root);
      for (const [path, held] of [
        ['.config/Claude/claude_desktop_config.json', '.config'],
        ['.cargo/env', '.cargo'],
        ['.local/lib/python3.12/site-packages/evil.pth', '.local'],
      ] as const) {
        await expect(files.write(path, 'x')).rejects.toThrow(
          `cannot write ${JSON.stringify(path)}: it is in ${JSON.stringify(join(root, held))}, a hidden file or folder of the home folder (settings and tools the user's programs run outside the sandbox), which stays read-only`,
        );
      }
      expect(readFileSync(join(root, '.cargo', 'env'), 'utf8')).toContain('cargo/bin');
      expect(existsSync(join(root, '.config/Claude/claude_desktop_config.json'))).toBe(false);
      // Missing ones too: what the user's programs would trust there once made.
      for (const [path, held] of [
        ['.vimrc', '.vimrc'],
        ['.ipython/profile_default/startup/a.py', '.ipython'],
      ] as const) {
        await expect(files.write(path, 'x')).rejects.toThrow(
          `cannot write ${JSON.stringify(path)}: it is in ${JSON.stringify(join(root, held))}, a hidden file or folder of the home folder (settings and tools the user's programs run outside the sandbox), which stays read-only, there or not`,
        );
        expect(existsSync(join(root, held))).toBe(false);
      }
      await files.write('projects/site/index.html', '<p>');
      expect(Buffer.from((await files.read('.cargo/env')).content).toString()).toContain(
        'cargo/bin',
      );
    } finally {
      process.env['HOME'] = home;
    }
  });

  it("refuses a root in what stays read-only: an agent's settings, a repository's .git", () => {
    mkdirSync(join(root, '.claude'));
    mkdirSync(join(root, 'repo', '.git', 'hooks'), { recursive: true });
    expect(() => new FileRoot(join(root, '.claude'))).toThrow(
      `the root ${JSON.stringify(join(root, '.claude'))} lies in what stays read-only wherever commands may write (.claude stays read-only`,
    );
    expect(() => new FileRoot(join(root, 'repo', '.git', 'hooks'))).toThrow(
      "a repository's .git file, hooks and config stay read-only",
    );
  });

  it('keeps from its tools the credentials made after its start, $HOME reached through a link', async () => {
    const home = process.env['HOME'];
    const link = join(base, 'home-link');
    symlinkSync(root, link);
    process.env['HOME'] = link;
    try {
      const files = new FileRoot(root);
      // Made on the host after the start, where $HOME really is.
      mkdirSync(join(root, '.ssh'));
      writeFileSync(join(root, '.ssh', 'id_rsa'), 'key');
      writeFileSync(join(root, '.netrc'), 'machine x password y');
      for (const path of ['.ssh/id_rsa', '.netrc']) {
        await expect(files.read(path)).rejects.toThrow(
          `cannot read ${JSON.stringify(path)}: it is in`,
        );
      }
      await expect(files.write('.aws/credentials', 'x')).rejects.toThrow(
        `cannot write ".aws/credentials": it is in ${JSON.stringify(join(root, '.aws'))}`,
      );
    } finally {
      process.env['HOME'] = home;
    }
  });

  it('refuses a ".." that would reach another file than the shell reaches, naming the part', async () => {
    const files = new FileRoot(root);
    mkdirSync(join(root, 'sub', 'deep'), { recursive: true });
    writeFileSync(join(root, 'f'), 'top');
    writeFileSync(join(root, 'sub', 'f'), 'in sub');
    symlinkSync(join('sub', 'deep'), join(root, 'l'));
    // To the shell, l/../f is sub/f: the link is gone through before the "..".
    expect(execFileSync('cat', ['l/../f'], { cwd: root, encoding: 'utf8' })).toBe('in sub');
    await expect(files.read('l/../f')).rejects.toThrow(
      'cannot read "l/../f": its ".." comes after "l" is a link, which the shell goes through before the ".." (so it climbs from where the link leads); give the path without ".." there',
    );
    await expect(files.write('l/../f', 'lost')).rejects.toThrow(
      'its ".." comes after "l" is a link',
    );
    expect(readFileSync(join(root, 'f'), 'utf8')).toBe('top');
    await expect(files.read('hello.txt/../f')).rejects.toThrow(
      'cannot read "hello.txt/../f": its ".." comes after "hello.txt" is not a directory',
    );
    // A missing name goes with its "..": nothing else is there to reach.
    expect((await files.read('nowhere/../f')).content.toString()).toBe('top');
    await expect(files.read('l/x/../../f')).rejects.toThrow('its ".." comes after "l" is a link');
    // Through real folders it means what it means to the shell.
    expect((await files.read('sub/deep/../f')).content.toString()).toBe('in sub');
    expect((await files.read('./sub/./../f')).content.toString()).toBe('top');
    // Nothing is said of what lies outside on the way.
    await expect(files.read(`${base}/elsewhere/../root/f`)).rejects.toThrow(PathEscapeError);
  });

  it('refuses a malformed sandbox option, naming it', () => {
    expect(() => new FileRoot(root, { sandbox: { denyRead: ['relative'] } })).toThrow(
      'sandbox.denyRead[0] "relative" must be absolute (or start with ~/)',
    );
  });

  it('does not write the code this server runs, when the root holds it', async () => {
    // The repository is agenttool's own package: its dependencies and build stay
    // read-only, its sources are the work.
    const repository = join(__dirname, '..', '..');
    const files = new FileRoot(repository);
    const probe = `node_modules/.file-root-probe-${process.pid}`;
    try {
      await expect(files.write(probe, 'x')).rejects.toThrow(
        `cannot write ${JSON.stringify(probe)}: it is in ${JSON.stringify(join(realpathSync(repository), 'node_modules'))}, the code this server runs, which stays read-only`,
      );
    } finally {
      rmSync(join(repository, probe), { force: true });
    }
  });
});

describe('FileRoot: paths and names', () => {
  it('refuses a path that ends as a directory does, instead of dropping the ending', async () => {
    for (const path of ['newdir/', 'hello.txt/', 'hello.txt/.', 'sub/..']) {
      await expect(sandbox.write(path, 'x')).rejects.toThrow(
        `cannot write ${JSON.stringify(path)}: a path that ends in "/", "/." or "/.." names a directory`,
      );
    }
    await expect(sandbox.read('hello.txt/')).rejects.toThrow('names a directory');
    expect(tree(root)).toEqual(['hello.txt']);
  });

  it('writes a name as long as the file system allows in bytes of UTF-8', async () => {
    const name = `${'文'.repeat(80)}.txt`; // 244 bytes
    await sandbox.write(name, 'first');
    await sandbox.write(name, 'second');
    expect(readFileSync(join(root, name), 'utf8')).toBe('second');
    expect(tree(root)).toEqual([name, 'hello.txt'].sort());
  });

  it('keeps the permissions of the file it replaces, but not its set-user-ID bit', async () => {
    chmodSync(join(root, 'hello.txt'), 0o4755);
    await sandbox.write('hello.txt', 'replaced');
    expect(statSync(join(root, 'hello.txt')).mode & 0o7777).toBe(0o755);
  });

  it('changes nothing when the call is interrupted before the file changes', async () => {
    const file = join(root, 'hello.txt');
    const stopped = new AbortController();
    stopped.abort(new Error('interrupted'));
    await expect(sandbox.write('hello.txt', 'x', { signal: stopped.signal })).rejects.toThrow(
      'interrupted',
    );
    await expect(sandbox.append('new/one.txt', 'x', { signal: stopped.signal })).rejects.toThrow(
      'interrupted',
    );
    // Interrupted while a large write is under way: the rename does not happen.
    const during = new AbortController();
    const writing = sandbox.write('hello.txt', 'y'.repeat(32 * 1024 * 1024), {
      signal: during.signal,
    });
    setImmediate(() => during.abort(new Error('interrupted meanwhile')));
    await expect(writing).rejects.toThrow('interrupted meanwhile');
    const appending = sandbox.append('hello.txt', 'z', { signal: during.signal });
    await expect(appending).rejects.toThrow('interrupted meanwhile');
    expect(readFileSync(file, 'utf8')).toBe('hello world');
    expect(tree(root)).toEqual(['hello.txt']);
    // Interrupted once the file it makes is there, before its first byte: it goes again.
    let asked = 0;
    const second = {
      aborted: false,
      throwIfAborted: () => {
        if (++asked === 2) throw new Error('interrupted after the open');
      },
    } as unknown as AbortSignal;
    await expect(sandbox.append('made.txt', 'x', { signal: second })).rejects.toThrow(
      'interrupted after the open',
    );
    expect(asked).toBe(2);
    expect(tree(root)).toEqual(['hello.txt']);
  });

  it('removes the folders it made when interrupted after making them, and keeps those it found', async () => {
    mkdirSync(join(root, 'found'));
    writeFileSync(join(root, 'found', 'other.txt'), 'stays');
    /** A signal that aborts the second time it is asked: once the walk is done. */
    const late = (): AbortSignal => {
      let asked = 0;
      return {
        aborted: false,
        throwIfAborted: () => {
          if (++asked === 2) throw new Error('interrupted after the walk');
        },
      } as unknown as AbortSignal;
    };
    await expect(
      sandbox.write('found/new/deeper/file.txt', 'x', { signal: late() }),
    ).rejects.toThrow('interrupted after the walk');
    await expect(sandbox.append('fresh/file.txt', 'x', { signal: late() })).rejects.toThrow(
      'interrupted after the walk',
    );
    expect(tree(root)).toEqual(['found', join('found', 'other.txt'), 'hello.txt'].sort());
    // A write that lands keeps them.
    await sandbox.write('found/new/deeper/file.txt', 'x');
    expect(readFileSync(join(root, 'found/new/deeper/file.txt'), 'utf8')).toBe('x');
  });

  it('does not replace a file it may not write, as a write in place would not', async () => {
    const file = join(root, 'hello.txt');
    chmodSync(file, 0o444);
    if (process.getuid!() === 0) {
      // Root writes any file, as its shell's `>` does.
      await sandbox.write('hello.txt', 'root writes');
      expect(readFileSync(file, 'utf8')).toBe('root writes');
      expect(statSync(file).mode & 0o777).toBe(0o444);
      return;
    }
    // Renaming a new file over it needs only the folder's permission.
    await expect(sandbox.write('hello.txt', 'lost')).rejects.toThrow(
      'cannot write "hello.txt": permission denied: the file is not writable (mode 0444, yours), and write_file does not replace a file it may not write; make it writable first (for example `chmod u+w` in the shell) if it is meant to change',
    );
    expect(readFileSync(file, 'utf8')).toBe('hello world');
    expect(tree(root)).toEqual(['hello.txt']);
    // In a folder it may not write, a writable file cannot be replaced either: it says why.
    chmodSync(file, 0o644);
    chmodSync(root, 0o555);
    try {
      await expect(sandbox.write('hello.txt', 'lost')).rejects.toThrow(
        'cannot write "hello.txt": permission denied: its folder is not writable (write_file writes the new content to a file beside it, then renames that over it)',
      );
    } finally {
      chmodSync(root, 0o755);
    }
    expect(readFileSync(file, 'utf8')).toBe('hello world');
  });

  it('keeps permissions the umask would take away, and the owner where it may', async () => {
    const file = join(root, 'hello.txt');
    const umask = process.umask(0o022);
    try {
      for (const mode of [0o666, 0o775, 0o664, 0o600]) {
        chmodSync(file, mode);
        await sandbox.write('hello.txt', `mode ${mode.toString(8)}`);
        expect((statSync(file).mode & 0o7777).toString(8)).toBe(mode.toString(8));
      }
      // A new file is made as any is: the umask applies.
      await sandbox.write('fresh.txt', 'new');
      expect((statSync(join(root, 'fresh.txt')).mode & 0o777).toString(8)).toBe('644');
    } finally {
      process.umask(umask);
    }
    const ours = { uid: process.getuid!(), gid: process.getgid!() };
    const theirs = { uid: 12345, gid: 12346 };
    if (ours.uid === 0) {
      // As root it may give the file back to its owner.
      chownSync(file, theirs.uid, theirs.gid);
      await sandbox.write('hello.txt', 'theirs still');
      expect({ uid: statSync(file).uid, gid: statSync(file).gid }).toEqual(theirs);
    } else {
      // Otherwise the replaced file is its own, as an editor's save makes it.
      await sandbox.write('hello.txt', 'ours');
      expect(statSync(file).uid).toBe(ours.uid);
    }
  });
});
