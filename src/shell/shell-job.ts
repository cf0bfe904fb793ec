import { StringDecoder } from 'node:string_decoder';
import type { BashListener, BashProcess } from './bash-process';
import { BoundedOutput } from './bounded-output';
import type { RunOptions, ShellResult } from './shell-options';
import type { SignallerSignal } from './signaller';

/** The longest delay a timer takes; a longer one would fire at once (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The escalation after an interrupt, each step after a delay (a fraction of the grace):
 * SIGINT once more soon, because a program that was starting when the first arrived can
 * miss it; then SIGTERM, then SIGKILL. It runs to the SIGKILL even once the job has
 * ended, for what the command left running. After the last step, when bash has still not
 * reported the job's end, bash itself is replaced.
 */
const ESCALATION: readonly { readonly signal: SignallerSignal; readonly after: number }[] = [
  { signal: 'INT', after: 0 },
  { signal: 'INT', after: 0.1 },
  { signal: 'TERM', after: 0.9 },
  { signal: 'KILL', after: 1 },
];

/** How a job ended: bash's status for it (null when there is none), or why it failed. */
type Outcome = { readonly exitCode: number | null } | { readonly error: Error };

/**
 * One command of a {@link Shell} from its `run` to its end: its bounded output, its
 * process group once bash reports it, and its interrupt, escalated from SIGINT to
 * replacing bash. It settles once, whichever way it ends.
 */
export class ShellJob {
  readonly output: BoundedOutput;
  pgid: number | undefined;
  interruptRequested = false;
  timedOut = false;
  /** We ended the shell under this job (restart, close, or a wedged bash). */
  endedByUs = false;
  callbackError: { error: unknown } | undefined;
  /** Resolves once the job has settled, whichever way. */
  readonly ended: Promise<void>;
  /** Bash's status for the command; rejects with the error the job settled with. */
  readonly done: Promise<{ exitCode: number | null }>;
  /** The timeout's timer, cleared as the job settles. */
  #timeout: NodeJS.Timeout | undefined;
  /** The escalation replaced bash, which never reported the job's end after SIGKILL. */
  #replacedWedged = false;
  readonly #graceMs: number;
  /** The shell's bash now (an interrupt reaches the command through it). */
  readonly #bash: () => BashProcess | undefined;
  readonly #onSettle: () => void;
  #settled = false;
  #finish!: (outcome: Outcome) => void;

  constructor(options: {
    readonly maxOutputBytes: number;
    readonly interruptGraceMs: number;
    readonly bash: () => BashProcess | undefined;
    /** Called once, as the job settles (the shell takes a next command from then). */
    readonly onSettle: () => void;
  }) {
    this.output = new BoundedOutput(options.maxOutputBytes);
    this.#graceMs = options.interruptGraceMs;
    this.#bash = options.bash;
    this.#onSettle = options.onSettle;
    let markEnded!: () => void;
    this.ended = new Promise<void>((resolve) => (markEnded = resolve));
    this.done = new Promise((resolve, reject) => {
      this.#finish = (outcome) => {
        if ('error' in outcome) reject(outcome.error);
        else resolve(outcome);
        markEnded();
      };
    });
    // Settled with an error only on paths that throw that error themselves.
    this.done.catch(() => undefined);
  }

  /** Ends the job with `outcome`; later calls do nothing. */
  settle(outcome: Outcome): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#onSettle();
    clearTimeout(this.#timeout);
    this.#finish(outcome);
  }

  /** Interrupts the job after `ms` as timed out (a delay longer than a timer holds is none). */
  timeOutAfter(ms: number): void {
    if (ms > MAX_TIMER_MS) return;
    this.#timeout = setTimeout(
      () =>
        this.#afterInputRead(() => {
          if (this.#settled) return;
          this.timedOut = true;
          this.interrupt();
        }),
      ms,
    );
  }

  /** What `run` answers for the job, with bash's `exitCode`. */
  result(exitCode: number | null): ShellResult {
    return {
      output: this.output.text(),
      exitCode,
      interrupted: this.interruptRequested,
      timedOut: this.timedOut,
      truncated: this.output.truncated,
    };
  }

  /** Asks the job to stop: now if its process group is known, else as soon as it is. */
  interrupt(): void {
    if (this.interruptRequested || this.#settled) return;
    this.interruptRequested = true;
    const bash = this.#bash();
    if (this.pgid !== undefined && bash !== undefined) this.#escalate(bash, 0);
  }

  /** What `bash` tells about this job, with `options`' callbacks called on its news. */
  listener(bash: BashProcess, options: RunOptions): BashListener {
    const { onStart, onOutput } = options;
    const decoder = new StringDecoder('utf8');
    const call = (fn: () => void) => {
      try {
        fn();
      } catch (error) {
        this.callbackError ??= { error };
        this.interrupt();
      }
    };
    return {
      onData: (chunk) => {
        this.output.push(chunk);
        if (onOutput !== undefined) {
          const text = decoder.write(chunk);
          if (text !== '') call(() => onOutput(text));
        }
      },
      onStart: (pgid) => {
        this.pgid = pgid;
        // An interrupt asked for before now waits for this news; send it once.
        const pending = this.interruptRequested;
        if (onStart !== undefined) call(() => onStart(pgid));
        if (pending) this.#escalate(bash, 0);
      },
      onEnd: (status) => {
        bash.listener = undefined;
        this.settle({ exitCode: this.endedByUs ? null : status });
      },
      onExit: (reason) => {
        if (this.#replacedWedged) {
          this.settle({
            error: new Error(
              `the shell stopped answering: the command ${this.timedOut ? 'timed out and ' : ''}was sent SIGINT, SIGTERM and SIGKILL, yet bash never reported its end (bash itself was stopped, as \`kill -STOP $$\` does, or hung), so it was replaced; its state (working directory, variables, functions) is lost: the next command starts in a new shell, where what set them up must run again`,
            ),
          });
        } else if (this.endedByUs) this.settle({ exitCode: null });
        else {
          this.settle({
            error: new Error(
              `the shell exited while the command was running (${reason}); its state is lost, and the next command starts a new shell`,
            ),
          });
        }
      },
    };
  }

  /**
   * Sends step `step` of the escalation and sets the timer of the next. It goes on after
   * the job has settled: a command that ends by the first SIGINT may leave processes that
   * ignore it (a worker pool's children, in its group) or that it started in groups and
   * sessions of their own; they get the rest, up to the SIGKILL, while the next command
   * may already run (the signaller knows them by what it saw at the first step, never by
   * the shell's later jobs). Replacing bash is only for a job that never ended.
   */
  #escalate(bash: BashProcess, step: number): void {
    const current = ESCALATION[step];
    if (current === undefined) {
      if (this.#settled) return;
      // Even SIGKILL brought no end from bash: it is wedged (stopped, say), so replace it.
      this.#replacedWedged = true;
      this.endedByUs = true;
      bash.kill();
      return;
    }
    // Bash gone (restarted, closed or dead): no signaller is left to send through.
    if (!bash.signal(this.pgid, current.signal)) return;
    const next = ESCALATION[step + 1];
    if (next === undefined && this.#settled) return;
    const timer = setTimeout(
      () => this.#afterInputRead(() => this.#escalate(bash, step + 1)),
      Math.min((next?.after ?? 1) * this.#graceMs, MAX_TIMER_MS),
    );
    // While bash runs, its pipes keep this process up; once it is gone, nothing is left
    // for the escalation to do, and its timer holds nothing open.
    timer.unref();
  }

  /**
   * Runs `action` once what bash has already written is read. A timer that fires late
   * (this process was busy, or was not scheduled, for longer than the delay) runs before
   * the input that came during that time is read: a command that ended in time would be
   * reported timed out, or its shell replaced after its end line had come. The input
   * waiting is read before the next `setImmediate`.
   */
  #afterInputRead(action: () => void): void {
    setImmediate(action);
  }
}
