import { existsSync, readFileSync } from 'node:fs';
import { getCompileCacheDir } from 'node:module';
import { totalmem, userInfo } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { heldStartupPaths } from './home-startup';
import { protectedFolderProblem } from './protected-paths';

/**
 * What a sandboxed shell may do. Everything not granted here is refused: the system is
 * read-only, the network is off, the credentials below cannot be read, and processes
 * and memory are capped. See docs/sandbox.md for the threat model.
 */
export interface SandboxOptions {
  /**
   * Directories a command may write besides the shell's working directory (always
   * writable) and its private temporary folder (`$TMPDIR`, gone with the shell).
   */
  readonly allowWrite?: readonly string[];
  /**
   * Paths a command may not read, on top of {@link CREDENTIAL_PATHS} (which stay denied
   * whatever this says). Absolute, or relative to the server's `$HOME` with `~/`.
   */
  readonly denyRead?: readonly string[];
  /**
   * Where a command may connect, through the sandbox's proxy (the shell's
   * `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY`): `example.com`, `*.example.com`,
   * `example.com:443`, or an address with its port such as `127.0.0.1:8080`. Nothing by
   * default, the host's loopback included: a command reaches nothing unless named here.
   */
  readonly allowedHosts?: readonly string[];
  /** The most processes the shell may have at once; 1024 by default. */
  readonly maxProcesses?: number;
  /**
   * The most memory the shell's processes may use together, in bytes: 4 GiB or half of
   * the machine's memory, whichever is less, by default. Where no cgroup can be made it
   * caps each process instead (`RLIMIT_DATA`); see {@link Shell.limits}.
   */
  readonly maxMemoryBytes?: number;
}

/**
 * Credentials a sandboxed command can never read, relative to the server's `$HOME`:
 * SSH and GPG keys, cloud and cluster credentials, registry, git and Vault tokens,
 * database passwords, the tokens and settings of coding agents (Claude Code's), the
 * shells' histories (a token typed at a prompt stays there), and agenttool's own state
 * (its OAuth token store among it).
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.vault-token',
  '.pgpass',
  '.my.cnf',
  '.claude/.credentials.json',
  '.claude.json',
  '.bash_history',
  '.zsh_history',
  '.config/agenttool',
];

/** The process cap when none is configured. */
export const DEFAULT_MAX_PROCESSES = 1024;

/** The memory cap when none is configured: 4 GiB, or half the machine's memory if less. */
export function defaultMaxMemoryBytes(): number {
  return Math.min(4 * 1024 ** 3, Math.floor(totalmem() / 2));
}

/** A {@link SandboxOptions} with its defaults applied and its paths absolute. */
export interface SandboxPolicy {
  readonly allowWrite: readonly string[];
  /**
   * Paths inside `allowWrite` that stay read-only: the code this server runs (agenttool
   * and its sandbox runtime, when installed in the workspace), which a command must not
   * be able to rewrite for the server to run unsandboxed later, and, where a writable
   * path is a home folder or holds one, that folder's start-up files
   * (`HOME_STARTUP_PATHS`).
   */
  readonly denyWrite: readonly string[];
  readonly denyRead: readonly string[];
  readonly allowedHosts: readonly string[];
  readonly maxProcesses: number;
  readonly maxMemoryBytes: number;
}

/** One allow-list entry: a host name (maybe `*.`), or an address, with an optional port. */
const HOST_ENTRY =
  /^(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/**
 * The home folders whose credentials are kept from commands: `home` (the server's
 * `$HOME`) when it is an absolute path, and the one the password database gives this
 * process's user when it is another (ssh, for one, reads its keys there whatever `$HOME`
 * says), so that an unset, empty or relative `$HOME` leaves no credentials readable.
 * The first is where `~/` leads.
 */
export function homeFolders(home: string | undefined): string[] {
  const folders: string[] = [];
  if (home !== undefined && isAbsolute(home)) folders.push(resolve(home));
  let recorded: string | undefined;
  try {
    recorded = userInfo().homedir;
  } catch {
    recorded = undefined; // no entry for this user (a container's arbitrary uid)
  }
  if (recorded !== undefined && isAbsolute(recorded) && !folders.includes(resolve(recorded))) {
    folders.push(resolve(recorded));
  }
  return folders;
}

/**
 * The policy for a shell working in `cwd`, for a server whose home is `home` (see
 * {@link homeFolders}). Throws a `TypeError` that names the setting when an option is
 * malformed.
 */
export function sandboxPolicy(
  options: SandboxOptions,
  home: string | undefined,
  cwd: string,
): SandboxPolicy {
  const where = (name: string) => `sandbox.${name}`;
  const homes = homeFolders(home);
  const paths = (name: keyof SandboxOptions, value: unknown): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new TypeError(`${where(name)} must be an array of paths`);
    return value.map((entry: unknown, i) => {
      if (typeof entry !== 'string' || entry.trim() === '' || entry.includes('\0')) {
        throw new TypeError(`${where(name)}[${i}] must be a non-empty path, got ${show(entry)}`);
      }
      if (entry === '~' || entry.startsWith('~/')) {
        const [first] = homes;
        if (first === undefined) {
          throw new TypeError(
            `${where(name)}[${i}] ${show(entry)}: HOME is not set, and this user has no home folder in the password database`,
          );
        }
        return join(first, entry.slice(1));
      }
      if (!isAbsolute(entry)) {
        throw new TypeError(
          `${where(name)}[${i}] ${show(entry)} must be absolute (or start with ~/)`,
        );
      }
      return resolve(entry);
    });
  };
  const hosts: unknown = options.allowedHosts ?? [];
  if (!Array.isArray(hosts)) {
    throw new TypeError(`${where('allowedHosts')} must be an array of host names`);
  }
  const allowedHosts = hosts.map((entry: unknown, i) => {
    if (typeof entry !== 'string' || !HOST_ENTRY.test(entry) || entry === '*') {
      throw new TypeError(
        `${where('allowedHosts')}[${i}] must be a host ("example.com", "*.example.com"), maybe with a port ("127.0.0.1:8080"), got ${show(entry)}`,
      );
    }
    return entry;
  });
  const credentials = homes.flatMap((folder) => CREDENTIAL_PATHS.map((path) => join(folder, path)));
  const allowWrite = [resolve(cwd), ...paths('allowWrite', options.allowWrite)];
  allowWrite.forEach((folder, i) => {
    const problem = protectedFolderProblem(folder);
    if (problem === undefined) return;
    throw new TypeError(
      i === 0
        ? `the shell's working folder ${problem}`
        : `${where('allowWrite')}[${i - 1}] ${problem}`,
    );
  });
  return {
    allowWrite,
    denyWrite: [
      ...ownCode().flatMap((code) => {
        if (allowWrite.some((root) => strictlyInside(code, root))) return [code];
        // The package is the workspace itself (its own repository): its built code and
        // its dependencies stay read-only, its sources are the work.
        if (allowWrite.some((root) => resolve(root) === code)) {
          return ['dist', 'node_modules', 'package.json']
            .map((part) => join(code, part))
            .filter((path) => existsSync(path));
        }
        return [];
      }),
      ...heldStartupPaths(allowWrite, homes),
    ],
    denyRead: [...credentials, ...paths('denyRead', options.denyRead)],
    allowedHosts,
    maxProcesses: positiveInteger(
      where('maxProcesses'),
      options.maxProcesses ?? DEFAULT_MAX_PROCESSES,
    ),
    maxMemoryBytes: positiveInteger(
      where('maxMemoryBytes'),
      options.maxMemoryBytes ?? defaultMaxMemoryBytes(),
    ),
  };
}

/** True when `path` lies inside `root` (and is not `root` itself). */
function strictlyInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/**
 * The folders of the code a server with a sandboxed shell runs: the packages, and Node's
 * compile cache when it is on (the agenttool command turns it on): compiled code written
 * there is what the next start runs.
 */
function ownCode(): string[] {
  const cache = getCompileCacheDir();
  // The cache's folder, not only this Node's subfolder in it: nothing may be added there.
  return [...packageRoots(), ...(cache === undefined ? [] : [dirname(cache)])];
}

let ownPackages: readonly string[] | undefined;

/**
 * The folders of agenttool's package and the sandbox runtime's: looked up once (a
 * workspace's start asks three times, for its file root, its shell and what it prints;
 * where a package lies does not change while it runs).
 */
function packageRoots(): readonly string[] {
  if (ownPackages !== undefined) return ownPackages;
  const found = [packageRootOf(__dirname, 'agenttool')];
  try {
    found.push(
      packageRootOf(
        dirname(require.resolve('@anthropic-ai/sandbox-runtime')),
        '@anthropic-ai/sandbox-runtime',
      ),
    );
  } catch {
    // not installed: nothing of it to protect
  }
  ownPackages = found.filter((dir): dir is string => dir !== undefined);
  return ownPackages;
}

/** The nearest folder above `from` whose package.json names `name`. */
function packageRootOf(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === name)
          return dir;
      } catch {
        // unreadable: keep looking up
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive integer, got ${show(value)}`);
  }
  return value;
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
