import type * as SandboxRuntime from '@anthropic-ai/sandbox-runtime' with {
  'resolution-mode': 'import',
};
import { randomBytes } from './random-bytes';
import type { ChildProcess } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { cleanupOnHardExit } from './janitor';
import { PROTECTED_DIRECTORIES, PROTECTED_FILES } from './protected-paths';
import { homeFolders, type SandboxPolicy } from './sandbox-policy';
import { homeWritableTops } from './home-startup';
import { checkSandboxSupport, OPT_OUT_HINT, SandboxUnavailableError } from './sandbox-support';
import { LAUNCH_INPUT_FD } from './bash-process';
import { setIdFilter } from './seccomp-filter';

type SandboxRuntimeModule = typeof SandboxRuntime;
type Manager = SandboxRuntimeModule['SandboxManager'];

/**
 * What the runtime runs in place of ripgrep: a program that lists nothing. Its scan looks
 * at this process's working directory, which has nothing to do with the shell's (from
 * `/` it ran for minutes and outlived the server); the paths it would protect are
 * computed for the workspace and every writable path instead, and given as `denyWrite`.
 */
const NO_SCAN = { command: 'true' } as const;
let runtime: SandboxRuntimeModule | undefined;
let ready: Promise<Manager> | undefined;
let users = 0;
let resetTimer: NodeJS.Timeout | undefined;
/** The reset of the last manager, while it runs: the next one starts after it. */
let resetting: Promise<void> | undefined;
let forgetBridges: (() => void)[] = [];

function loadRuntime(): SandboxRuntimeModule {
  // Loaded on first use: an app that runs no sandboxed shell never loads it. It is an
  // ES module, which Node 22.12 and later require() natively.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  runtime ??= require('@anthropic-ai/sandbox-runtime') as SandboxRuntimeModule;
  return runtime;
}

/**
 * The process-wide sandbox manager, initialised on first use. Its per-process network
 * allow-list is empty: each shell brings its own (see {@link SandboxLease}).
 */
async function manager(): Promise<Manager> {
  ready ??= (async () => {
    // The manager is one per process: a reset still tearing down the last one's bridges
    // would tear down the new one's (a shell started just after the last one ended).
    await resetting;
    const { SandboxManager } = loadRuntime();
    // The manager ends its proxies on SIGINT/SIGTERM by listening for them, which would
    // stop this process from exiting on a first Ctrl-C. Whoever owns this process
    // decides what a signal does; leases end the manager (below).
    const before = {
      SIGINT: process.listeners('SIGINT'),
      SIGTERM: process.listeners('SIGTERM'),
    };
    const watch = watchBridges();
    try {
      await SandboxManager.initialize({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
        ripgrep: NO_SCAN,
      });
    } catch (error) {
      // The runtime ends the bridges of a start that failed itself.
      for (const forget of watch.stop()) forget();
      throw error;
    } finally {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        for (const listener of process.listeners(signal)) {
          if (!before[signal].includes(listener)) process.removeListener(signal, listener);
        }
      }
    }
    forgetBridges = watch.stop();
    return SandboxManager;
  })();
  try {
    return await ready;
  } catch (error) {
    ready = undefined;
    throw new SandboxUnavailableError(
      `the shell's sandbox cannot start: ${error instanceof Error ? error.message : String(error)}; ${OPT_OUT_HINT}`,
      { cause: error },
    );
  }
}

/**
 * Registers the manager's host-side bridges (its socat processes and their sockets, and
 * its proxy's socket) with the janitor as the runtime starts them, so that this process
 * killed outright, even while the runtime starts, leaves none of them behind: Node's
 * `child_process` channel tells of each process made, which is registered the moment
 * its spawn returns its id. `stop` ends the watch (once) and gives the functions that
 * forget them.
 */
function watchBridges(): { stop(): (() => void)[] } {
  cleanupOnHardExit.prepare();
  // The proxy's own socket, which the runtime names after this process's id.
  const forget: (() => void)[] = [
    cleanupOnHardExit.socketsStartingWith(join(tmpdir(), `srt-mux-${process.pid}-`)),
  ];
  let watching = true;
  const register = (child: ChildProcess): void => {
    if (!watching || child.pid === undefined || basename(child.spawnfile) !== 'socat') return;
    const sockets = child.spawnargs.flatMap((arg) => /^UNIX-LISTEN:([^,]+)/.exec(arg)?.[1] ?? []);
    forget.push(cleanupOnHardExit.process(child.pid, sockets));
  };
  /** A socat bridge about to start (`options` of the process's own spawn): its sockets. */
  const announce = (options: unknown): void => {
    const { file, args } = (options ?? {}) as { file?: unknown; args?: unknown };
    if (!watching || typeof file !== 'string' || basename(file) !== 'socat') return;
    if (!Array.isArray(args)) return;
    for (const arg of args) {
      const socket = typeof arg === 'string' ? /^UNIX-LISTEN:([^,]+)/.exec(arg)?.[1] : undefined;
      if (socket !== undefined) forget.push(cleanupOnHardExit.listener(socket));
    }
  };
  const made = (message: unknown): void => {
    const child = (message as { process?: ChildProcess }).process;
    if (child === undefined) return;
    // The channel tells of the process as it is made, before it has a pid: the told
    // object's own spawn registers it the moment its pid is known, before any other of
    // the runtime's code runs (a kill in between would leave the bridge).
    const spawn = (child as { spawn?: unknown }).spawn;
    if (typeof spawn !== 'function') {
      queueMicrotask(() => register(child));
      return;
    }
    Object.defineProperty(child, 'spawn', {
      configurable: true,
      writable: true,
      value: function (this: ChildProcess, ...args: unknown[]): unknown {
        // Told before it starts, by the socket it will listen on: a kill between its
        // start and its id told (a loaded machine's millisecond) would leave it.
        announce(args[0]);
        try {
          return (spawn as (...a: unknown[]) => unknown).apply(this, args);
        } finally {
          register(this);
        }
      },
    });
  };
  subscribe('child_process', made);
  return {
    stop() {
      if (watching) {
        watching = false;
        unsubscribe('child_process', made);
      }
      return forget;
    },
  };
}

/**
 * Counts one more user of the process-wide manager; the function returned ends that use
 * (once, however often called). With no user left, the manager and its proxies are
 * reset a moment later (a restart releases and leases again at once).
 */
function useManager(): () => void {
  users += 1;
  clearTimeout(resetTimer);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users -= 1;
    if (users === 0) resetTimer = setTimeout(() => void resetManager(), 250);
  };
}

/**
 * Resets the manager when no one uses it (its proxies and bridges stop), once an
 * initialization in flight has finished; resolves when that is done.
 */
function resetManager(): Promise<void> {
  clearTimeout(resetTimer);
  if (users !== 0 || ready === undefined) return resetting ?? Promise.resolve();
  const done = ready;
  ready = undefined;
  const reset: Promise<void> = done
    .then((sandbox) => sandbox.reset())
    .catch(() => undefined)
    .finally(() => {
      for (const forget of forgetBridges.splice(0)) forget();
      if (resetting === reset) resetting = undefined;
    });
  resetting = reset;
  return reset;
}

/**
 * Makes the sandbox's process-wide part ready ahead of the first shell: the sandbox
 * runtime loaded, and its network proxies and their bridges started (the runtime polls
 * for the bridges' sockets with a pause of 100 ms). A first shell started after that
 * takes a fraction of the time. The function returned lets go of it; with no shell left
 * either, the proxies and bridges are stopped at once (a start still in flight first
 * finishes), and its promise resolves when they are. Nothing is reported here: a sandbox
 * that cannot start is the first shell's to report, with its cause.
 */
export function warmSandbox(): () => Promise<void> {
  try {
    checkSandboxSupport();
  } catch {
    return () => Promise.resolve();
  }
  const release = useManager();
  manager().catch(() => undefined);
  return () => {
    release();
    return resetManager();
  };
}

/** One shell's use of the sandbox: how to start it, and its network allow-list. */
export interface SandboxLease {
  /** The program that runs `command` in the sandbox. */
  readonly argv: readonly [string, ...string[]];
  /** Bash lines the shell runs first (its private temp folder, the proxy settings). */
  readonly prelude: string;
  /** What the program reads on its descriptors from {@link LAUNCH_INPUT_FD} on. */
  readonly inputs: readonly Buffer[];
  /** Ends the lease: the allow-list goes, and the manager when no lease is left. */
  release(): void;
}

/**
 * Wraps `command` (a bash reading commands on stdin) in the sandbox `policy` describes,
 * for a shell starting in `cwd`.
 */
export async function leaseSandbox(
  policy: SandboxPolicy,
  command: readonly [string, ...string[]],
  cwd: string,
): Promise<SandboxLease> {
  checkSandboxSupport();
  const user = useManager();
  const commandId = randomBytes(16).toString('base64url');
  let registered = false;
  const release = () => {
    if (registered) runtime?.SandboxManager.unregisterCommandNetworkLists(commandId);
    registered = false;
    user();
  };
  try {
    const sandbox = await manager();
    const wrapped = await sandbox.wrapWithSandboxArgv(
      `exec ${command.map(shellWord).join(' ')}`,
      'bash',
      {
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: {
          denyRead: [...policy.denyRead],
          // A home folder's top stays read-only (see homeWritableTops).
          allowWrite: homeWritableTops(policy.allowWrite, homeFolders(process.env['HOME'])),
          denyWrite: [...policy.denyWrite],
        },
      },
      undefined,
      cwd,
      { commandId },
    );
    if (policy.allowedHosts.length > 0) {
      sandbox.registerCommandNetworkLists(commandId, { allowedDomains: [...policy.allowedHosts] });
      registered = true;
    }
    const filter = setIdFilter();
    const [file, ...args] =
      filter === undefined ? wrapped.argv : withSeccomp(wrapped.argv, LAUNCH_INPUT_FD);
    if (file === undefined) throw new Error('the sandbox gave no command to run');
    // Forgotten when the manager resets, which is when the runtime removes them itself.
    for (const path of [...mountPoints(policy), ...mountSources(wrapped.argv)]) {
      forgetBridges.push(cleanupOnHardExit.mountPoint(path));
    }
    return {
      argv: [file, ...args],
      prelude: SANDBOX_PRELUDE,
      inputs: filter === undefined ? [] : [filter],
      release,
    };
  } catch (error) {
    release();
    if (error instanceof SandboxUnavailableError) throw error;
    throw new SandboxUnavailableError(
      `the shell's sandbox cannot start: ${tooManyMounts(error, policy) ?? (error instanceof Error ? error.message : String(error))}; ${OPT_OUT_HINT}`,
      { cause: error },
    );
  }
}

/**
 * What to say when bubblewrap would get more arguments than it takes, in this policy's
 * terms: the runtime's own words speak of its scan of this process's working directory,
 * which is not used. Undefined for another error.
 */
function tooManyMounts(error: unknown, policy: SandboxPolicy): string | undefined {
  if ((error as { code?: unknown } | undefined)?.code !== 'too_many_arguments') return undefined;
  const repositories = policy.denyWrite.filter((path) => path.endsWith(`${sep}hooks`)).length;
  return `the folders the shell may write (${policy.allowWrite.join(', ')}) hold more paths it keeps read-only than the sandbox can mount (bubblewrap takes about 3000 mounts, each path and each folder on its way counting): ${policy.denyWrite.length} paths, ${repositories} of them git repositories' hooks (each repository's hooks and config are kept read-only, in each folder and one level below it). Name a smaller folder as the workspace (a project, not a folder of many projects or a temporary folder), or fewer writable paths`;
}

/**
 * The runtime's command (`<shell> -c <text>`, the text running bubblewrap, inline or
 * through its file of arguments) with bubblewrap told to load the seccomp filter it
 * reads on descriptor `fd` (see seccomp-filter.ts). The runtime offers no option for it:
 * the option goes after bubblewrap's program word, and a command in which that word is
 * not found is refused rather than run without the filter.
 */
function withSeccomp(argv: readonly string[], fd: number): string[] {
  const [shell, dashC, text, ...rest] = argv;
  const program = text === undefined ? null : BWRAP_WORD.exec(text);
  if (shell === undefined || dashC !== '-c' || text === undefined || program === null) {
    throw new Error(
      "the sandbox runtime's command does not start bubblewrap as this version of agenttool knows it, so it cannot add its system-call filter (which keeps commands from making set-user-ID files); use the @anthropic-ai/sandbox-runtime version agenttool pins",
    );
  }
  const at = program.index + program[0].length;
  return [shell, dashC, `${text.slice(0, at)} --seccomp ${fd}${text.slice(at)}`, ...rest];
}

/** Bubblewrap's program word in the runtime's command, before its first option. */
const BWRAP_WORD = /(?<=^|\s)(?:[\w./-]*\/)?bwrap(?= --)/;

/**
 * Where bubblewrap will make a mount point on the host (an empty file or directory) for
 * a path it keeps read-only that does not exist yet: the first missing part of each such
 * path that lies in a writable one. The runtime removes them when it resets; the janitor
 * is told of them for a process killed before that. Its own denies at this process's
 * working directory count too, since it still adds them.
 */
function mountPoints(policy: SandboxPolicy): string[] {
  const cwd = process.cwd();
  const candidates = [
    ...policy.denyWrite,
    ...[...PROTECTED_FILES, ...PROTECTED_DIRECTORIES].map((name) => join(cwd, name)),
    ...(existsSync(join(cwd, '.git')) ? [join(cwd, '.git', 'hooks')] : []),
  ];
  const found = new Set<string>();
  for (const path of candidates) {
    if (existsSync(path)) continue;
    let missing = path;
    for (let up = dirname(path); up !== missing && !existsSync(up); up = dirname(up)) missing = up;
    if (
      policy.allowWrite.some((root) => missing.startsWith(root.endsWith(sep) ? root : root + sep))
    ) {
      found.add(missing);
    }
  }
  return [...found];
}

/**
 * The empty folder the runtime binds over absent protected folders (`claude-empty-*` in
 * the temp folder, made during the wrap and removed when it resets), as the wrapped
 * command names it.
 */
function mountSources(argv: readonly string[]): string[] {
  const found = new Set<string>();
  for (const match of argv
    .join(' ')
    .matchAll(/(\/[^\s'"]*\/claude-empty-[A-Za-z0-9]+)(?=[\s'"]|$)/g)) {
    const [, path] = match;
    if (path !== undefined && dirname(path) === tmpdir()) found.add(path);
  }
  return [...found];
}

/**
 * Run first in a sandboxed shell: the private temporary folder is a directory on the
 * sandbox's own /dev/shm (a memory file system nothing outside sees, gone with the
 * sandbox), since the host's /tmp is read-only there; loopback goes through the proxy
 * too, where the allow-list decides, instead of being tried directly (which the
 * sandbox's empty network refuses anyway); and the proxy's host ports stay unsaid.
 */
const SANDBOX_PRELUDE = `command mkdir -p /dev/shm/tmp 2>/dev/null && export TMPDIR=/dev/shm/tmp
export NO_PROXY= no_proxy=
unset -v CLAUDE_CODE_HOST_HTTP_PROXY_PORT CLAUDE_CODE_HOST_SOCKS_PROXY_PORT`;

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
