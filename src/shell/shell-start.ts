/**
 * A {@link Shell}'s start, apart from the shell: where bash runs (its placement), how it
 * is launched there (the protected-path scan, the sandbox runtime's wrap, the process
 * limits), and what the start reports: the time each part took, and, when it takes too
 * long, which part it was in and what to check.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve, sep } from 'node:path';
import type { BashProcess, ShellLaunch } from './bash-process';
import { type ContainerOptions, containerLaunch } from './container';
import { applyLimits, type CapCounts, type ShellLimits } from './process-limits';
import { withProtectedPaths } from './protected-paths';
import { type SandboxPolicy } from './sandbox-policy';
import { leaseSandbox } from './sandbox-runtime';
import { MAX_TIMER_MS } from './shell-job';

/** Where a shell's commands run, decided once from its options. */
export type Placement =
  | { readonly kind: 'sandbox'; readonly policy: SandboxPolicy }
  | { readonly kind: 'container'; readonly options: ContainerOptions }
  | { readonly kind: 'unconfined' };

/** Which part of a shell's start is under way. */
export type StartStage =
  | { readonly kind: 'launch'; readonly waitingFor: string }
  | { readonly kind: 'scan'; readonly roots: readonly string[] }
  | { readonly kind: 'sandbox' }
  | {
      readonly kind: 'ready';
      readonly bash: BashProcess;
      readonly launch: ShellLaunch;
      readonly placement: Placement['kind'];
    };

export interface StartProgress {
  stage: StartStage;
  /** When each part of the start began (performance.now()), in order. */
  readonly marks: [StartPart | 'end', number][];
}

/**
 * The parts of a shell's start, in order: `launch` (deciding where bash runs), `scan`
 * (the protected-path scan), `wrap` (the sandbox runtime's wrap), `limits` (cgroups or
 * rlimits), `spawn` (the process made), `ready` (from the spawn to bash's ready line:
 * bubblewrap, what the runtime runs inside the sandbox, bash and our init script).
 */
export type StartPart = 'launch' | 'scan' | 'wrap' | 'limits' | 'spawn' | 'ready';

export function mark(progress: StartProgress, part: StartPart | 'end'): void {
  progress.marks.push([part, performance.now()]);
}

export function stageDurations(marks: readonly [StartPart | 'end', number][]): StartTimes {
  const parts: [StartPart, number][] = [];
  for (let i = 0; i + 1 < marks.length; i++) {
    const [part, at] = marks[i] ?? ['end', 0];
    const next = marks[i + 1]?.[1] ?? at;
    if (part !== 'end') parts.push([part, next - at]);
  }
  const first = marks[0]?.[1] ?? 0;
  const last = marks[marks.length - 1]?.[1] ?? first;
  return { parts, totalMs: last - first };
}

/** How long each part of a shell's last start took, in milliseconds. */
export interface StartTimes {
  readonly parts: readonly (readonly [StartPart, number])[];
  readonly totalMs: number;
}

/** Why a start that took too long had not ended: the part it was in, and what to check. */
export function startTimeoutMessage(ms: number, stage: StartStage): string {
  const head = `bash did not start within ${ms} ms`;
  switch (stage.kind) {
    case 'launch':
      return `${head}: it was still waiting for ${stage.waitingFor}`;
    case 'scan':
      return `${head}: it was still scanning the writable paths (${stage.roots.join(', ')}) for what the sandbox keeps read-only; a path that is very large or slow to read (a network mount) holds it up: leave it out of the writable paths, or give the shell more time (startTimeoutMs)`;
    case 'sandbox':
      return `${head}: it was still waiting for the sandbox's set-up (@anthropic-ai/sandbox-runtime: its network proxy and bubblewrap's arguments); check that \`bwrap --version\` and \`socat -V\` answer at once, and that the temp folder (${tmpdir()}) is writable`;
    case 'ready': {
      const [program] = stage.launch.argv;
      const what =
        stage.placement === 'sandbox'
          ? 'bubblewrap'
          : stage.placement === 'container'
            ? `${program} exec`
            : program;
      const said = stage.bash.stderr.trim().split('\n').slice(-3).join(' / ');
      const check =
        stage.placement === 'sandbox'
          ? 'check that bubblewrap starts a shell here (`bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all bash -c true`) and that the shell command reads commands on its standard input'
          : stage.placement === 'container'
            ? 'check that the container runs and that its shell reads commands on its standard input'
            : 'check that the shell command starts here and reads commands on its standard input';
      return `${head}: it was still waiting for bash's ready line; ${what} (pid ${stage.bash.pid ?? 'none'}) had started, but bash had not run its start-up script (${said === '' ? 'nothing on stderr' : `stderr: ${said}`}); ${check}`;
    }
  }
}

/** How many times a start is tried when the writable paths change under it. */
const MAX_START_ATTEMPTS = 10;

/**
 * The paths inside `roots` (the writable paths, which the scan for protected paths has
 * just read) that `error`, bubblewrap's failure, names: a file the scan found that was
 * gone, or replaced, by the time bubblewrap bound it, as happens when something makes
 * and removes files there. Bubblewrap names a path as the host has it, or under
 * `/newroot`, where it sees the host's tree while it sets up. Only says whether to try
 * again: a path with a space or a colon in it is cut short, and then not found.
 */
export function changedPathsNamed(error: unknown, roots: readonly string[]): string[] {
  const message = error instanceof Error ? error.message : '';
  const said = /\bbwrap: (.*)/.exec(message)?.[1];
  if (said === undefined) return [];
  const inside = (path: string) =>
    roots.some((root) => path.startsWith(root.endsWith(sep) ? root : root + sep));
  return [...said.matchAll(/(?:\/newroot)?(\/[^\s:"]+)/g)]
    .map(([, path]) => path ?? '')
    .filter(inside);
}

/**
 * Starts a shell by `tryOnce` (one try, given up when the `timeout` it is handed
 * rejects), all tries within one start timeout of `timeoutMs`. A sandboxed try that
 * bubblewrap failed because a protected file the scan found was gone, or replaced, by
 * the time it bound it (something makes and removes it in the workspace: see
 * {@link changedPathsNamed}) is followed by another, up to 10 tries.
 * Nothing is left out of the protection for it: the new scan binds what is there now, or
 * holds the place of what is not. A timeout after such a try says what the try met; the
 * start times reported are the last try's.
 */
export async function startWithRetries<T>(options: {
  readonly timeoutMs: number;
  readonly placement: Placement;
  readonly closed: () => boolean;
  readonly tryOnce: (progress: StartProgress, timeout: Promise<never>) => Promise<T>;
}): Promise<T> {
  const { timeoutMs, placement, closed, tryOnce } = options;
  // What the start waits for now, so that a start that times out says which part hung.
  const progress: StartProgress = {
    stage: { kind: 'launch', waitingFor: "the shell's launch" },
    marks: [['launch', performance.now()]],
  };
  let failedTry: Error | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // A timer that fires late (the process was busy past it) runs before the input that
    // came meanwhile is read: the rejection waits for that input, so that a ready line
    // already there wins.
    timer = setTimeout(
      () =>
        setImmediate(() => {
          const message = startTimeoutMessage(timeoutMs, progress.stage);
          reject(
            new Error(
              failedTry === undefined
                ? message
                : `${message}; an earlier try: ${failedTry.message}`,
            ),
          );
        }),
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
  });
  timeout.catch(() => undefined);
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await tryOnce(progress, timeout);
      } catch (error) {
        const changed =
          placement.kind === 'sandbox' &&
          changedPathsNamed(error, placement.policy.allowWrite).length > 0;
        if (closed() || attempt >= MAX_START_ATTEMPTS || !changed) throw error;
        failedTry = error instanceof Error ? error : new Error(String(error));
        progress.stage = { kind: 'launch', waitingFor: "the shell's launch" };
        progress.marks.splice(0, progress.marks.length, ['launch', performance.now()]);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Where an unconfined shell keeps its (at once unlinked) state files: a memory file
 * system first, where rewriting a file costs nothing, then the temp folder.
 */
export function stateDirectories(): string[] {
  return existsSync('/dev/shm') ? ['/dev/shm', tmpdir()] : [tmpdir()];
}

/** What {@link launchShell} reads of a shell's options. */
export interface LaunchOptions {
  readonly command: readonly [string, ...string[]];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string | undefined;
}

/**
 * How to start bash where `placement` says, and the process limits applied to it (only
 * in a sandbox). `progress` says which part is under way, for a start that times out.
 */
export async function launchShell(
  placement: Placement,
  options: LaunchOptions,
  progress: StartProgress,
): Promise<{
  readonly launch: ShellLaunch;
  readonly limits: ShellLimits | undefined;
  /** In a sandbox: how often its caps have held so far. */
  readonly capCounts?: () => CapCounts;
  /** In a sandbox: the paths its commands cannot write, the protected ones included. */
  readonly readOnly?: readonly string[];
}> {
  const { command, env, cwd } = options;
  switch (placement.kind) {
    case 'unconfined':
      return {
        launch: { argv: command, env, cwd, stateDirs: stateDirectories() },
        limits: undefined,
      };
    case 'container':
      return { launch: containerLaunch(placement.options, env, command), limits: undefined };
    case 'sandbox': {
      const where = resolve(cwd ?? process.cwd());
      progress.stage = { kind: 'scan', roots: placement.policy.allowWrite };
      mark(progress, 'scan');
      // Computed at each start, for the workspace and every writable path (never from
      // this process's working directory): a repository made since is protected too.
      const policy = await withProtectedPaths(placement.policy);
      progress.stage = { kind: 'sandbox' };
      mark(progress, 'wrap');
      const lease = await leaseSandbox(policy, command, where);
      mark(progress, 'limits');
      const limits = applyLimits(policy.maxProcesses, policy.maxMemoryBytes);
      let released = false;
      return {
        launch: {
          argv: limits.wrap(lease.argv),
          // SHLVL: the sandbox's own `bash -c` would read ~/.bashrc where its input is a
          // socket (as Node's pipes are) and SHLVL says it is a first-level shell.
          env: { ...env, SHLVL: '1' },
          cwd: where,
          prelude: [lease.prelude, limits.prelude].filter((line) => line !== '').join('\n'),
          inputs: lease.inputs,
          stateDirs: ['/dev/shm', '/tmp'],
          release: () => {
            if (released) return;
            released = true;
            lease.release();
            limits.release();
          },
        },
        limits: limits.limits,
        capCounts: () => limits.counts(),
        readOnly: policy.denyWrite,
      };
    }
  }
}
