import type { ChildProcess } from 'node:child_process';
import { childProcesses } from './child-processes';
import { randomBytes } from './random-bytes';
import { readFileSync, readdirSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { initScript } from './bash-driver';
import { commandMessage, MARKER_HEX_DIGITS, MARKER_PREFIX } from './command-message';
import { ControlStream } from './control-stream';
import { type SignallerSignal, signallerLine, signallerScript } from './signaller';

/** What a {@link BashProcess} reports; set by its owner, one command at a time. */
export interface BashListener {
  onData(chunk: Buffer): void;
  onStart(pgid: number): void;
  onEnd(status: number): void;
  onExit(reason: string): void;
}

/**
 * How to start one persistent bash: the program that runs it (bash itself, bash inside
 * a sandbox, or `docker exec` into a container), its environment, and what the driver
 * needs to know about where it runs.
 */
export interface ShellLaunch {
  /** The program and its arguments; it must run bash reading commands on stdin. */
  readonly argv: readonly [string, ...string[]];
  /** The environment the program starts with, exactly. */
  readonly env: NodeJS.ProcessEnv;
  /** The directory the program starts in. */
  readonly cwd: string | undefined;
  /** Bash lines run first at start (environment fix-ups the sandbox needs). */
  readonly prelude?: string;
  /** The variables the shell's owner gave it (the rest are its sandbox's or container's). */
  readonly given?: readonly string[];
  /** Directories where bash makes (and at once unlinks) its state files, in order. */
  readonly stateDirs: readonly string[];
  /**
   * A signaller process of its own, for a shell whose process gets no descriptor 3 (in a
   * container). Without one, the signaller is a job of the shell reading descriptor 3.
   */
  readonly signaller?: { readonly argv: readonly [string, ...string[]] };
  /**
   * Bytes the program reads on descriptors {@link LAUNCH_INPUT_FD}, the next one and so
   * on, in order: each a pipe written whole and closed as the program starts (the
   * sandbox's system-call filter, which bubblewrap reads before the shell exists).
   */
  readonly inputs?: readonly Buffer[];
  /** Kills what the launch started beyond the process group we spawned, if anything. */
  readonly kill?: (pid: number) => void;
  /** Frees what the launch holds (a cgroup, say) once the process has exited. */
  readonly release?: () => void;
}

type StdioPipe = 'pipe' | 'ignore';

/** The descriptor of a launch's first input (3 is the signaller's). */
export const LAUNCH_INPUT_FD = 4;

/** How long stderr is read after the shell's process exited, at most, for its last words. */
const STDERR_DRAIN_MS = 250;

const STDERR_TAIL = 2048;

/** A fresh marker for one control line: random, so that no output can guess it. */
function newMarker(): string {
  return `${MARKER_PREFIX}${randomBytes(MARKER_HEX_DIGITS / 2).toString('hex')}`;
}

/**
 * One bash process driven over pipes (see bash-driver.ts). It runs in a session and
 * process group of its own (`detached`), so a signal meant for a command's group, or a
 * Ctrl-C at the host's terminal, never reaches it. Interrupts go through the signaller,
 * which lives where the shell lives; when this process goes away, however it ended, the
 * signaller's input ends and it kills what is left of the shell.
 */
export class BashProcess {
  /** Resolves when bash has run the init script; rejects if it exits or fails first. */
  readonly ready: Promise<void>;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<void>;
  listener: BashListener | undefined;

  private readonly child: ChildProcess;
  private readonly signaller: ChildProcess | undefined;
  private readonly signals: Writable | undefined;
  private readonly stream: ControlStream;
  /** The markers of the command running now, until its end line. */
  private command: { readonly start: string; readonly end: string } | undefined;
  private exitReason: string | undefined;
  private stderrTail = '';
  private resolveReady!: () => void;
  private rejectReady!: (error: Error) => void;

  constructor(private readonly launch: ShellLaunch) {
    const readyMarker = newMarker();
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // A failed start is also reported to whoever awaits `ready`; never unhandled.
    this.ready.catch(() => undefined);
    this.stream = new ControlStream(
      (chunk) => this.listener?.onData(chunk),
      (line) => {
        const command = this.command;
        if (line.marker === readyMarker && line.kind === 'R') this.onReady(Number(line.value));
        else if (line.marker === command?.start && line.kind === 'S') {
          this.listener?.onStart(Number(line.value));
        } else if (line.marker === command?.end && line.kind === 'E') {
          this.command = undefined;
          this.stream.forget(command.start);
          this.listener?.onEnd(Number(line.value));
        }
      },
    );
    this.stream.expect(readyMarker);
    const [file, ...args] = launch.argv;
    const ownSignaller = launch.signaller !== undefined;
    const inputs = launch.inputs ?? [];
    this.child = childProcesses().spawn(file, args, {
      cwd: launch.cwd,
      env: launch.env,
      // fd 3: the signaller's input, unless it runs as a process of its own; then the
      // launch's inputs.
      stdio: [
        'pipe',
        'pipe',
        'pipe',
        ...(ownSignaller && inputs.length === 0 ? [] : [ownSignaller ? 'ignore' : 'pipe']),
        ...inputs.map(() => 'pipe'),
      ] as StdioPipe[],
      detached: true,
    });
    inputs.forEach((bytes, i) => {
      const input = this.child.stdio[LAUNCH_INPUT_FD + i] as Writable | null | undefined;
      // A program that exits before reading it: its exit is reported, not this.
      input?.on('error', () => undefined);
      input?.end(bytes);
    });
    if (launch.signaller !== undefined) {
      const [sfile, ...sargs] = launch.signaller.argv;
      this.signaller = childProcesses().spawn(sfile, sargs, {
        env: launch.env,
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      });
      this.signaller.once('error', () => undefined);
      this.signals = this.signaller.stdin ?? undefined;
    } else {
      this.signals = (this.child.stdio[3] as Writable | null | undefined) ?? undefined;
    }
    // Writing to a process that just died fails with EPIPE; the exit handler reports it.
    this.signals?.on('error', () => undefined);
    this.exited = new Promise<void>((resolve) => {
      const finish = (reason: string) => {
        if (this.exitReason !== undefined) return;
        this.exitReason = reason;
        // A process the command left behind may hold the pipes open; we are done reading.
        // Closing the signaller's input has it kill what is left of the shell.
        for (const stream of this.child.stdio) stream?.destroy();
        this.signals?.destroy();
        if (this.signaller !== undefined) killGroup(this.signaller.pid, 'SIGKILL');
        this.launch.release?.();
        this.rejectReady(new Error(`bash could not start: ${reason}`));
        this.listener?.onExit(reason);
        resolve();
      };
      this.child.once('error', (error) => finish(error.message));
      this.child.once('exit', (code, signal) => {
        const describe = (): void =>
          finish(this.describeExit(code, signal === null ? undefined : signal));
        // What it wrote to stderr just before it exited (bubblewrap's reason for failing
        // to start, which tells a start to try again) may not have been read yet: it is
        // read to the pipe's end first, or for a moment when a process it left holds the
        // pipe open.
        const stderr = this.child.stderr;
        if (stderr === null || stderr.readableEnded || stderr.destroyed) return describe();
        const timer = setTimeout(describe, STDERR_DRAIN_MS);
        stderr.once('end', () => {
          clearTimeout(timer);
          describe();
        });
      });
    });
    this.child.stdout?.on('data', (chunk: Buffer) => this.stream.push(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.child.stdin?.on('error', () => undefined);
    this.write(
      initScript({
        readyMarker,
        stateDirs: launch.stateDirs,
        stateName: randomBytes(12).toString('hex'),
        signallerOnFd3: !ownSignaller,
        given: launch.given ?? Object.keys(launch.env),
        ...(launch.prelude === undefined ? {} : { prelude: launch.prelude }),
      }),
    );
  }

  /** The process id of what was spawned (bash, or what runs it), on this host. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last of what the process wrote on stderr (up to 2 KiB): why it did not start, say. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Why bash exited, or undefined while it runs. */
  get exitedBecause(): string | undefined {
    return this.exitReason;
  }

  /**
   * Starts a command; the listener hears its start, output and end. Each command gets
   * two fresh markers: the end marker follows the command on bash's input, where bash
   * reads it only after the command's job has ended.
   */
  send(command: string): void {
    const markers = { start: newMarker(), end: newMarker() };
    this.command = markers;
    this.stream.expect(markers.start);
    this.stream.expect(markers.end);
    this.write(commandMessage(command, markers.start, markers.end));
  }

  /**
   * Sends `signal` to a command's process group, by the id its start line gave (an id
   * in the shell's own PID namespace), and to what the command started, through the
   * signaller. False once bash is gone or being killed.
   */
  signal(pgid: number | undefined, signal: SignallerSignal): boolean {
    if (pgid === undefined || !Number.isSafeInteger(pgid) || pgid <= 1) return false;
    if (this.exitReason !== undefined || this.signals === undefined) return false;
    if (this.signals.writableEnded) return false;
    this.signals.write(signallerLine(signal, pgid));
    return true;
  }

  /**
   * Kills bash and every process still in its session: the running command and what
   * earlier commands left running in the background. Safe to call at any time.
   */
  kill(): void {
    // The signaller kills the shell's session where it lives (in a sandbox or a
    // container) once its input ends.
    this.signals?.end();
    const pid = this.child.pid;
    if (pid === undefined) return;
    this.launch.kill?.(pid);
    for (const member of sessionMembers(pid)) signalProcess(member, 'SIGKILL');
    killGroup(pid, 'SIGKILL');
  }

  /**
   * Kills bash and its session and waits up to `timeoutMs` for bash to exit, so that
   * nothing of the session is left once this resolves.
   */
  async close(timeoutMs: number): Promise<void> {
    this.kill();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.exited,
      new Promise<void>((resolve) => {
        // Late (the process was busy), it lets the exit that came meanwhile be read first.
        timer = setTimeout(() => setImmediate(resolve), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private onReady(shellPid: number): void {
    // A signaller of its own learns which shell to end when its input ends.
    if (this.signaller !== undefined) this.signals?.write(`SHELL ${shellPid}\n`);
    this.resolveReady();
  }

  private write(text: string): void {
    if (this.exitReason === undefined) this.child.stdin?.write(text);
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | undefined): string {
    const how = signal !== undefined ? `killed by ${signal}` : `exit status ${code ?? '?'}`;
    const stderr = afterJobNotices(this.stderrTail).trim();
    return stderr === '' ? how : `${how}: ${stderr.split('\n').slice(-3).join(' / ')}`;
  }
}

/**
 * What bash wrote on stderr after its last notice of a command's job ("[2]+  Interrupt
 * ( ... ) 2>&1", printed when a command is interrupted): the notice quotes the wrapper
 * each command runs in, which says nothing of why bash exited and is not the user's.
 */
function afterJobNotices(tail: string): string {
  const last = tail.lastIndexOf('__agenttool_');
  if (last === -1) return tail;
  const end = tail.indexOf(WRAPPER_END, last);
  return end === -1 ? '' : tail.slice(end + WRAPPER_END.length);
}

/** How the wrapper a command runs in ends, as bash quotes it in a job's notice. */
const WRAPPER_END = ') 2>&1';

/** The script a container's signaller process runs; see {@link ShellLaunch.signaller}. */
export { signallerScript };

function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined || !Number.isSafeInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The processes whose session is `sid`, read from /proc (Linux). What we spawn leads its
 * own session, so these are it and everything it started that did not leave. Elsewhere
 * the list is empty and only the group is signalled.
 */
function sessionMembers(sid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[3]) === sid) members.push(Number(entry));
  }
  return members;
}
