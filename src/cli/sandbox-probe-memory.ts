// What lets `agenttool workspace` serve without waiting for bubblewrap's probe: the
// conditions under which the probe last passed for this user, kept in a file. Where they
// are the same, the probe is made again once the server serves instead of before (it
// costs a start 4-5 ms: the fork of a process this size, then the wait). The file decides
// only when the probe runs, never whether the sandbox is enforced: a shell's start probes
// for itself until a probe of this process has passed, and never starts unconfined.
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/** The programs the probe needs (see agenttool/shell's checks), as found on PATH. */
const PROGRAMS = ['bwrap', 'socat'] as const;

/** What the kernel lets a user do with namespaces (each file read where it exists). */
const KERNEL_SETTINGS = [
  '/proc/sys/kernel/random/boot_id',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
];

/** The lines of /proc/self/status that say what this process may do. */
const STATUS_LINES = /^(?:CapEff|NoNewPrivs|Seccomp|Seccomp_filters):/;

/** The probe's remembered outcome, for the PATH the shell gets. */
export interface ProbeMemory {
  /** The probe passed before under the same conditions as now. */
  readonly passedBefore: boolean;
  /** Remembers that the probe passed now (written where it can be, and not yet so). */
  passed(): void;
  /** Forgets it: the next start probes before it serves. */
  forget(): void;
}

/**
 * The memory of bubblewrap's probe for `path` (the PATH the probe runs with), kept in
 * `agenttool/sandbox-probe` under the user's cache folder (`$XDG_CACHE_HOME`, else
 * `~/.cache`). The conditions: the user, PATH and the programs it finds (each file's
 * identity, size, times and mode), the boot, this process's user, mount and PID
 * namespaces, the kernel's settings for user namespaces, and this process's
 * capabilities, `no_new_privs` and seccomp. Anything unreadable (or not Linux): nothing
 * remembered, and the probe runs before serving, as always.
 */
export function probeMemory(
  path: string | undefined = process.env['PATH'],
  env: NodeJS.ProcessEnv = process.env,
): ProbeMemory {
  const conditions = sandboxConditions(path);
  const file = memoryFile(env);
  if (conditions === undefined || file === undefined) {
    return { passedBefore: false, passed: () => undefined, forget: () => undefined };
  }
  const before = readMemory(file);
  return {
    passedBefore: before === conditions,
    passed: () => {
      if (before !== conditions) writeMemory(file, conditions);
    },
    forget: () => {
      try {
        rmSync(file, { force: true });
      } catch {
        // a folder not writable: the file stays, and the next start's probe corrects it
      }
    },
  };
}

/** The most a memory file holds: anything larger is not one. */
const MAX_MEMORY_BYTES = 64 * 1024;

/**
 * The memory's text, or undefined: only a regular file of this user's (not a link, not a
 * pipe, which a read would wait on, not another user's) is read.
 */
function readMemory(file: string): string | undefined {
  try {
    const info = lstatSync(file);
    if (!info.isFile() || info.size > MAX_MEMORY_BYTES) return undefined;
    if (process.getuid !== undefined && info.uid !== process.getuid()) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Writes the memory: into a file made new (never one that was there, nor through a link),
 * renamed into place, so that a start reading it meanwhile sees all of it or none.
 * Where it cannot be written (a read-only home), the next start probes first again.
 */
function writeMemory(file: string, conditions: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  let made = false;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    made = true;
    try {
      writeFileSync(fd, conditions);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch {
    if (made) rmSync(temporary, { force: true });
  }
}

function memoryFile(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env['XDG_CACHE_HOME'];
  try {
    const cache = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
    return join(cache, 'agenttool', 'sandbox-probe');
  } catch {
    return undefined; // no home folder
  }
}

/** The conditions the probe's outcome depends on, as text, or undefined (see probeMemory). */
function sandboxConditions(path: string | undefined): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const lines = [`uid ${process.getuid?.() ?? ''}`, `PATH ${path ?? ''}`];
    for (const program of PROGRAMS) {
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

/** The first executable `program` on `path`, as the probe's `execFile` would find it. */
function onPath(program: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    // Asked first: most folders on PATH do not hold it, and a check that throws costs
    // some 60 µs (a start looks for two programs).
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
