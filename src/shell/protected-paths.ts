import { existsSync, promises as fsPromises, realpathSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import {
  AGENT_CONFIG_DIRECTORIES,
  HELD_FILES,
  HELD_WHEN_MISSING,
  PROTECTED_DIRECTORIES,
} from './protected-names';

export {
  AGENT_CONFIG_DIRECTORIES,
  AGENT_CONFIG_FILES,
  HELD_FILES,
  HELD_WHEN_MISSING,
  PROTECTED_DIRECTORIES,
  PROTECTED_FILES,
  UNHELD_AGENT_FILES,
} from './protected-names';

/** The path below a missing {@link HELD_WHEN_MISSING} name that makes a folder stand in. */
const FOLDER_STAND_IN = '.agenttool-held';

/** {@link AGENT_CONFIG_DIRECTORIES}, lower-cased: names are matched with case ignored. */
const AGENT_CONFIG_NAMES: ReadonlySet<string> = new Set(
  AGENT_CONFIG_DIRECTORIES.map((name) => name.toLowerCase()),
);

/** Whether `name` (a path below a folder) lies in one of the agents' folders held whole. */
function inAgentFolder(name: string): boolean {
  return AGENT_CONFIG_NAMES.has(name.split('/')[0]!.toLowerCase());
}

/**
 * How a folder `dir` holds `name` of {@link HELD_WHEN_MISSING}: the path itself where
 * something is there, else a path below it, which makes the sandbox runtime stand an
 * empty read-only folder in for it (or for its first missing folder).
 */
export function heldWhenMissing(dir: string, name: string): string {
  const path = join(dir, name);
  return existsSync(path) ? path : join(path, FOLDER_STAND_IN);
}

/**
 * What in a git directory says what git runs, or where it reads that from: its hooks,
 * its config (and a worktree's), the common directory it reads them from, and its
 * linked worktrees' own.
 */
const GIT_CONTROL: ReadonlySet<string> = new Set([
  'hooks',
  'config',
  'config.worktree',
  'commondir',
  'worktrees',
]);

/** The {@link PROTECTED_DIRECTORIES} held where the scan finds them, lower-cased. */
const WHOLE_PROTECTED_DIRECTORIES: ReadonlySet<string> = new Set(
  PROTECTED_DIRECTORIES.filter((name) => !name.includes('/')).map((name) => name.toLowerCase()),
);

/** {@link HELD_FILES} lower-cased: names are matched with case ignored. */
const PROTECTED_FILE_NAMES: ReadonlySet<string> = new Set(
  HELD_FILES.map((name) => name.toLowerCase()),
);

/** How deep below a writable root the scan looks, as the runtime's default (3). */
export const PROTECTED_SCAN_DEPTH = 3;

/**
 * The most directories the scan reads for one shell, all roots together: past it, what
 * was not reached is not protected (as the runtime does when its scan is cut short), so
 * that a huge tree cannot stall a shell's start.
 */
export const PROTECTED_SCAN_MAX_DIRECTORIES = 10_000;

/** What {@link protectedPaths} found. */
export interface ProtectedPaths {
  /** Absolute paths a command may not write, some of which may not exist yet. */
  readonly paths: readonly string[];
  /** False when the directory bound stopped the scan before it had read all it would. */
  readonly complete: boolean;
  /** How many directories the scan read. */
  readonly directoriesRead: number;
}

/** Bounds of one {@link protectedPaths} scan. */
export interface ProtectedPathsOptions {
  /** {@link PROTECTED_SCAN_DEPTH} by default. */
  readonly maxDepth?: number;
  /** {@link PROTECTED_SCAN_MAX_DIRECTORIES} by default. */
  readonly maxDirectories?: number;
}

/** How many directories are read at once. */
const CONCURRENCY = 16;

/**
 * The paths a sandboxed command may not write although they lie in one of `roots` (the
 * shell's working directory and its other writable paths), computed for those roots
 * whatever this process's working directory is. The rules of the sandbox runtime's
 * mandatory denies, applied at each root instead of at `process.cwd()`:
 *
 * - at the root itself, the {@link PROTECTED_FILES}, {@link PROTECTED_DIRECTORIES} and
 *   {@link AGENT_CONFIG_DIRECTORIES} that are there (what lies in an agent's folder
 *   held with it), and those of {@link HELD_WHEN_MISSING} that are not, by a path below
 *   each (the runtime holds its lists there or not, by an
 *   empty file or folder made in their place; in a home folder, see `heldStartupPaths`,
 *   they all are), and, when `.git` is a directory, its `hooks`
 *   (there or not) and `config`, or, when `.git` is a file (a worktree's or a submodule's
 *   pointer), that file;
 * - below it, by a scan that skips `node_modules`, follows no symbolic link, and reads
 *   directories breadth first, down to `maxDepth - 1` levels below the root and at most
 *   `maxDirectories` of them: every entry named as one of {@link PROTECTED_FILES} (case
 *   ignored) down to that depth; the hooks and config (and `commondir`, `worktrees`,
 *   `config.worktree`) that exist in a folder it reads holding a `HEAD` (a bare
 *   repository's layout); every existing protected directory, agent's folder (not read
 *   further: it is held whole; a link so named, as it leads) and every repository's
 *   `.git/hooks` and `.git/config` whose first part lies at most `maxDepth - 2` levels
 *   below the root (a nested repository's hooks); and every directory of this user's
 *   that cannot be read, whole, since what it holds is unknown.
 *
 * Reads only, in this process, without blocking it for long.
 */
export async function protectedPaths(
  roots: readonly string[],
  options: ProtectedPathsOptions = {},
): Promise<ProtectedPaths> {
  const maxDepth = options.maxDepth ?? PROTECTED_SCAN_DEPTH;
  const maxDirectories = options.maxDirectories ?? PROTECTED_SCAN_MAX_DIRECTORIES;
  const found = new Set<string>();
  /** Directories to read, level by level: each with how deep it lies below its root. */
  let level: { readonly dir: string; readonly depth: number }[] = [];
  for (const root of new Set(roots)) {
    const kind = await kindOf(root);
    if (kind !== 'directory') continue;
    // Those there; of those missing, only what runs or instructs on its own once made,
    // by an empty read-only folder standing in (a path below it, which makes the sandbox
    // runtime stand a folder in for it): an empty file in the user's folder would be
    // listed by git (a host's `git add -A` commits it) and break `git add -A` in the
    // sandbox, where git passes an empty folder over. What lies in an agent's folder is
    // held with the folder.
    for (const name of new Set([...HELD_FILES, ...PROTECTED_DIRECTORIES, ...HELD_WHEN_MISSING])) {
      const path = join(root, name);
      if (inAgentFolder(name) && !AGENT_CONFIG_NAMES.has(name.toLowerCase())) continue;
      if ((await kindOf(path)) !== undefined) found.add(path);
      else if (HELD_WHEN_MISSING.includes(name)) found.add(join(path, FOLDER_STAND_IN));
    }
    const dotGit = await kindOf(join(root, '.git'));
    if (dotGit === 'directory') {
      found.add(join(root, '.git', 'hooks'));
      found.add(join(root, '.git', 'config'));
    } else if (dotGit !== undefined) {
      found.add(join(root, '.git'));
    }
    level.push({ dir: root, depth: 0 });
  }
  let read = 0;
  let complete = true;
  // A directory at depth d holds entries at depth d + 1: files count down to maxDepth - 1.
  while (level.length > 0) {
    const next: typeof level = [];
    if (read + level.length > maxDirectories) {
      complete = false;
      level = level.slice(0, Math.max(0, maxDirectories - read));
    }
    read += level.length;
    for (let i = 0; i < level.length; i += CONCURRENCY) {
      await Promise.all(
        level.slice(i, i + CONCURRENCY).map(async ({ dir, depth }) => {
          const entries = await entriesOf(dir);
          if (entries === 'unreadable') {
            if (depth > 0) found.add(dir);
            return;
          }
          bareLayout(dir, entries, found);
          for (const entry of entries) {
            const path = join(dir, entry.name);
            const lower = entry.name.toLowerCase();
            if (PROTECTED_FILE_NAMES.has(lower)) found.add(path);
            // An agent's folder given by a link (to settings shared between projects) is
            // held as the link leads, as at a root.
            if (entry.isSymbolicLink() && AGENT_CONFIG_NAMES.has(lower) && depth <= maxDepth - 2) {
              found.add(path);
            }
            if (!entry.isDirectory() || lower === 'node_modules') continue;
            if (depth <= maxDepth - 2) {
              // An agent's folder is held whole: nothing in it needs a mount of its own.
              if (AGENT_CONFIG_NAMES.has(lower)) {
                found.add(path);
                continue;
              }
              await nested(path, lower, found);
            }
            if (depth + 1 <= maxDepth - 1) next.push({ dir: path, depth: depth + 1 });
          }
        }),
      );
    }
    if (!complete) break;
    level = next.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  }
  return { paths: [...found].sort(), complete, directoriesRead: read };
}

/**
 * The protected directories and repository files that begin at the directory `path`
 * (named `lower`, lower-cased): `.vscode` and `.idea` (the runtime's `.claude/commands`
 * and `.claude/agents` are held with `.claude`, see {@link AGENT_CONFIG_DIRECTORIES}),
 * and a repository's hooks and config.
 */
async function nested(path: string, lower: string, found: Set<string>): Promise<void> {
  if (WHOLE_PROTECTED_DIRECTORIES.has(lower)) {
    found.add(path);
    return;
  }
  if (lower !== '.git') return;
  const inner = await entriesOf(path);
  if (inner === 'unreadable') {
    found.add(path);
    return;
  }
  const names = new Map(inner.map((entry) => [entry.name.toLowerCase(), entry.name]));
  // A repository is known by its HEAD, so that its hooks are protected before it has any.
  if (names.has('head') || names.has('hooks')) {
    found.add(join(path, names.get('hooks') ?? 'hooks'));
  }
  const config = names.get('config');
  if (config !== undefined) found.add(join(path, config));
}

/**
 * When `dir` (its `entries` read) holds a `HEAD`, as a bare repository's folder or one
 * that `git init --separate-git-dir` made does (git takes such a folder as a repository
 * wherever it finds one): its hooks, config and what says where git reads them from,
 * those that exist.
 */
function bareLayout(dir: string, entries: readonly Dirent[], found: Set<string>): void {
  if (!entries.some((entry) => entry.name.toLowerCase() === 'head')) return;
  for (const entry of entries) {
    if (GIT_CONTROL.has(entry.name.toLowerCase())) found.add(join(dir, entry.name));
  }
}

/** The entries of `dir`; `unreadable` for a directory of this user's that cannot be read. */
async function entriesOf(dir: string): Promise<Dirent[] | 'unreadable'> {
  try {
    return await fsPromises.readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') return [];
    try {
      // Another user's directory cannot be given back its mode from inside: nothing to do.
      const info = await fsPromises.lstat(dir);
      return info.isDirectory() && info.uid === process.getuid?.() ? 'unreadable' : [];
    } catch {
      return [];
    }
  }
}

/** What is at `path` (a symbolic link followed, as git does); undefined when nothing. */
async function kindOf(path: string): Promise<'directory' | 'other' | undefined> {
  try {
    return (await fsPromises.stat(path)).isDirectory() ? 'directory' : 'other';
  } catch {
    return undefined;
  }
}

/**
 * `policy` with the {@link protectedPaths} of its writable paths added to its
 * `denyWrite`: what a sandbox backend is given, so that every backend keeps the same
 * paths read-only whatever this process's working directory.
 */
export async function withProtectedPaths<
  Policy extends { readonly allowWrite: readonly string[]; readonly denyWrite: readonly string[] },
>(policy: Policy): Promise<Policy> {
  const { paths } = await protectedPaths(policy.allowWrite);
  return { ...policy, denyWrite: [...new Set([...policy.denyWrite, ...paths])] };
}

/**
 * `name` as a file system that ignores case may take it: its compatibility form (NFKC)
 * lower-cased. Such a file system (macOS's by default, a Linux folder with casefolding)
 * opens `.SSH` as `.ssh`, and, folding case as Unicode does, `.git/hook\u017f` (a long
 * s) as `.git/hooks`: names are compared so, never less strictly than it opens them.
 */
export function foldName(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/**
 * Why a path may not be written, or undefined when it may: the path's components below a
 * writable root (`components`, no `.` or `..` among them) judged by the rules a sandboxed
 * shell's start applies to its writable folders (see docs/sandbox.md, "What stays
 * read-only in a writable folder"), by name and at any depth (the shell's scan stops
 * three levels down; a path given whole is judged whole): a file named `.bashrc`,
 * `.gitconfig`, `.mcp.json` or another of the sandbox runtime's list, anything in
 * `.vscode`, `.idea` or an agent's folder of settings (`.claude`, `.cursor`, `.gemini`,
 * ...), a repository's `.git/hooks` and `.git/config`, with what says where git reads
 * them from (`.git/commondir`, `.git/config.worktree`,
 * `.git/worktrees`; and the same of the submodules it keeps in `.git/modules`), and a
 * `.git` itself, which as a file says where the repository is. For tools that write
 * without the sandbox (the workspace's file tools), so that they leave alone what a
 * sandboxed command cannot change. Case is ignored, as the scan does, and names are
 * compared as {@link foldName} folds them (where case is ignored, `.baſhrc` is `.bashrc`).
 */
export function writeProtection(components: readonly string[]): string | undefined {
  const lower = components.map(foldName);
  for (let i = 0; i < lower.length; i++) {
    const reason = protectionAt(components, lower, i, false);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** {@link writeProtection} for a folder's components: see {@link protectedFolderProblem}. */
function folderProtection(components: readonly string[]): string | undefined {
  const lower = components.map(foldName);
  for (let i = 0; i < lower.length; i++) {
    // An agent's worktrees: the folders in one are judged as any folder's.
    if (AGENT_CONFIG_NAMES.has(lower[i]!) && lower[i + 1] === 'worktrees' && i + 2 < lower.length) {
      i += 1;
      continue;
    }
    const reason = protectionAt(components, lower, i, true);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/**
 * Why the path is read-only by its component `i` (`lower`: the components folded), or
 * undefined; `folder`: the path is a folder's, whose components are no files.
 */
function protectionAt(
  components: readonly string[],
  lower: readonly string[],
  i: number,
  folder: boolean,
): string | undefined {
  const name = lower[i]!;
  if (!folder && PROTECTED_FILE_NAMES.has(name)) {
    return `${components[i]} files stay read-only: a shell or another tool runs or trusts what they say outside the sandbox`;
  }
  for (const dir of PROTECTED_DIRECTORIES) {
    if (dir.split('/').every((part, k) => lower[i + k] === part)) {
      return `${dir} stays read-only: editors and agents run or trust what is there outside the sandbox`;
    }
  }
  if (AGENT_CONFIG_NAMES.has(name)) {
    return `${components[i]} stays read-only: the agent or editor it configures runs the commands its settings name (hooks, MCP servers) outside the sandbox`;
  }
  if (name !== '.git') return undefined;
  const rest = lower.slice(i + 1);
  const git =
    rest.length === 0 ||
    GIT_CONTROL.has(rest[0]!) ||
    (rest[0] === 'modules' && rest.some((part) => GIT_CONTROL.has(part)));
  return git
    ? "a repository's .git file, hooks and config stay read-only: git runs what they say outside the sandbox, at the next commit"
    : undefined;
}

/**
 * Why commands may not be given `folder` to write in, or undefined when they may: it is,
 * or lies in, what {@link writeProtection} keeps read-only in any writable folder (an
 * agent's settings folder such as `~/.claude`, a repository's `.git` or its hooks, an
 * editor's settings), judged where it really is, links resolved. The rules apply below
 * a writable folder; a folder handed over whole would otherwise escape them, and what a
 * command wrote there would run on the host, outside the sandbox, at the agent's next
 * start or git's next command. A host may start a server in its own folder. Judged as a
 * folder: a component named as a protected file (`.profile`) is a folder here, not that
 * file; and an agent's `worktrees` (where Claude Code, Cursor and Codex check out a
 * repository for an agent to work in, `.claude/worktrees/<name>`) holds no settings: a
 * folder in one is the agent's work, not its settings.
 */
export function protectedFolderProblem(folder: string): string | undefined {
  let real = folder;
  try {
    real = realpathSync(folder);
  } catch {
    // Missing: judged as written (a folder made later is made there).
  }
  const reason = folderProtection(real.split(sep).filter((part) => part !== ''));
  if (reason === undefined) return undefined;
  return `${JSON.stringify(real)} lies in what stays read-only wherever commands may write (${reason}); name a folder outside it`;
}
