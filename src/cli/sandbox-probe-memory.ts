// What lets `agenttool workspace` serve without waiting for bubblewrap's probe: the
// conditions under which the probe last passed for this user, kept in a file. Where they
// are the same, the probe is made again once the server serves instead of before (it
// costs a start 4-5 ms: the fork of a process this size, then the wait). The file decides
// only when the probe runs, never whether the sandbox is enforced: a shell's start probes
// for itself until a probe of this process has passed, and never starts unconfined.
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

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
 * The memory of bubblewrap's probe under `conditions` (agenttool/shell's
 * `sandboxProbeConditions()`), kept in `agenttool/sandbox-probe` under the user's cache
 * folder (`$XDG_CACHE_HOME`, else `~/.cache`). No conditions (unreadable, not Linux):
 * nothing remembered, and the probe runs before serving, as always.
 */
export function probeMemory(
  conditions: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ProbeMemory {
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
