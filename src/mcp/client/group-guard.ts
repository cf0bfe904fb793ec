import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * What the guard runs (POSIX sh): it reads `GROUP <id>` and `UNGROUP <id>` lines from its
 * input, a pipe from this process. When the pipe ends, however this process ended, it
 * sends SIGTERM to each group still listed and, to what is left of them 2 s later,
 * SIGKILL: as a close stops a server's group. Ids are digits only (written here).
 */
const SCRIPT = `
trap '' INT TERM HUP
groups=' '
while read -r kind group; do
  case $kind in
    GROUP) groups="$groups$group " ;;
    UNGROUP) case $groups in *" $group "*) groups="\${groups%% $group *} \${groups#* $group }" ;; esac ;;
  esac
done
left=
for g in $groups; do kill -TERM "-$g" 2>/dev/null && left=1; done
[ -n "$left" ] || exit 0
i=0
while [ "$i" -lt 20 ]; do
  alive=
  for g in $groups; do kill -0 "-$g" 2>/dev/null && alive=1; done
  [ -n "$alive" ] || exit 0
  sleep 0.1
  i=$((i + 1))
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
`;

/** node:child_process's spawn, as the transport loads it (on first use). */
type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

let guard: { readonly child: ChildProcess; readonly input: Socket } | undefined;

/**
 * The guard, started on first use (and again if it was killed): a process of its own
 * group, whose input ends when this one's does. Undefined where none could be started.
 */
function started(spawn: Spawn): typeof guard {
  if (guard !== undefined && guard.child.exitCode === null && guard.child.signalCode === null) {
    return guard;
  }
  try {
    const child = spawn('/bin/sh', ['-c', SCRIPT], {
      stdio: ['pipe', 'ignore', 'ignore'],
      // Its own group: a Ctrl-C meant for this process must not take it first.
      detached: true,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    child.once('error', () => undefined);
    const input = child.stdin as Socket | null;
    if (input === null) return undefined;
    input.on('error', () => undefined);
    // Neither keeps this process alive: it is there for when this process is gone.
    child.unref();
    input.unref();
    return (guard = { child, input });
  } catch {
    return undefined;
  }
}

/**
 * Starts the guard ahead of a server's spawn, so that the server's group can be told to
 * it the moment the server starts.
 */
export function prepareGroupGuard(spawn: Spawn): void {
  started(spawn);
}

/**
 * Stops the process group a server leads if this process dies without closing it
 * (SIGKILL, an OOM kill: no handler of ours runs). A server should exit once its stdin
 * ends, and many do not: a wrapper script that runs on, a server whose threads outlive
 * its input, a container's client. The group is taken off the guard's list when the
 * server exits: a group whose leader has exited is left alone, as its id may be reused.
 */
export function guardGroup(spawn: Spawn, server: ChildProcess): void {
  const group = server.pid;
  if (group === undefined) return;
  const input = started(spawn)?.input;
  if (input === undefined) return;
  input.write(`GROUP ${group}\n`);
  server.once('exit', () => {
    if (!input.destroyed) input.write(`UNGROUP ${group}\n`);
  });
}
