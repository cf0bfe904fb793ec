/**
 * Whose credentials a sandbox policy keeps from commands (and from the workspace's file
 * tools): those under `$HOME`, and under the home folder the password database gives the
 * server's user, so that an unset, empty or relative `$HOME` leaves none readable.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { HOME_STARTUP_PATHS, homeStartupPaths, sandboxPolicy } from 'agenttool/shell';

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
      // folder gets no stand-in for a missing one).
      for (const name of ['.bashrc', '.profile', '.gitconfig', '.vscode']) {
        expect(denied).toContain(join(home, name));
      }
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
