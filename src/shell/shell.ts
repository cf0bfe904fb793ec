import type { Confinement, Session } from 'agenttool';
import { EXPORT_STATE_COMMAND, importStateCommand } from './bash-state';
import { BashProcess, type ShellLaunch } from './bash-process';
import { beforeCommand } from './before-command';
import { BoundedOutput } from './bounded-output';
import {
  type BeforeCommand,
  checkCommand,
  checkTimeout,
  DEFAULT_COMMAND_TIMEOUT_MS,
  type RunOptions,
  type ShellOptions,
  type ShellResult,
} from './shell-options';
import { checkContainerOptions } from './container';
import { shellEnvironment } from './environment';
import { type CapCounts, capsReachedSince, type ShellLimits } from './process-limits';
import { GuardRecord } from './guard-record';
import { RepositoryGuard } from './repository-guard';
import { type SandboxPolicy, sandboxPolicy } from './sandbox-policy';
import { sandboxName } from './sandbox-support';
import { MAX_TIMER_MS, ShellJob } from './shell-job';
import {
  launchShell,
  mark,
  type Placement,
  stageDurations,
  type StartProgress,
  type StartTimes,
  startWithRetries,
} from './shell-start';

const DEFAULTS = {
  maxOutputBytes: 64 * 1024,
  defaultTimeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
  interruptGraceMs: 2000,
  startTimeoutMs: 10_000,
  command: ['bash', '--noprofile', '--norc'] as const,
};

/**
 * One persistent bash session. State a command leaves (working directory, variables,
 * exported or not, functions, aliases, options, umask) is there for the next one, while
 * each command runs in its own process group, so interrupting it never touches the
 * shell. One command at a time: a second `run` while one runs is refused, unless the
 * one running is being interrupted, in which case it waits for that one to end.
 *
 * Commands run in an OS sandbox by default (bubblewrap on Linux, Seatbelt on macOS,
 * through `@anthropic-ai/sandbox-runtime`), started once with the shell, so a command
 * pays nothing for it: the system is read-only but for the working directory and a
 * private temporary folder, credentials cannot be read, the network is off but for the
 * hosts allowed, the shell has its own PID namespace, and its processes and memory are
 * capped. See {@link ShellOptions.sandbox} and docs/sandbox.md.
 *
 * Not kept across commands: traps, the directory stack, jobs started with `&` (they keep
 * running, outside the shell's job table), and functions named `exec` or `builtin`
 * (they would stand in for the builtins the shell runs between commands). A command
 * that replaces the EXIT trap does not save its state.
 *
 * The shell owns a process: {@link Shell.close} ends it, and is safe to call twice.
 */
export class Shell {
  private readonly options: Required<
    Omit<
      ShellOptions,
      'cwd' | 'sandbox' | 'container' | 'allowUnsandboxedCommands' | 'beforeCommand'
    >
  > &
    Pick<ShellOptions, 'cwd'>;
  /** What a command of the bash tool waits for first (see `ShellOptions.beforeCommand`). */
  private readonly waitFirst: BeforeCommand | undefined;
  private readonly allowUnsandboxed: boolean;
  /** The unconfined bash that runs escape-hatch commands, made on the first one. */
  private unconfined: Shell | undefined;
  /** An escape-hatch command in progress (it spans several runs of both shells). */
  private escaping: Promise<unknown> | undefined;
  private readonly placement: Placement;
  private bash: BashProcess | undefined;
  private starting: Promise<BashProcess> | undefined;
  private shellLimits: ShellLimits | undefined;
  /** How often the running bash's caps have held (a sandbox's cgroups). */
  private capCounts: (() => CapCounts) | undefined;
  private job: ShellJob | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** A sandboxed shell's: undoes what commands add to repositories for git to run. */
  private readonly guard: RepositoryGuard | undefined;
  /** What the guard knows, kept for its check after a kill outright (guard-record.ts). */
  private readonly guardRecord: GuardRecord | undefined;

  constructor(options: ShellOptions = {}) {
    const { sandbox, container, allowUnsandboxedCommands, beforeCommand, ...rest } = options;
    this.options = { ...DEFAULTS, ...rest, env: options.env ?? shellEnvironment() };
    if (beforeCommand !== undefined && typeof beforeCommand !== 'function') {
      throw new TypeError('beforeCommand must be a function that returns a promise, or undefined');
    }
    this.waitFirst = beforeCommand;
    this.allowUnsandboxed = allowUnsandboxedCommands === true;
    // Fail on a bad cap, timeout or policy here rather than at the first command.
    new BoundedOutput(this.options.maxOutputBytes);
    checkTimeout('defaultTimeoutMs', this.options.defaultTimeoutMs);
    if (container !== undefined) {
      if (sandbox !== undefined && sandbox !== false) {
        throw new TypeError(
          'a shell runs in a container or in an OS sandbox, not both: give `container` with `sandbox: false`, or leave `container` out',
        );
      }
      checkContainerOptions(container);
      this.placement = { kind: 'container', options: { ...container } };
    } else if (sandbox === false) {
      this.placement = { kind: 'unconfined' };
    } else {
      if (sandbox !== undefined && (typeof sandbox !== 'object' || sandbox === null)) {
        throw new TypeError('sandbox must be an object of sandbox options, or false');
      }
      const policy = sandboxPolicy(
        sandbox ?? {},
        process.env['HOME'],
        this.options.cwd ?? process.cwd(),
      );
      this.placement = { kind: 'sandbox', policy };
    }
    if (this.placement.kind === 'sandbox') {
      const record = new GuardRecord();
      this.guardRecord = record;
      this.guard = new RepositoryGuard(this.placement.policy.allowWrite, undefined, (state) =>
        record.keep(state),
      );
    }
    if (this.allowUnsandboxed && this.placement.kind !== 'sandbox') {
      throw new TypeError(
        'allowUnsandboxedCommands is for a sandboxed shell; this one is not sandboxed, so every command already runs outside a sandbox',
      );
    }
  }

  /** Whether a run may ask to go outside the sandbox (see `allowUnsandboxedCommands`). */
  get allowsUnsandboxedCommands(): boolean {
    return this.allowUnsandboxed;
  }

  /**
   * Whether this shell's commands run confined, and by what: `bubblewrap` (Linux) or
   * `seatbelt` (macOS) for the OS sandbox, `container:<name>` in a container, and not
   * confined when the sandbox was turned off.
   */
  get confinement(): Confinement {
    switch (this.placement.kind) {
      case 'sandbox':
        return { confined: true, by: sandboxName() };
      case 'container':
        return { confined: true, by: `container:${this.placement.options.name}` };
      case 'unconfined':
        return { confined: false, by: '' };
    }
  }

  /**
   * The sandbox's policy with its defaults applied (what may be written, what may not
   * be read, the hosts allowed, the caps), or undefined when the shell is not sandboxed.
   */
  get sandboxPolicy(): SandboxPolicy | undefined {
    return this.placement.kind === 'sandbox' ? this.placement.policy : undefined;
  }

  /**
   * The caps on the running sandboxed shell and what enforces them, once it has
   * started; undefined before, and for a shell that is not sandboxed.
   */
  get limits(): ShellLimits | undefined {
    return this.shellLimits;
  }

  /** How long a command runs when its `run` gives no `timeoutMs`, in milliseconds. */
  get defaultTimeoutMs(): number {
    return this.options.defaultTimeoutMs;
  }

  /**
   * Waits for what `ShellOptions.beforeCommand` says a command of `session` must see
   * done first; at once without it. Rejects when it does, or with the signal's reason
   * once `signal` aborts.
   */
  beforeCommand(session: Session | undefined, signal: AbortSignal): Promise<void> | undefined {
    return beforeCommand(this.waitFirst, session, signal);
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
   * command is still running` while another command runs, with `the shell is closed`
   * after {@link Shell.close}, and with an error that says the shell's state is lost when
   * bash exited under the command or stopped answering after its interrupt (then it is
   * replaced, and the next run starts a new one). An interrupted command's run returns
   * once its job has ended; what the command left running still gets the rest of the
   * interrupt (SIGTERM, then SIGKILL) while the next command runs.
   */
  async run(command: string, options: RunOptions = {}): Promise<ShellResult> {
    if (this.closed) throw new Error('the shell is closed');
    checkCommand(command);
    if (options.timeoutMs !== undefined) checkTimeout('timeoutMs', options.timeoutMs);
    if (this.escaping !== undefined) throw new Error('the previous command is still running');
    if (options.unsandboxed === true) return this.runUnsandboxed(command, options);
    return this.runHere(command, options);
  }

  /**
   * An escape-hatch command: the sandboxed shell's state moves to the unconfined one,
   * the command runs there, and the state moves back, all while this shell counts as
   * busy.
   */
  private async runUnsandboxed(command: string, options: RunOptions): Promise<ShellResult> {
    if (!this.allowUnsandboxed) {
      throw new Error(
        this.placement.kind === 'sandbox'
          ? 'this shell runs every command in its sandbox: running one outside it was not allowed (allowUnsandboxedCommands)'
          : 'this shell has no sandbox to leave',
      );
    }
    if (this.job !== undefined) throw new Error('the previous command is still running');
    const { unsandboxed: _, ...rest } = options;
    const escape = (async () => {
      const unconfined = (this.unconfined ??= new Shell({
        ...this.options,
        sandbox: false,
      }));
      await unconfined.runHere(
        importStateCommand(await this.internal(this, EXPORT_STATE_COMMAND)),
        {},
      );
      try {
        return await unconfined.runHere(command, rest);
      } finally {
        if (!this.closed) {
          const state = await this.internal(unconfined, EXPORT_STATE_COMMAND);
          await this.runHere(importStateCommand(state), {});
        }
      }
    })();
    this.escaping = escape;
    try {
      return await escape;
    } finally {
      this.escaping = undefined;
    }
  }

  /** Runs one of the driver's own commands in `shell` and returns all it printed. */
  private async internal(shell: Shell, command: string): Promise<string> {
    let text = '';
    const result = await shell.runHere(command, {
      onOutput: (chunk) => {
        text += chunk;
      },
    });
    if (result.exitCode !== 0) {
      throw new Error(
        `the shell's state could not be carried over (exit status ${result.exitCode ?? 'none'}): ${result.output.trim()}`,
      );
    }
    return text;
  }

  private async runHere(command: string, options: RunOptions): Promise<ShellResult> {
    // A command being interrupted ends within the escalation's grace: wait for it, so
    // that a call sent right after an interrupt runs instead of being refused.
    while (this.job?.interruptRequested === true) await this.job.ended;
    if (this.closed) throw new Error('the shell is closed');
    if (this.job !== undefined) throw new Error('the previous command is still running');
    const job = new ShellJob({
      maxOutputBytes: this.options.maxOutputBytes,
      interruptGraceMs: this.options.interruptGraceMs,
      bash: () => this.bash,
      onSettle: () => {
        this.job = undefined;
      },
    });
    this.job = job;
    const signal = options.signal;
    const onAbort = () => job.interrupt();
    try {
      const bash = aborted(signal) ? undefined : await this.started();
      if (this.closed) throw new Error('the shell is closed');
      if (bash === undefined || aborted(signal)) {
        // Interrupted before it began: nothing ran.
        job.interruptRequested = true;
        job.settle({ exitCode: null });
        return job.result(null);
      }
      bash.listener = job.listener(bash, options);
      signal?.addEventListener('abort', onAbort, { once: true });
      job.timeOutAfter(options.timeoutMs ?? this.options.defaultTimeoutMs);
      const capsBefore = this.capCounts?.();
      bash.send(command);
      const { exitCode } = await job.done;
      const capsReached = capsReachedSince(capsBefore, this.capCounts?.());
      const disabled = await this.guarded();
      if (job.callbackError !== undefined) throw job.callbackError.error;
      const result = job.result(exitCode);
      return {
        ...result,
        ...(disabled.length === 0 ? {} : { disabled }),
        ...(capsReached === undefined ? {} : { capsReached }),
      };
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
    this.closing ??= Promise.all([this.stop(), this.unconfined?.close()]).then(() =>
      this.guardRecord?.release(),
    );
    return this.closing;
  }

  /** The running bash, started if needed and ready, within the start timeout. */
  private async started(): Promise<BashProcess> {
    const bash = this.bash;
    if (bash !== undefined && bash.exitedBecause === undefined) {
      await bash.ready;
      return bash;
    }
    // One start at a time: a second caller waits for the first's.
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private start(): Promise<BashProcess> {
    return startWithRetries({
      timeoutMs: this.options.startTimeoutMs,
      placement: this.placement,
      closed: () => this.closed,
      tryOnce: (progress, timeout) => this.startOnce(progress, timeout),
    });
  }

  /** One try at starting bash, given up when `timeout` rejects. */
  private async startOnce(progress: StartProgress, timeout: Promise<never>): Promise<BashProcess> {
    let launch: ShellLaunch | undefined;
    let created = false;
    const launching = this.launch(progress);
    try {
      launch = await Promise.race([launching, timeout]);
      if (this.closed) throw new Error('the shell is closed');
      mark(progress, 'spawn');
      const bash = new BashProcess(launch);
      mark(progress, 'ready');
      // From here the process releases its launch when it exits.
      created = true;
      this.bash = bash;
      progress.stage = { kind: 'ready', bash, launch, placement: this.placement.kind };
      try {
        await Promise.race([bash.ready, timeout]);
      } catch (error) {
        bash.kill();
        throw error;
      }
      mark(progress, 'end');
      startTimes.set(this, stageDurations(progress.marks));
      // Between commands too, while this bash runs: what a command left running adds.
      this.guard?.watch(() => this.job === undefined && this.escaping === undefined);
      return bash;
    } catch (error) {
      if (launch === undefined) {
        // Gave up waiting: what the launch still makes is released when it comes.
        launching.then(
          (late) => late.release?.(),
          () => undefined,
        );
      } else if (!created) launch.release?.();
      // Closed while starting: that, not the kill it caused, is what happened.
      if (this.closed) throw new Error('the shell is closed');
      throw error;
    }
  }

  /**
   * What the guard undid since the last result: after the command that just ended,
   * between commands, and after a stop (a restart, bash's death) since.
   */
  private async guarded(): Promise<string[]> {
    return (await this.guard?.takeNotes()) ?? [];
  }

  /** How to start bash where this shell's commands run; keeps the limits it applied. */
  private async launch(progress: StartProgress): Promise<ShellLaunch> {
    // What the repositories hold before any command ran is the user's.
    await this.guard?.record();
    const { launch, limits, capCounts, readOnly } = await launchShell(
      this.placement,
      this.options,
      progress,
    );
    this.shellLimits = limits;
    this.capCounts = capCounts;
    if (readOnly !== undefined) this.guard?.readOnly(readOnly);
    return launch;
  }

  /** Kills the running command and bash, and waits (boundedly) for bash to exit. */
  private async stop(): Promise<void> {
    this.guard?.unwatch();
    const job = this.job;
    const bash = this.bash;
    if (job !== undefined) {
      job.endedByUs = true;
      job.interruptRequested = true;
      bash?.signal(job.pgid, 'KILL');
    }
    this.bash = undefined;
    if (bash === undefined) {
      job?.settle({ exitCode: null });
      return;
    }
    await bash.close(Math.min(this.options.startTimeoutMs, MAX_TIMER_MS));
    // A job still unsettled here had a bash that never reported its exit.
    job?.settle({ exitCode: null });
    // What a command left running added since the last check, now that all is gone.
    await this.guard?.checkForLater();
  }
}

/** Each shell's last start, for the benchmark's breakdown (not part of the public API). */
const startTimes = new WeakMap<Shell, StartTimes>();

/**
 * How long the parts of `shell`'s last successful start took, or undefined before one.
 * For measuring (bench/shell.bench.ts); not exported from `agenttool/shell`.
 */
export function lastStartTimes(shell: Shell): StartTimes | undefined {
  return startTimes.get(shell);
}

/** Read through a function so that TypeScript does not narrow it across an await. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
