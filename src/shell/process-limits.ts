import { randomBytes } from './random-bytes';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupOnHardExit } from './janitor';

/** How a shell's caps are enforced, as {@link Shell.limits} reports it. */
export interface ShellLimits {
  /** The most processes the shell may have at once. */
  readonly maxProcesses: number;
  /** The most memory, in bytes. */
  readonly maxMemoryBytes: number;
  /**
   * What holds the process cap: `cgroup` (for the shell as a whole), `rlimit` (per user
   * namespace, so for the shell as a whole too), or `none` (RLIMIT_NPROC does not bind
   * root, and no cgroup could be made).
   */
  readonly processesBy: 'cgroup' | 'rlimit' | 'none';
  /**
   * What holds the memory cap: `cgroup` (for the shell as a whole) or `rlimit` (for each
   * process on its own, `RLIMIT_DATA`, where no cgroup could be made).
   */
  readonly memoryBy: 'cgroup' | 'rlimit';
}

/**
 * `bytes` as people read a size: in the largest binary unit it reaches, to one decimal
 * where needed (`4 GiB`, `1.5 MiB`), else in bytes. What the shell's caps are said in.
 */
export function describeBytes(bytes: number): string {
  for (const [unit, scale] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= scale) return `${Number((bytes / scale).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** How often a shell's caps have held, since it started (0 where it cannot be known). */
export interface CapCounts {
  /** New processes the process cap refused (`pids.events`: max). */
  readonly refusedProcesses: number;
  /** Processes the memory cap killed (`memory.events`, `memory.oom_control`: oom_kill). */
  readonly killedForMemory: number;
}

/** The caps of one shell, applied as it starts. */
export interface AppliedLimits {
  readonly limits: ShellLimits;
  /** How often the caps have held so far; read before and after a command. */
  counts(): CapCounts;
  /** Wraps the command that starts the shell so that it runs in the cgroups, if any. */
  wrap(argv: readonly [string, ...string[]]): [string, ...string[]];
  /** Bash lines that set the rlimits the cgroups do not cover. */
  readonly prelude: string;
  /** Removes the cgroups once the shell has exited (retrying while they drain). */
  release(): void;
}

interface Cgroup {
  readonly dir: string;
  readonly forget: () => void;
}

/**
 * Makes a cgroup for one shell with the given caps where this process may (cgroup v1
 * `pids` and `memory` hierarchies it can write, as root; or a cgroup v2 subtree
 * delegated to it with both controllers enabled), and falls back to rlimits set in the
 * shell where not.
 */
export function applyLimits(
  maxProcesses: number,
  maxMemoryBytes: number,
  options: { readonly probe?: boolean } = {},
): AppliedLimits {
  // A probe's name needs only to differ from the live ones (its cgroups go before this
  // returns), and a server's start would otherwise load node:crypto for it.
  const name =
    options.probe === true
      ? `agenttool-probe-${process.pid}-${Math.random().toString(16).slice(2, 14)}`
      : `agenttool-shell-${randomBytes(6).toString('hex')}`;
  // A probe's cgroups are removed before this returns: they are not handed to the
  // janitor, whose start (a process) would cost a server's start more than the probe.
  const register = options.probe !== true;
  const made: Cgroup[] = [];
  let processesBy: ShellLimits['processesBy'] = 'none';
  let memoryBy: ShellLimits['memoryBy'] = 'rlimit';
  // Read once for the three lookups below (each a /proc file read and parsed).
  const mounts = cgroupMounts();
  const own = ownCgroups();
  const v2 = cgroupV2Dir(mounts, own);
  /** The files that count what the caps refused, where a cgroup holds them. */
  let refusals: string | undefined;
  let memoryKills: string | undefined;
  if (v2 !== undefined && delegated(v2)) {
    const dir = makeCgroup(join(v2, name), register, [
      ['pids.max', String(maxProcesses)],
      ['memory.max', String(maxMemoryBytes)],
      ['memory.swap.max', '0'],
    ]);
    if (dir !== undefined) {
      made.push(dir);
      processesBy = 'cgroup';
      memoryBy = 'cgroup';
      refusals = join(dir.dir, 'pids.events');
      memoryKills = join(dir.dir, 'memory.events');
    }
  }
  if (made.length === 0) {
    const pids = cgroupV1Dir('pids', mounts, own);
    const pidsGroup =
      pids === undefined
        ? undefined
        : makeCgroup(join(pids, name), register, [['pids.max', String(maxProcesses)]]);
    if (pidsGroup !== undefined) {
      made.push(pidsGroup);
      processesBy = 'cgroup';
      refusals = join(pidsGroup.dir, 'pids.events');
    }
    const memory = cgroupV1Dir('memory', mounts, own);
    const memoryGroup =
      memory === undefined
        ? undefined
        : makeCgroup(join(memory, name), register, [
            ['memory.limit_in_bytes', String(maxMemoryBytes)],
          ]);
    if (memoryGroup !== undefined) {
      made.push(memoryGroup);
      memoryBy = 'cgroup';
      memoryKills = join(memoryGroup.dir, 'memory.oom_control');
    }
  }
  // RLIMIT_NPROC counts per user namespace (Linux 5.14+), so in the sandbox's own it
  // caps the shell; it never binds root, whose processes the kernel exempts.
  const rlimitProcesses = processesBy === 'none' && process.geteuid?.() !== 0;
  if (rlimitProcesses) processesBy = 'rlimit';
  const prelude = [
    rlimitProcesses ? `ulimit -u ${maxProcesses} 2>/dev/null` : '',
    memoryBy === 'rlimit'
      ? `ulimit -d ${Math.max(1, Math.floor(maxMemoryBytes / 1024))} 2>/dev/null`
      : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
  const procsFiles = made.map((group) => join(group.dir, 'cgroup.procs'));
  return {
    limits: { maxProcesses, maxMemoryBytes, processesBy, memoryBy },
    counts: () => ({
      refusedProcesses: countIn(refusals, /^max (\d+)$/m),
      killedForMemory: countIn(memoryKills, /^oom_kill (\d+)$/m),
    }),
    prelude,
    wrap: (argv) =>
      procsFiles.length === 0
        ? [...argv]
        : [
            '/bin/sh',
            '-c',
            // Joins the cgroups before anything of the shell exists, then becomes it.
            'while [ "$1" != -- ]; do echo $$ >"$1" || exit 70; shift; done; shift; exec "$@"',
            'sh',
            ...procsFiles,
            '--',
            ...argv,
          ],
    release: () => {
      for (const group of made) removeWhenEmpty(group);
    },
  };
}

/** The number `line` finds in the cgroup file `file`; 0 without one. */
function countIn(file: string | undefined, line: RegExp): number {
  if (file === undefined) return 0;
  try {
    const found = line.exec(readFileSync(file, 'utf8'));
    return found === null ? 0 : Number(found[1]);
  } catch {
    // Gone with its cgroup (the shell ended), or never there (an old kernel).
    return 0;
  }
}

function makeCgroup(
  dir: string,
  register: boolean,
  settings: readonly (readonly [string, string])[],
): Cgroup | undefined {
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    for (const [file, value] of settings) {
      try {
        writeFileSync(join(dir, file), value);
      } catch (error) {
        // memory.swap.max is absent without swap accounting; the rest must hold.
        if (file !== 'memory.swap.max') throw error;
      }
    }
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // left to the janitor's sweep below? it was never registered: nothing to do
    }
    return undefined;
  }
  return { dir, forget: register ? cleanupOnHardExit.cgroup(dir) : () => undefined };
}

/** Removes a cgroup once its processes have gone, trying for a few seconds. */
function removeWhenEmpty(group: Cgroup, attempt = 0): void {
  try {
    rmdirSync(group.dir);
    group.forget();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') group.forget();
    else if (attempt < 40) {
      setTimeout(() => removeWhenEmpty(group, attempt + 1), 100).unref();
    }
    // Otherwise the janitor removes it when this process ends.
  }
}

interface CgroupLine {
  readonly controllers: readonly string[];
  readonly path: string;
}

function ownCgroups(): CgroupLine[] {
  try {
    return readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [, controllers = '', ...path] = line.split(':');
        return {
          controllers: controllers === '' ? [] : controllers.split(','),
          path: path.join(':'),
        };
      });
  } catch {
    return [];
  }
}

/** Mount points of cgroup file systems: v1 by controller, v2 as `''`. */
function cgroupMounts(): Map<string, string> {
  const mounts = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return mounts;
  }
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined) continue;
    const mountPoint = before.split(' ')[4];
    const [type, , superOptions = ''] = after.split(' ');
    if (mountPoint === undefined) continue;
    if (type === 'cgroup2') mounts.set('', mountPoint);
    else if (type === 'cgroup') {
      for (const option of superOptions.split(',')) {
        if (option === 'pids' || option === 'memory') mounts.set(option, mountPoint);
      }
    }
  }
  return mounts;
}

function cgroupV1Dir(
  controller: 'pids' | 'memory',
  mounts: ReadonlyMap<string, string>,
  own: readonly CgroupLine[],
): string | undefined {
  const mount = mounts.get(controller);
  const line = own.find((entry) => entry.controllers.includes(controller));
  return mount === undefined || line === undefined ? undefined : join(mount, line.path);
}

function cgroupV2Dir(
  mounts: ReadonlyMap<string, string>,
  own: readonly CgroupLine[],
): string | undefined {
  const mount = mounts.get('');
  const line = own.find((entry) => entry.controllers.length === 0);
  return mount === undefined || line === undefined ? undefined : join(mount, line.path);
}

/** A v2 cgroup whose children get both controllers (delegated to us and set up so). */
function delegated(dir: string): boolean {
  try {
    const enabled = readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    return enabled.includes('pids') && enabled.includes('memory');
  } catch {
    return false;
  }
}

/**
 * How a sandboxed shell's caps would be enforced here, found by making (and removing at
 * once) the cgroups a shell would get: for a server to say at start what holds.
 */
export function limitsEnforcement(maxProcesses: number, maxMemoryBytes: number): ShellLimits {
  const applied = applyLimits(maxProcesses, maxMemoryBytes, { probe: true });
  applied.release();
  return applied.limits;
}

/** What the caps refused between `before` and `after`; undefined when nothing. */
export function capsReachedSince(
  before: CapCounts | undefined,
  after: CapCounts | undefined,
): CapCounts | undefined {
  if (before === undefined || after === undefined) return undefined;
  const refusedProcesses = Math.max(0, after.refusedProcesses - before.refusedProcesses);
  const killedForMemory = Math.max(0, after.killedForMemory - before.killedForMemory);
  return refusedProcesses === 0 && killedForMemory === 0
    ? undefined
    : { refusedProcesses, killedForMemory };
}
