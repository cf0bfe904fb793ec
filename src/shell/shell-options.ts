// What a {@link Shell} takes and answers: its options, a run's options, a command's
// result. Kept apart from the shell's workings; `agenttool/shell` exports them.
import { type Session } from 'agenttool';
import { type ContainerOptions } from './container';
import { type SandboxOptions } from './sandbox-policy';

/** How long a command runs, by default, before it is interrupted: 10 minutes. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 600_000;

/** What a command of the bash tool waits for first: see `ShellOptions.beforeCommand`. */
export type BeforeCommand = (
  session: Session | undefined,
  signal: AbortSignal,
) => Promise<void> | undefined;

/** How a {@link Shell} starts bash and bounds its commands. */
export interface ShellOptions {
  /** The directory the shell starts in; the host's working directory by default. */
  readonly cwd?: string;
  /**
   * The environment bash starts with, exactly. By default only `PATH`, `HOME`, `LANG`
   * and `TERM` of the host's (see {@link shellEnvironment}), never the whole of it: a
   * server's environment holds credentials a command has no business reading; and, for
   * commands with no terminal, `GIT_EDITOR=true`, `GIT_TERMINAL_PROMPT=0`, `GIT_PAGER`
   * and `PAGER` `cat`.
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * How long a command may run when its `run` gives no `timeoutMs`: after this many
   * milliseconds it is interrupted as an abort would. 600000 (10 minutes) by default.
   */
  readonly defaultTimeoutMs?: number;
  /**
   * The most bytes of a command's output a result keeps (64 KiB by default): the first
   * and the last half, with a truncation line between them.
   */
  readonly maxOutputBytes?: number;
  /**
   * How long an interrupted command gets before the next, harder signal (SIGINT, sent
   * twice, then SIGTERM, then SIGKILL), and how long bash gets to report the end after
   * SIGKILL before it is replaced. 2000 ms by default.
   */
  readonly interruptGraceMs?: number;
  /** How long bash gets to start; 10000 ms by default. */
  readonly startTimeoutMs?: number;
  /**
   * The bash program and its arguments, `['bash', '--noprofile', '--norc']` by default.
   * It must read commands on its standard input.
   */
  readonly command?: readonly [string, ...string[]];
  /**
   * The OS sandbox commands run in, and what it allows (see {@link SandboxOptions}): on
   * by default, with the default policy. `false` runs commands with every right of this
   * process; say so only on purpose. When the sandbox cannot start, the shell does not
   * start either (a {@link SandboxUnavailableError} names the cause and the fix).
   */
  readonly sandbox?: SandboxOptions | false;
  /**
   * Runs the shell in this container (through `docker exec` or `podman exec`) instead of
   * an OS sandbox; `sandbox` must then be absent or `false`.
   */
  readonly container?: ContainerOptions;
  /**
   * Lets a run ask to go outside the sandbox (`run(command, { unsandboxed: true })`,
   * the bash tool's escape hatch): off by default. Such a command runs in a second,
   * unconfined bash that takes the sandboxed one's state (working directory,
   * variables, functions, aliases, options) before it and hands it back after.
   */
  readonly allowUnsandboxedCommands?: boolean;
  /**
   * What a command of the `bash` tool waits for once its turn has come, before it runs:
   * work it must see done, given the call's session (undefined for a call outside one)
   * and signal. The workspace gives the file changes of that session already under way,
   * so that a script written and the command that runs it, sent at once, run in that
   * order. A rejection fails the call with its message; the signal aborts when the call
   * is cancelled or the wait outlasts the command's timeout (the call then fails, saying
   * so, and the command does not run).
   */
  readonly beforeCommand?: BeforeCommand | undefined;
}

/** What one command did. */
export interface ShellResult {
  /** Standard output and standard error as they interleaved, bounded (see `truncated`). */
  readonly output: string;
  /**
   * The command's exit status (128 + n when signal n ended it), or null when it has none:
   * it never started (its signal was aborted first), or the shell was restarted or
   * closed while it ran.
   */
  readonly exitCode: number | null;
  /** An interrupt was sent: the signal was aborted, or the timeout passed. */
  readonly interrupted: boolean;
  /** The interrupt was sent because `timeoutMs` passed. */
  readonly timedOut: boolean;
  /** Output was left out; the text says where and how much. */
  readonly truncated: boolean;
  /**
   * What a sandboxed shell undid after the command (or since the last result, after a
   * restart) because git or an agent on the host would run it: config entries that may
   * run a command and hooks added to a repository in the writable folders since the
   * shell's first start, and agents' settings made one level down, each
   * moved aside and named (`sub/.git/config: core.fsmonitor, moved to
   * sub/.git/config.disabled`). Absent when nothing was.
   */
  readonly disabled?: readonly string[];
  /**
   * How often the shell's caps held while the command ran (a sandboxed shell whose caps
   * a cgroup holds): new processes the process cap refused, processes the memory cap
   * killed. Absent when neither did.
   */
  readonly capsReached?: {
    readonly refusedProcesses: number;
    readonly killedForMemory: number;
  };
}

/** How to run one command. */
export interface RunOptions {
  /** Aborting it interrupts the command (SIGINT to its process group); the shell stays. */
  readonly signal?: AbortSignal;
  /**
   * Interrupts the command after this many milliseconds, as an abort would; the shell's
   * `defaultTimeoutMs` (10 minutes unless configured) when absent.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Called with the command's process group id as soon as the command exists. If it
   * throws, the command is interrupted and `run` rejects with what it threw.
   */
  readonly onStart?: (pgid: number) => void;
  /**
   * Called with output as it arrives, before any cap (for progress). If it throws, the
   * command is interrupted and `run` rejects with what it threw.
   */
  readonly onOutput?: (text: string) => void;
  /**
   * Runs this command outside the sandbox, with every right of this process. Refused
   * unless the shell was made with `allowUnsandboxedCommands`.
   */
  readonly unsandboxed?: boolean;
}

/**
 * Throws, saying what is wrong, for a command a shell cannot be given: not a string, one
 * with a NUL (bash would stop reading it there), or one with a lone surrogate (sent as
 * UTF-8, it would reach bash as U+FFFD, a command no one wrote).
 */
export function checkCommand(command: unknown): void {
  if (typeof command !== 'string' || command.includes('\0')) {
    throw new Error('the command must be a string without NUL characters');
  }
  const lone = /\p{Cs}/u.exec(command);
  if (lone !== null) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new Error(
      `the command holds a lone surrogate (U+${unit}, at character ${lone.index}), half of a pair that is not text and that UTF-8 cannot carry; send the character whole`,
    );
  }
}

/** Throws for a timeout that is not a positive number of milliseconds, naming `name`. */
export function checkTimeout(name: string, ms: number): void {
  if (!(Number.isFinite(ms) && ms > 0)) {
    throw new Error(`${name} must be a positive number of milliseconds, got ${ms}`);
  }
}
