import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import {
  AGENT_CONFIG_DIRECTORIES,
  HELD_FILES,
  heldWhenMissing,
  PROTECTED_DIRECTORIES,
} from './protected-paths';

// The start-up files of a home folder that a workspace which is (or holds) that folder
// keeps read-only: those of shells and sessions beyond the sandbox runtime's list.

/**
 * Files and folders of a home folder, beyond the sandbox runtime's list (`.bashrc`,
 * `.profile`, ...), whose contents run outside any sandbox at the user's next login,
 * shell, session or git command: other shells' start-up files (and what Debian's and
 * Fedora's `.bashrc` read: `.bash_aliases`, `.bashrc.d`), fish's configuration, git's own
 * global one, what a desktop session starts or reads its environment from, a user's
 * systemd units, and `.local/bin`, which a login puts first on `PATH` (not `bin`, as
 * often a project's folder). Kept read-only where a writable folder is a home folder or
 * holds one (see {@link homeStartupPaths}; a sandboxed shell holds some only where they
 * exist).
 */
export const HOME_STARTUP_PATHS: readonly string[] = [
  ...shellStartupFiles(),
  '.bashrc.d',
  '.pam_environment',
  '.xprofile',
  '.xsession',
  '.xsessionrc',
  '.xinitrc',
  '.config/fish',
  '.config/git/config',
  '.config/environment.d',
  '.config/autostart',
  '.config/systemd',
  '.local/bin',
];

/**
 * Of {@link HOME_STARTUP_PATHS}, those a sandboxed shell holds even when missing (an
 * empty file stands in while it runs, which a shell reads as nothing): shells' own
 * start-up files. The rest are held where they exist: an empty `.xsession` standing in
 * would break a desktop login meanwhile (the file tools refuse them all, there or not).
 */
export const HOME_STARTUP_HELD_WHEN_MISSING: ReadonlySet<string> = new Set(shellStartupFiles());

/** Shells' start-up files in a home folder beyond the sandbox runtime's list. */
function shellStartupFiles(): string[] {
  return [
    '.zshenv',
    '.zlogin',
    '.zlogout',
    '.bash_login',
    '.bash_logout',
    '.bash_aliases',
    '.login',
    '.logout',
    '.cshrc',
    '.tcshrc',
    '.kshrc',
    '.mkshrc',
  ];
}

/**
 * The {@link HOME_STARTUP_PATHS} of each of `homes` that lies in one of `roots` (the
 * workspace is the home folder, or holds it), as absolute paths.
 */
export function homeStartupPaths(roots: readonly string[], homes: readonly string[]): string[] {
  return homesIn(roots, homes).flatMap((home) =>
    HOME_STARTUP_PATHS.map((path) => join(home, path)),
  );
}

/**
 * The hidden entries (names starting with `.`) at the top of each of `homes` that lies in
 * one of `roots`, as they are when asked, but one that is or holds one of `roots`: a home
 * folder's settings and the tools it puts on `PATH` (`.config`, `.local`, `.cargo`,
 * `.nvm`, ...), which the host's programs run or read outside any sandbox, and which no
 * list of names can cover; not `.git`, held as a repository's is. A workspace that is a home folder, or holds one, keeps them
 * read-only, as a workspace elsewhere keeps the whole home folder: its other files are
 * the work.
 */
export function homeDotEntries(roots: readonly string[], homes: readonly string[]): string[] {
  const realRoots = roots.map(realOrSelf);
  return homesIn(roots, homes).flatMap((home) => {
    let names: string[];
    try {
      names = readdirSync(home);
    } catch {
      return [];
    }
    return (
      names
        // A home folder that is a repository keeps its `.git` as any repository does (its
        // hooks and config held): whole, git there could not commit.
        .filter((name) => name.startsWith('.') && name !== '.git')
        .map((name) => join(home, name))
        .filter((path) => !realRoots.some((root) => root === path || root.startsWith(path + sep)))
    );
  });
}

/** Those of `homes` that lie in one of `roots`, where they really are. */
function homesIn(roots: readonly string[], homes: readonly string[]): string[] {
  const found = new Set<string>();
  const realRoots = roots.map(realOrSelf);
  for (const given of homes) {
    // Compared where they really are: a $HOME reached through a link counts.
    const home = realOrSelf(given);
    const held = realRoots.some(
      (root) => home === root || home.startsWith(root.endsWith(sep) ? root : root + sep),
    );
    if (held) found.add(home);
  }
  return [...found];
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The start-up files of the homes in `roots` that a sandboxed shell holds: the sandbox
 * runtime's lists and the agents' files ({@link HELD_FILES},
 * {@link PROTECTED_DIRECTORIES}: `.bashrc`, `.gitconfig`, ...), the agents' folders ({@link AGENT_CONFIG_DIRECTORIES}: `.claude`,
 * `.cursor`, ..., whole) and shells' own there or not, so that none can be made for the
 * user's next login or the agent's next start (an empty file or folder stands in while
 * the shell runs), the others where they exist (see {@link HOME_STARTUP_HELD_WHEN_MISSING}).
 * Then every other hidden entry there (see {@link homeDotEntries}). Elsewhere the
 * runtime's lists are held only where they exist.
 */
export function heldStartupPaths(roots: readonly string[], homes: readonly string[]): string[] {
  return [
    ...homesIn(roots, homes).flatMap((home) => [
      ...[...HELD_FILES, ...PROTECTED_DIRECTORIES]
        .filter((name) => !AGENT_CONFIG_DIRECTORIES.includes(name.split('/')[0]!))
        .map((name) => join(home, name))
        // A stand-in for a plain name (`opencode.json`) would show in every `ls`: held
        // where it exists (the repository guard moves aside one a command makes).
        .filter((path) => basename(path).startsWith('.') || existsSync(path)),
      ...AGENT_CONFIG_DIRECTORIES.map((name) => heldWhenMissing(home, name)),
    ]),
    ...homeStartupPaths(roots, homes).filter(
      (path) => HOME_STARTUP_HELD_WHEN_MISSING.has(basename(path)) || existsSync(path),
    ),
    ...homeDotEntries(roots, homes),
  ];
}

/**
 * What a sandbox lets its commands write for the writable folders `roots`, where one is
 * (or holds) one of `homes`: such a root is given as what it holds but the way to the
 * home folder, and the home folder as its visible entries (and `.git`, held as any
 * repository's), so that its top stays read-only. A missing hidden name there could
 * otherwise be made, and what the user's programs trust in one runs or lets in outside
 * any sandbox: `~/.ssh/authorized_keys`, `~/.aws/config` (a `credential_process`),
 * `~/.config/git/config`, `~/.vimrc`; no list of names covers them all. No entry is
 * made at the top of a home folder then, hidden or not. Links there are left out (one
 * could lead out of the folder). Other roots are given as they are.
 */
export function homeWritableTops(roots: readonly string[], homes: readonly string[]): string[] {
  const held = homesIn(roots, homes);
  if (held.length === 0) return [...roots];
  const out: string[] = [];
  const split = (dir: string): void => {
    if (held.includes(dir)) {
      for (const name of entriesOf(dir)) {
        if (!name.startsWith('.') || name === '.git') out.push(join(dir, name));
      }
      return;
    }
    if (!held.some((home) => home.startsWith(dir.endsWith(sep) ? dir : dir + sep))) {
      out.push(dir);
      return;
    }
    for (const name of entriesOf(dir)) split(join(dir, name));
  };
  for (const root of roots) split(realOrSelf(root));
  return out;
}

/** The names in `dir` that are not links (none when it cannot be read). */
function entriesOf(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    try {
      return !lstatSync(join(dir, name)).isSymbolicLink();
    } catch {
      return false;
    }
  });
}
