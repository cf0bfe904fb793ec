import { StringDecoder } from 'node:string_decoder';
import { BashProcess, signalGroup } from './bash-process';
import { BoundedOutput } from './bounded-output';
import { shellEnvironment } from './environment';

/** How a {@link Shell} starts bash and bounds its commands. */
export interface ShellOptions {
  /** The directory the shell starts in; the host's working directory by default. */
  readonly cwd?: string;
  /**
   * The environment bash starts with, exactly. By default only `PATH`, `HOME`, `LANG`
   * and `TERM` of the host's (see {@link shellEnvironment}), never the whole of it: a
   * server's environment holds credentials a command has no business reading.
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
   * The program that runs bash, `['bash', '--noprofile', '--norc']` by default. It must
   * run bash in this host's process namespace, since interrupts are signals sent from
   * here.
   */
  readonly command?: readonly [string, ...string[]];
}

/** What one command did. */
export interface ShellResult {
  /** Standard output and standard error as they interleaved, bounded (see `truncated`). */
  readonly output: string;
  /**
   * The command's exit status (128 + n when signal n ended it), or null when it has none
   * because the shell was restarted, closed or replaced while it ran.
   */
  readonly exitCode: number | null;
  /** An interrupt was sent: the signal was aborted, or the timeout passed. */
  readonly interrupted: boolean;
  /** The interrupt was sent because `timeoutMs` passed. */
  readonly timedOut: boolean;
  /** Output was left out; the text says where and how much. */
  readonly truncated: boolean;
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
}

/** The longest delay a timer takes; a longer one would fire at once (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a command runs, by default, before it is interrupted: 10 minutes. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 600_000;

const DEFAULTS = {
  maxOutputBytes: 64 * 1024,
  defaultTimeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
  interruptGraceMs: 2000,
  startTimeoutMs: 10_000,
  command: ['bash', '--noprofile', '--norc'] as const,
};

/**
 * The escalation after an interrupt, each step after a delay (a fraction of the grace):
 * SIGINT once more soon, because a program that was starting when the first arrived can
 * miss it; then SIGTERM, then SIGKILL. After the last step bash itself is replaced.
 */
const ESCALATION: readonly { readonly signal: NodeJS.Signals; readonly after: number }[] = [
  { signal: 'SIGINT', after: 0 },
  { signal: 'SIGINT', after: 0.1 },
  { signal: 'SIGTERM', after: 0.9 },
  { signal: 'SIGKILL', after: 1 },
];

interface Job {
  readonly output: BoundedOutput;
  pgid: number | undefined;
  interruptRequested: boolean;
  timedOut: boolean;
  /** We ended the shell under this job (restart, close, or a wedged bash). */
  endedByUs: boolean;
  callbackError: { error: unknown } | undefined;
  readonly timers: NodeJS.Timeout[];
  settle(outcome: { exitCode: number | null } | { error: Error }): void;
}

/**
 * One persistent bash session. State a command leaves (working directory, variables,
 * exported or not, functions, aliases, options, umask) is there for the next one, while
 * each command runs in its own process group, so interrupting it never touches the
 * shell. One command at a time: a second `run` while one runs is refused.
 *
 * Not kept across commands: traps, the directory stack, and jobs started with `&`
 * (they keep running, outside the shell's job table). A command that replaces the EXIT
 * trap does not save its state.
 *
 * The shell owns a process: {@link Shell.close} ends it, and is safe to call twice.
 */
export class Shell {
  private readonly options: Required<Omit<ShellOptions, 'cwd'>> & Pick<ShellOptions, 'cwd'>;
  private bash: BashProcess | undefined;
  private job: Job | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(options: ShellOptions = {}) {
    this.options = { ...DEFAULTS, ...options, env: options.env ?? shellEnvironment() };
    // Fail on a bad cap or default timeout here rather than at the first command.
    new BoundedOutput(this.options.maxOutputBytes);
    checkTimeout('defaultTimeoutMs', this.options.defaultTimeoutMs);
  }

  /** How long a command runs when its `run` gives no `timeoutMs`, in milliseconds. */
  get defaultTimeoutMs(): number {
    return this.options.defaultTimeoutMs;
  }

  /** True while a command runs. */
  get running(): boolean {
    return this.job !== undefined;
  }

  /** The process id of bash (also its process group id), when it runs. */
  get pid(): number | undefined {
    return this.bash?.exitedBecause === undefined ? this.bash?.pid : undefined;
  }

  /**
   * Runs one command to its end, or until interrupted. Rejects with `the previous
   * command is still running` while another command runs, and with `the shell is closed`
   * after {@link Shell.close}.
   */
  async run(command: string, options: RunOptions = {}): Promise<ShellResult> {
    if (this.closed) throw new Error('the shell is closed');
    if (this.job !== undefined) throw new Error('the previous command is still running');
    if (typeof command !== 'string' || command.includes('\0')) {
      throw new Error('the command must be a string without NUL characters');
    }
    if (options.timeoutMs !== undefined) checkTimeout('timeoutMs', options.timeoutMs);
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs;
    let settle!: Job['settle'];
    const done = new Promise<{ exitCode: number | null }>((resolve, reject) => {
      settle = (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome));
    });
    // Settled with an error only on paths that throw that error themselves.
    done.catch(() => undefined);
    const job: Job = {
      output: new BoundedOutput(this.options.maxOutputBytes),
      pgid: undefined,
      interruptRequested: false,
      timedOut: false,
      endedByUs: false,
      callbackError: undefined,
      timers: [],
      settle: (outcome) => {
        if (this.job !== job) return;
        this.job = undefined;
        for (const timer of job.timers) clearTimeout(timer);
        settle(outcome);
      },
    };
    this.job = job;
    const signal = options.signal;
    const onAbort = () => this.interrupt(job);
    try {
      const bash = aborted(signal) ? undefined : await this.started();
      if (this.closed) throw new Error('the shell is closed');
      if (bash === undefined || aborted(signal)) {
        // Interrupted before it began: nothing ran.
        job.interruptRequested = true;
        job.settle({ exitCode: null });
        return this.result(job, null);
      }
      this.attach(job, bash, options);
      signal?.addEventListener('abort', onAbort, { once: true });
      // A timeout longer than a timer can hold is no timeout.
      if (timeoutMs <= MAX_TIMER_MS) {
        job.timers.push(
          setTimeout(() => {
            job.timedOut = true;
            this.interrupt(job);
          }, timeoutMs),
        );
      }
      bash.send(command);
      const { exitCode } = await done;
      if (job.callbackError !== undefined) throw job.callbackError.error;
      return this.result(job, exitCode);
    } catch (error) {
      job.settle({ error: error instanceof Error ? error : new Error(String(error)) });
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Replaces bash with a fresh one: state is lost, and a running command is killed (its
   * `run` resolves with `exitCode: null`).
   */
  async restart(): Promise<void> {
    if (this.closed) throw new Error('the shell is closed');
    await this.stop();
    await this.started();
  }

  /** Kills a running command and bash. Idempotent; later calls return the same promise. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.stop();
    return this.closing;
  }

  private result(job: Job, exitCode: number | null): ShellResult {
    return {
      output: job.output.text(),
      exitCode,
      interrupted: job.interruptRequested,
      timedOut: job.timedOut,
      truncated: job.output.truncated,
    };
  }

  private attach(job: Job, bash: BashProcess, options: RunOptions): void {
    const { onStart, onOutput } = options;
    const decoder = new StringDecoder('utf8');
    const call = (fn: () => void) => {
      try {
        fn();
      } catch (error) {
        job.callbackError ??= { error };
        this.interrupt(job);
      }
    };
    bash.listener = {
      onData: (chunk) => {
        job.output.push(chunk);
        if (onOutput !== undefined) {
          const text = decoder.write(chunk);
          if (text !== '') call(() => onOutput(text));
        }
      },
      onStart: (pgid) => {
        job.pgid = pgid;
        // An interrupt asked for before now waits for this news; send it once.
        const pending = job.interruptRequested;
        if (onStart !== undefined) call(() => onStart(pgid));
        if (pending) this.escalate(job, bash, 0);
      },
      onEnd: (status) => {
        bash.listener = undefined;
        job.settle({ exitCode: job.endedByUs ? null : status });
      },
      onExit: (reason) => {
        if (job.endedByUs) job.settle({ exitCode: null });
        else {
          job.settle({
            error: new Error(
              `the shell exited while the command was running (${reason}); its state is lost, and the next command starts a new shell`,
            ),
          });
        }
      },
    };
  }

  /** Asks the job to stop: now if its process group is known, else as soon as it is. */
  private interrupt(job: Job): void {
    if (job.interruptRequested) return;
    job.interruptRequested = true;
    const bash = this.bash;
    if (job.pgid !== undefined && bash !== undefined) this.escalate(job, bash, 0);
  }

  private escalate(job: Job, bash: BashProcess, step: number): void {
    if (this.job !== job) return;
    const current = ESCALATION[step];
    if (current === undefined) {
      // Even SIGKILL brought no end from bash: it is wedged, so replace it.
      job.endedByUs = true;
      bash.kill();
      return;
    }
    signalGroup(job.pgid, current.signal);
    const next = ESCALATION[step + 1]?.after ?? 1;
    job.timers.push(
      setTimeout(
        () => this.escalate(job, bash, step + 1),
        Math.min(next * this.options.interruptGraceMs, MAX_TIMER_MS),
      ),
    );
  }

  /** The running bash, started if needed and ready, within the start timeout. */
  private async started(): Promise<BashProcess> {
    let bash = this.bash;
    if (bash === undefined || bash.exitedBecause !== undefined) {
      bash = new BashProcess({
        command: this.options.command,
        cwd: this.options.cwd,
        env: this.options.env,
      });
      this.bash = bash;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`bash did not start within ${this.options.startTimeoutMs} ms`)),
        Math.min(this.options.startTimeoutMs, MAX_TIMER_MS),
      );
    });
    try {
      await Promise.race([bash.ready, timeout]);
      return bash;
    } catch (error) {
      bash.kill();
      // Closed while starting: that, not the kill it caused, is what happened.
      if (this.closed) throw new Error('the shell is closed');
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the running command and bash, and waits (boundedly) for bash to exit. */
  private async stop(): Promise<void> {
    const job = this.job;
    if (job !== undefined) {
      job.endedByUs = true;
      job.interruptRequested = true;
      signalGroup(job.pgid, 'SIGKILL');
    }
    const bash = this.bash;
    this.bash = undefined;
    if (bash === undefined) {
      job?.settle({ exitCode: null });
      return;
    }
    await bash.close(Math.min(this.options.startTimeoutMs, MAX_TIMER_MS));
    // A job still unsettled here had a bash that never reported its exit.
    job?.settle({ exitCode: null });
  }
}

function checkTimeout(name: string, ms: number): void {
  if (!(Number.isFinite(ms) && ms > 0)) {
    throw new Error(`${name} must be a positive number of milliseconds, got ${ms}`);
  }
}

/** Read through a function so that TypeScript does not narrow it across an await. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
