/**
 * The repository guard reads a git configuration as git does: for each text below, the
 * entries it finds (section, subsection, key) are the ones git itself lists
 * (`git config --file F --list --name-only`), and where git refuses the file, so does
 * the parser. A text the parser read otherwise than git would let an entry through.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryName, mayRunSomething, parseGitConfig } from '../../src/shell/git-config';
import { killChildren, tempDir } from '../cli/helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

const TEXTS: Record<string, string> = {
  'what git init writes':
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n',
  'a header sharing its line with an entry': '[core] fsmonitor = touch /tmp/x\n',
  'two headers on one line': '[core][alias] x = !sh\n',
  'a subsection, quotes and escapes in it':
    '[remote "or\\"ig\\\\in"]\n\turl = https://example.com\n',
  'the old dotted subsection': '[Diff.Evil]\n\tTextConv = sh\n',
  'a value continued on the next line':
    '[core]\n\tpager = less \\\n\tfsmonitor = x\n[user]\n\tname = a\n',
  'a quoted value with comment signs':
    '[core]\n\tpager = "less # not ; a comment"\n\teditor = vim ; comment\n',
  'a bare key (true)': '[core]\n\tbare\n\tfsmonitor\n',
  'CRLF line ends': '[core]\r\n\tfsmonitor = x\r\n[user]\r\n\temail = a@b\r\n',
  'a byte order mark': '\ufeff[core]\n\tfsmonitor = x\n',
  'comments and blank lines': '# c\n; c\n\n[core] ; c\n\t# fsmonitor = x\n\tbare = false # c\n',
  'an entry before any section': 'fsmonitor = x\n',
  'a key with dashes and digits': '[core]\n\tA-b9 = 1\n',
  'values with white space, quotes and escapes':
    '[remote "o"]\n\turl =   /a b/c  \n\tpushurl = " x "y\\tz\\\\ # c\n\tfetch = a\\\n b\n',
  'no newline at the end': '[core]\n\tfsmonitor = x',
  'a value ending in a backslash at the end': '[core]\n\tpager = a\\',
  'an include': '[include]\n\tpath = ../other\n[includeIf "gitdir:/x/"]\n\tpath = y\n',
  // Refused by git:
  'an unclosed header': '[core\n\tfsmonitor = x\n',
  'an unclosed quote': '[core]\n\tpager = "less\n',
  'an unknown escape': '[core]\n\tpager = a\\q\n',
  'a key without = and value': '[core]\n\tfsmonitor x\n',
  'a key starting with a digit': '[core]\n\t9x = 1\n',
  'a subsection without quotes': '[remote origin]\n\turl = x\n',
  'an empty header': '[]\n',
  'a newline in a subsection': '[remote "a\nb"]\n\turl = x\n',
};

/** What git lists for `text` (each name, and its value unless it has none), or undefined when it refuses the file. */
function gitNames(text: string): string[] | undefined {
  const file = join(tempDir(), 'config');
  writeFileSync(file, text);
  const listed = spawnSync('git', ['config', '--file', file, '--list', '-z'], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' },
  });
  if (listed.status !== 0) return undefined;
  return listed.stdout.split('\0').filter((name) => name !== '');
}

describe('parseGitConfig', () => {
  it.each(Object.entries(TEXTS))('reads %s as git does', (_name, text) => {
    const expected = gitNames(text);
    const parsed = parseGitConfig(text);
    if (expected === undefined) {
      expect(parsed.ok).toBe(false);
      return;
    }
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    // git names a key before any section with its key alone.
    const names = parsed.entries.map((entry) => {
      const name = entry.section === '' ? entry.key : entryName(entry);
      return entry.value === undefined ? name : `${name}\n${entry.value}`;
    });
    expect(names).toEqual(expected);
  });

  it("gives each entry's span, which can be cut out of the text", () => {
    const text = '[core] fsmonitor = x \\\n y\n\tbare = true\n';
    const parsed = parseGitConfig(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.entries.map((entry) => text.slice(entry.start, entry.end))).toEqual([
      'fsmonitor = x \\\n y',
      'bare = true',
    ]);
  });

  it('takes every key as one that may run something but those known to be data', () => {
    const parsed = parseGitConfig(
      [
        '[core]\n\tbare = false\n\tfsmonitor = x\n\thooksPath = h\n\tsshCommand = s\n\tworktree = /\n',
        '[remote "o"]\n\turl = u\n\tuploadpack = p\n[branch "main"]\n\tremote = o\n',
        '[filter "lfs"]\n\tclean = c\n[diff "d"]\n\ttextconv = t\n[alias]\n\tx = !y\n',
        '[user]\n\temail = e\n[include]\n\tpath = p\n[color "diff"]\n\tmeta = blue\n',
        '[submodule "s"]\n\turl = u\n\tupdate = !x\n',
      ].join(''),
    );
    if (!parsed.ok) throw new Error('the text should parse');
    const risky = parsed.entries.filter(mayRunSomething).map(entryName);
    expect(risky).toEqual([
      'core.fsmonitor',
      'core.hookspath',
      'core.sshcommand',
      'core.worktree',
      'remote.o.uploadpack',
      'filter.lfs.clean',
      'diff.d.textconv',
      'alias.x',
      'include.path',
      'submodule.s.update',
    ]);
  });

  it("takes a section named as one of Object's properties as one that may run something", () => {
    // A command writes the config: `constructor` must not find Object's own and throw.
    const parsed = parseGitConfig(
      '[constructor]\n\tx = 1\n[constructor "s"]\n\ty = 2\n[core]\n\tfsmonitor = x\n',
    );
    if (!parsed.ok) throw new Error('the text should parse');
    expect(parsed.entries.filter(mayRunSomething).map(entryName)).toEqual([
      'constructor.x',
      'constructor.s.y',
      'core.fsmonitor',
    ]);
  });
});
