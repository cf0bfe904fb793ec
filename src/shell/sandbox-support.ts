import { childProcesses } from './child-processes';
import {
  accessSync,
  constants,
  existsSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The sandbox could not be set up, so the shell does not start: it never falls back to
 * running unconfined. The message names the cause and the fix.
 */
export class SandboxUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * The packages the sandbox needs, by the program each provides. Not ripgrep: the runtime
 * runs it only for its scan of this process's working directory, which we turn off
 * (see the manager in sandbox-runtime.ts) and do for the writable paths ourselves (protected-paths.ts).
 */
const PROGRAMS = [
  { program: 'bwrap', package: 'bubblewrap' },
  { program: 'socat', package: 'socat' },
] as const;

const INSTALL_HINT =
  'install bubblewrap and socat (Debian or Ubuntu: `sudo apt-get install bubblewrap socat`; in the agenttool repository `scripts/setup-system.sh` does it)';

export const OPT_OUT_HINT =
  'or, knowing that commands then run with all the rights of this process, start the shell unconfined on purpose (`sandbox: false`, or `--no-sandbox` on the command line)';

/** What a sandbox this platform can run is called, as `Confined` reports it. */
export function sandboxName(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? 'seatbelt' : 'bubblewrap';
}

/** The first executable `program` on `path`, as the probe's `execFile` finds it. */
function onPath(program: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    // Asked first: most folders on PATH do not hold it, and a check that throws costs
    // some 60 µs.
    if (!existsSync(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // there, but not executable
    }
  }
  return undefined;
}

/** What the kernel lets a user do with namespaces (each file read where it exists). */
const KERNEL_SETTINGS = [
  '/proc/sys/kernel/random/boot_id',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
];

/** The lines of /proc/self/status that say what this process may do. */
const STATUS_LINES = /^(?:CapEff|NoNewPrivs|Seccomp|Seccomp_filters):/;

/**
 * What the outcome of bubblewrap's probe ({@link probeSandboxSupport}) depends on here, as
 * text: the user, `path` and the programs the sandbox needs as found on it (each file's
 * identity, size, times and mode), the boot, this process's user, mount and PID
 * namespaces, the kernel's settings for user namespaces, and this process's capabilities,
 * `no_new_privs` and seccomp. Two equal texts mean a probe that passed under one passes
 * under the other, unless something this does not read changed. Undefined where any of
 * it cannot be read, a program is missing, or the platform is not Linux. Reads only
 * (some 0.2 ms); runs nothing.
 */
export function sandboxProbeConditions(
  path: string | undefined = process.env['PATH'],
): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const lines = [`uid ${process.getuid?.() ?? ''}`, `PATH ${path ?? ''}`];
    for (const { program } of PROGRAMS) {
      const found = onPath(program, path);
      if (found === undefined) return undefined;
      const real = realpathSync(found);
      const info = statSync(real);
      lines.push(
        `${program} ${found} ${real} ${info.dev}:${info.ino} ${info.size} ${info.mtimeMs} ${info.ctimeMs} ${info.mode} ${info.uid}`,
      );
    }
    for (const namespace of ['user', 'mnt', 'pid']) {
      lines.push(`ns ${namespace} ${readlinkSync(`/proc/self/ns/${namespace}`)}`);
    }
    for (const setting of KERNEL_SETTINGS) lines.push(`${setting} ${readIfThere(setting)}`);
    lines.push(
      ...readFileSync('/proc/self/status', 'utf8')
        .split('\n')
        .filter((line) => STATUS_LINES.test(line)),
    );
    return `${lines.join('\n')}\n`;
  } catch {
    return undefined;
  }
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '-';
  }
}

/**
 * Checks that a sandbox can start on this machine: a supported OS, the programs the
 * sandbox runs, and (on Linux) user namespaces. Throws a {@link SandboxUnavailableError}
 * naming what is missing and how to fix it.
 */
export function checkSandboxSupport(path: string | undefined = process.env['PATH']): void {
  if (!needsProbe(path)) return;
  const probe = childProcesses().spawnSync('bwrap', PROBE_ARGS, {
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
    env: { PATH: path ?? '' },
  });
  if (probe.status !== 0) throw probeFailure(`${probe.stderr ?? ''}${probe.error?.message ?? ''}`);
  supported.add(path ?? '');
}

/**
 * The checks of {@link checkSandboxSupport}, with bubblewrap's probe run as a child
 * process that the event loop does not wait on: for a server that builds its app in the
 * meantime. Rejects with the {@link SandboxUnavailableError} `checkSandboxSupport`
 * would throw (an unsupported OS, a missing program, or no user namespaces).
 */
export async function probeSandboxSupport(
  path: string | undefined = process.env['PATH'],
): Promise<void> {
  if (!needsProbe(path)) return;
  const said = await new Promise<string | undefined>((resolve) => {
    childProcesses().execFile(
      'bwrap',
      PROBE_ARGS,
      { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, env: { PATH: path ?? '' } },
      (error, _stdout, stderr) =>
        // As the sync probe says it: what bubblewrap printed, else why it did not run.
        resolve(
          error === null
            ? undefined
            : stderr !== '' || typeof error.code === 'number'
              ? stderr
              : error.message,
        ),
    );
  });
  if (said !== undefined) throw probeFailure(said);
  supported.add(path ?? '');
}

/** What bubblewrap runs to show that it can make the namespaces a sandbox needs. */
const PROBE_ARGS = [
  '--unshare-user',
  '--unshare-pid',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  'true',
];
const PROBE_TIMEOUT_MS = 10_000;

/**
 * False when the sandbox is known to start here (macOS, or a PATH that passed before);
 * throws for an unsupported OS or a missing program; true when bubblewrap must be tried.
 */
function needsProbe(path: string | undefined): boolean {
  if (process.platform === 'darwin') return false;
  // What passed once passes again for the same PATH: a shell's start need not probe.
  if (supported.has(path ?? '')) return false;
  if (process.platform !== 'linux') {
    throw new SandboxUnavailableError(
      `the shell's sandbox cannot start: ${process.platform} is not supported (Linux uses bubblewrap, macOS Seatbelt); ${OPT_OUT_HINT}`,
    );
  }
  const missing = PROGRAMS.filter(({ program }) => onPath(program, path) === undefined);
  if (missing.length > 0) {
    const names = missing.map(({ program, package: pkg }) =>
      program === pkg ? program : `${program} (package ${pkg})`,
    );
    throw new SandboxUnavailableError(
      `the shell's sandbox cannot start: ${names.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not on PATH; ${INSTALL_HINT}, ${OPT_OUT_HINT}`,
    );
  }
  return true;
}

/** The error for a bubblewrap that could not make its namespaces, with the first line it said. */
function probeFailure(output: string): SandboxUnavailableError {
  const said = output.trim().split('\n')[0] ?? '';
  return new SandboxUnavailableError(
    `the shell's sandbox cannot start: bubblewrap cannot create user namespaces here${said === '' ? '' : ` (${said})`}; enable them (Debian: \`sysctl -w kernel.unprivileged_userns_clone=1\`; any Linux: \`sysctl -w user.max_user_namespaces=15000\`; Ubuntu 24.04: \`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\`), run the server where they are allowed, ${OPT_OUT_HINT}`,
  );
}

/** The PATHs on which {@link checkSandboxSupport} passed. */
const supported = new Set<string>();
