/**
 * Whose credentials a sandbox policy keeps from commands (and from the workspace's file
 * tools): those under `$HOME`, and under the home folder the password database gives the
 * server's user, so that an unset, empty or relative `$HOME` leaves none readable.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  HOME_STARTUP_PATHS,
  homeDotEntries,
  homeStartupPaths,
  protectedFolderProblem,
  sandboxPolicy,
} from 'agenttool/shell';

const recorded = userInfo().homedir;

describe("a sandbox policy's credentials", () => {
  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['relative', 'home/me'],
  ])('are the recorded home folder’s when $HOME is %s', (_case, home) => {
    const policy = sandboxPolicy({ denyRead: ['~/private'] }, home, '/srv/work');
    expect(policy.denyRead).toContain(join(recorded, '.ssh'));
    expect(policy.denyRead).toContain(join(recorded, '.aws'));
    expect(policy.denyRead).toContain(join(recorded, 'private'));
    expect(policy.denyRead.some((path) => path.includes('home/me'))).toBe(false);
  });

  it("are $HOME's and the recorded home folder's when $HOME is another, ~/ leading to $HOME", () => {
    const policy = sandboxPolicy({ denyRead: ['~/private'] }, '/srv/home', '/srv/work');
    expect(policy.denyRead).toContain('/srv/home/.ssh');
    expect(policy.denyRead).toContain(join(recorded, '.ssh'));
    expect(policy.denyRead).toContain('/srv/home/private');
    expect(policy.denyRead).not.toContain(join(recorded, 'private'));
  });

  it('are listed once when $HOME is the recorded home folder', () => {
    const policy = sandboxPolicy({}, recorded, '/srv/work');
    expect(policy.denyRead.filter((path) => path === join(recorded, '.ssh'))).toHaveLength(1);
  });
});

describe("a home folder's start-up files", () => {
  it('stay read-only where a writable folder is the home folder or holds it, not elsewhere', () => {
    expect(homeStartupPaths(['/srv/me'], ['/srv/me'])).toEqual(
      HOME_STARTUP_PATHS.map((path) => join('/srv/me', path)),
    );
    expect(homeStartupPaths(['/srv'], ['/srv/me'])).toContain('/srv/me/.zshenv');
    expect(homeStartupPaths(['/srv/work', '/srv/me-too'], ['/srv/me'])).toEqual([]);
    expect(sandboxPolicy({}, '/srv/me', '/srv/work').denyWrite).not.toContain('/srv/me/.zshenv');
  });

  it("a sandboxed shell holds: shells' own there or not, the others where they exist", () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'home-')));
    try {
      mkdirSync(join(home, '.config', 'git'), { recursive: true });
      writeFileSync(join(home, '.config', 'git', 'config'), '[user]\n');
      const denied = sandboxPolicy({}, home, home).denyWrite;
      expect(denied).toContain(join(home, '.config/git/config'));
      expect(denied).toContain(join(home, '.zshenv'));
      expect(denied).toContain(join(home, '.bash_aliases'));
      // The sandbox runtime's lists, held there or not in a home folder only (a project
      // folder gets no stand-in for a missing one); an agent's plain-named file only where
      // it is (a stand-in would show in every ls).
      for (const name of ['.bashrc', '.profile', '.gitconfig', '.vscode', '.crush.json']) {
        expect(denied).toContain(join(home, name));
      }
      expect(denied).not.toContain(join(home, 'opencode.json'));
      writeFileSync(join(home, 'crush.json'), '{}');
      expect(sandboxPolicy({}, home, home).denyWrite).toContain(join(home, 'crush.json'));
      // The agents' folders whole: one there, one missing (an empty folder stands in); no
      // stand-in is made in them for the runtime's `.claude/commands`.
      mkdirSync(join(home, '.claude'));
      const again = sandboxPolicy({}, home, home).denyWrite;
      expect(again).toContain(join(home, '.claude'));
      expect(again).toContain(join(home, '.cursor', '.agenttool-held'));
      expect(again.filter((path) => path.startsWith(`${join(home, '.claude')}/`))).toEqual([]);
      expect(sandboxPolicy({}, home, join(home, '.config')).denyWrite).not.toContain(
        join(home, '.config', '.bashrc'),
      );
      // Missing, an empty file standing in would break a desktop login meanwhile.
      expect(denied).not.toContain(join(home, '.xsession'));
      expect(denied).not.toContain(join(home, '.local/bin'));
      // As often a project's folder as a home's.
      expect(HOME_STARTUP_PATHS).not.toContain('bin');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("a home folder's hidden entries", () => {
  it('stay read-only where a writable folder is the home folder or holds it, but one holding a writable folder', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'home-')));
    try {
      for (const dir of [
        '.config/Claude',
        '.cargo',
        '.local/lib',
        '.cache/work',
        'projects',
        '.git/hooks',
      ]) {
        mkdirSync(join(home, dir), { recursive: true });
      }
      writeFileSync(join(home, '.vimrc'), '');
      writeFileSync(join(home, 'notes.txt'), '');
      const denied = sandboxPolicy(
        { allowWrite: [join(home, '.cache/work')] },
        home,
        home,
      ).denyWrite;
      for (const name of ['.config', '.cargo', '.local', '.vimrc']) {
        expect(denied).toContain(join(home, name));
      }
      // A writable folder the user named in one stays writable; the others are the work.
      expect(denied).not.toContain(join(home, '.cache'));
      for (const name of ['projects', 'notes.txt']) {
        expect(denied.some((path) => path.startsWith(join(home, name)))).toBe(false);
      }
      // A home folder that is a repository keeps its .git as any repository does (the
      // shell's start holds its hooks and config), not whole.
      expect(denied).not.toContain(join(home, '.git'));
      expect(homeDotEntries([join(home, 'projects')], [home])).toEqual([]);
      expect(homeDotEntries([tmpdir()], [home])).toContain(join(home, '.cargo'));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a writable folder in what stays read-only', () => {
  it("is refused: an agent's settings, a repository's .git or its hooks, an editor's settings, by where it really is", () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'held-')));
    try {
      for (const dir of [
        '.claude',
        '.cursor/rules',
        'repo/.git/hooks',
        'repo/.git/objects',
        'site',
      ]) {
        mkdirSync(join(base, dir), { recursive: true });
      }
      symlinkSync(join(base, '.cursor'), join(base, 'cursor-link'));
      expect(protectedFolderProblem(join(base, '.claude'))).toBe(
        `${JSON.stringify(join(base, '.claude'))} lies in what stays read-only wherever commands may write (.claude stays read-only: the agent or editor it configures runs the commands its settings name (hooks, MCP servers) outside the sandbox); name a folder outside it`,
      );
      expect(protectedFolderProblem(join(base, 'cursor-link', 'rules'))).toContain(
        `${JSON.stringify(join(base, '.cursor', 'rules'))} lies in what stays read-only`,
      );
      expect(protectedFolderProblem(join(base, 'repo/.git/hooks'))).toContain(
        "a repository's .git file, hooks and config stay read-only",
      );
      expect(protectedFolderProblem(join(base, 'repo/.git'))).toContain('lies in what stays');
      expect(protectedFolderProblem(join(base, 'QWEN-missing', '.Qwen'))).toContain(
        '.Qwen stays read-only',
      );
      // An agent's worktrees are its work, not its settings (claude --worktree makes
      // .claude/worktrees/<name>); their own .git is judged as any.
      mkdirSync(join(base, '.claude/worktrees/fix-1/.git/hooks'), { recursive: true });
      expect(protectedFolderProblem(join(base, '.claude/worktrees/fix-1'))).toBeUndefined();
      expect(protectedFolderProblem(join(base, '.claude/worktrees/fix-1/src'))).toBeUndefined();
      expect(protectedFolderProblem(join(base, '.claude/worktrees'))).toContain('.claude stays');
      expect(protectedFolderProblem(join(base, '.claude/worktrees/fix-1/.git/hooks'))).toContain(
        "a repository's .git file",
      );
      // A folder named as a protected file is a folder, not that file.
      expect(protectedFolderProblem(join(base, 'src/.profile/site'))).toBeUndefined();
      // What git keeps beside its controls, and a project, are not.
      expect(protectedFolderProblem(join(base, 'repo/.git/objects'))).toBeUndefined();
      expect(protectedFolderProblem(join(base, 'site'))).toBeUndefined();
      expect(() => sandboxPolicy({}, base, join(base, '.claude'))).toThrow(
        `the shell's working folder ${JSON.stringify(join(base, '.claude'))} lies in what stays read-only`,
      );
      expect(() =>
        sandboxPolicy({ allowWrite: [join(base, 'repo/.git/hooks')] }, base, join(base, 'site')),
      ).toThrow(
        `sandbox.allowWrite[0] ${JSON.stringify(join(base, 'repo/.git/hooks'))} lies in what stays read-only`,
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
