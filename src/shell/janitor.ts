import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { childProcesses } from './child-processes';

/**
 * Cleans up after this process when it is killed outright (SIGKILL, an OOM kill), which
 * runs no handler of ours: a small bash process whose input is a pipe from here. We tell
 * it what to remove; when its input ends (however this process ended) it kills the
 * processes, removes the files and the cgroups it was told of, and exits. What was
 * released normally is taken off its list first, so nothing unrelated is touched (a
 * pid reused by another program, say).
 */
const SCRIPT = `
trap '' INT TERM HUP
declare -A pids=() files=() groups=() holders=() sockets=() listeners=() guards=()
while IFS=' ' read -r kind value; do
  case $kind in
    PID) pids[$value]=1 ;;
    UNPID) unset -v 'pids[$value]' ;;
    FILE) files[$value]=1 ;;
    UNFILE) unset -v 'files[$value]' ;;
    CGROUP) groups[$value]=1 ;;
    UNCGROUP) unset -v 'groups[$value]' ;;
    HOLDER) holders[$value]=1 ;;
    UNHOLDER) unset -v 'holders[$value]' ;;
    SOCKETS) sockets[$value]=1 ;;
    UNSOCKETS) unset -v 'sockets[$value]' ;;
    LISTENER) listeners[$value]=1 ;;
    UNLISTENER) unset -v 'listeners[$value]' ;;
    GUARD) guards[$value]=1 ;;
    UNGUARD) unset -v 'guards[$value]' ;;
  esac
done
for p in "\${!pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
# A bridge told of before it started (its pid was not known yet): found by the socket
# it listens on, in its command line.
if ((\${#listeners[@]} > 0)); then
  for c in /proc/[0-9]*/cmdline; do
    words=()
    mapfile -d '' -t words < "$c" 2>/dev/null || continue
    for w in "\${words[@]}"; do
      l=\${w#UNIX-LISTEN:}
      [ "$l" != "$w" ] && [ -n "\${listeners[\${l%%,*}]+x}" ] || continue
      p=\${c#/proc/}
      kill -KILL "\${p%/cmdline}" 2>/dev/null
      break
    done
  done
  # Its socket, which a bridge killed outright leaves (no one told of it as a file).
  for l in "\${!listeners[@]}"; do [ -S "$l" ] && rm -f -- "$l"; done
fi
# The repository guards' check, now that no command runs (see guard-after-exit.ts), from
# each guard's record, which goes with its folder once it is made.
for g in "\${!guards[@]}"; do
  if [ -n "$AGENTTOOL_GUARD_RUNNER" ] && [ -f "$g" ]; then
    if command -v timeout >/dev/null; then
      timeout -k 1 60 "$AGENTTOOL_NODE" "$AGENTTOOL_GUARD_RUNNER" "$g" </dev/null >/dev/null 2>&1
    else
      "$AGENTTOOL_NODE" "$AGENTTOOL_GUARD_RUNNER" "$g" </dev/null >/dev/null 2>&1
    fi
  fi
  rm -f -- "$g" "$g.next"
  rmdir -- "\${g%/*}" 2>/dev/null
done
for f in "\${!files[@]}"; do rm -f -- "$f"; done
# Sockets whose names begin so (the runtime names them after this process's id).
for prefix in "\${!sockets[@]}"; do
  for f in "$prefix"*; do [ -S "$f" ] && rm -f -- "$f"; done
done
# Mount points bubblewrap made for absent protected paths: only while still as it made
# them (an empty file, an empty directory); one may hold another, so a few rounds.
for round in 1 2 3 4; do
  for h in "\${!holders[@]}"; do
    if [ -L "$h" ]; then :
    elif [ -f "$h" ] && [ ! -s "$h" ]; then rm -f -- "$h"
    elif [ -d "$h" ]; then rmdir -- "$h" 2>/dev/null
    fi
  done
done
# A cgroup can be removed once its processes are gone, which takes a moment.
for round in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  left=0
  for g in "\${!groups[@]}"; do
    if [ -d "$g" ]; then rmdir -- "$g" 2>/dev/null || left=1; fi
  done
  [ "$left" = 0 ] && break
  sleep 0.25
done
`;

let janitor: { readonly child: ChildProcess; readonly input: Socket } | undefined;

/**
 * The repository guard's check after a kill outright (guard-after-exit.js), beside this
 * file: in the package's bundle this file is a chunk one folder below it. Empty when
 * absent (run from the TypeScript sources): the janitor then only removes the records.
 */
function guardRunner(): string {
  const candidates = [
    join(__dirname, 'guard-after-exit.js'),
    join(__dirname, '..', 'guard-after-exit.js'),
  ];
  return candidates.find((path) => existsSync(path)) ?? '';
}

function started(): { readonly child: ChildProcess; readonly input: Socket } | undefined {
  if (janitor !== undefined && janitor.child.exitCode === null) return janitor;
  try {
    const child = childProcesses().spawn('bash', ['--noprofile', '--norc', '-c', SCRIPT], {
      stdio: ['pipe', 'ignore', 'ignore'],
      // Its own group: a Ctrl-C meant for this process must not take it first.
      detached: true,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        AGENTTOOL_NODE: process.execPath,
        AGENTTOOL_GUARD_RUNNER: guardRunner(),
      },
    });
    child.once('error', () => undefined);
    const input = child.stdin as Socket | null;
    if (input === null) return undefined;
    input.on('error', () => undefined);
    // Neither keeps this process alive: it is there for when this process is gone.
    child.unref();
    input.unref();
    janitor = { child, input };
    return janitor;
  } catch {
    return undefined;
  }
}

function tell(line: string): void {
  started()?.input.write(`${line}\n`);
}

/** What the janitor removes if this process dies without releasing it. */
export const cleanupOnHardExit = {
  /**
   * Starts the janitor now, ahead of what it will be told: what is told of a process
   * the moment after it starts then reaches it before this process could be killed.
   */
  prepare(): void {
    started();
  },
  /**
   * A process, and the files it makes (a bridge and its socket), told in one write: a
   * kill can come between two writes, not inside one.
   */
  process(pid: number, files: readonly string[] = []): () => void {
    const told = files.filter((path) => !path.includes('\n'));
    tell([`PID ${pid}`, ...told.map((path) => `FILE ${path}`)].join('\n'));
    return () => tell([`UNPID ${pid}`, ...told.map((path) => `UNFILE ${path}`)].join('\n'));
  },
  /**
   * A mount point the sandbox makes on the host for a protected path that is absent (an
   * empty file or directory, which the sandbox runtime removes when it ends normally):
   * removed only while it is still empty.
   */
  mountPoint(path: string): () => void {
    if (path.includes('\n')) return () => undefined;
    tell(`HOLDER ${path}`);
    return () => tell(`UNHOLDER ${path}`);
  },
  /**
   * A process about to start, which will listen on the Unix socket `path` (a bridge):
   * killed, found by that socket in its command line, and the socket removed, if this
   * process dies before it could tell of the process's id (see
   * {@link cleanupOnHardExit.process}).
   */
  listener(path: string): () => void {
    if (path.includes('\n')) return () => undefined;
    tell(`LISTENER ${path}`);
    return () => tell(`UNLISTENER ${path}`);
  },
  /**
   * The sockets whose paths begin with `prefix` (the sandbox runtime's proxy makes one
   * named after this process's id, at a moment no one is told of): removed, sockets only.
   */
  socketsStartingWith(prefix: string): () => void {
    if (prefix.includes('\n')) return () => undefined;
    tell(`SOCKETS ${prefix}`);
    return () => tell(`UNSOCKETS ${prefix}`);
  },
  /** A file (a temporary one, say): removed. */
  file(path: string): () => void {
    if (path.includes('\n')) return () => undefined;
    tell(`FILE ${path}`);
    return () => tell(`UNFILE ${path}`);
  },
  cgroup(path: string): () => void {
    tell(`CGROUP ${path}`);
    return () => tell(`UNCGROUP ${path}`);
  },
  /**
   * A repository guard's record (guard-record.ts): the guard's check is made from it
   * once the processes above are killed, then it is removed with its folder.
   */
  guard(path: string): () => void {
    if (path.includes('\n')) return () => undefined;
    tell(`GUARD ${path}`);
    return () => tell(`UNGUARD ${path}`);
  },
};

/**
 * Removes the file at `path` (absolute) if this process is killed outright (SIGKILL, an
 * OOM kill: no handler of its own runs) before the returned function is called: for a
 * temporary file that must not outlive the operation that made it, such as the one a
 * file tool writes before renaming it into place. The process's janitor (a small bash
 * process, started on first use, that outlives it) does the removing. A path that holds
 * a line break is not taken (nothing is removed for it).
 */
export function removeOnHardExit(path: string): () => void {
  return cleanupOnHardExit.file(path);
}
