import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandSnippet, endMarkerLine, initScript } from './bash-driver';
import { ControlStream } from './control-stream';

/** What a {@link BashProcess} reports; set by its owner, one command at a time. */
export interface BashListener {
  onData(chunk: Buffer): void;
  onStart(pgid: number): void;
  onEnd(status: number): void;
  onExit(reason: string): void;
}

/** How to start bash. */
export interface BashSpawnOptions {
  readonly command: readonly [string, ...string[]];
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv | undefined;
}

const STDERR_TAIL = 2048;

/** A fresh marker for one control line: random, so that no output can guess it. */
function newMarker(): string {
  return `__AGENTTOOL_${randomBytes(16).toString('hex')}`;
}

/**
 * One bash process driven over pipes (see bash-driver.ts). It runs in a session and
 * process group of its own (`detached`), so a signal meant for a command's group, or a
 * Ctrl-C at the host's terminal, never reaches it. A fourth pipe, which only this
 * process holds the other end of, lets bash's watchdog kill the session when this
 * process is gone, however it ended.
 *
 * Its state file lives in a directory of its own (mode 0700: only its owner reads it),
 * removed when bash exits and again by {@link BashProcess.close}.
 */
export class BashProcess {
  /** Resolves when bash has run the init script; rejects if it exits or fails first. */
  readonly ready: Promise<void>;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<void>;
  listener: BashListener | undefined;

  private readonly child: ChildProcess;
  private readonly stateDir: string;
  private readonly stream: ControlStream;
  /** The markers of the command running now, until its end line. */
  private command: { readonly start: string; readonly end: string } | undefined;
  private exitReason: string | undefined;
  private stderrTail = '';
  private resolveReady!: () => void;
  private rejectReady!: (error: Error) => void;

  constructor(options: BashSpawnOptions) {
    const readyMarker = newMarker();
    // mkdtemp makes the directory with mode 0700.
    this.stateDir = mkdtempSync(join(tmpdir(), 'agenttool-shell-'));
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
        if (line.marker === readyMarker && line.kind === 'R') this.resolveReady();
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
    const [file, ...args] = options.command;
    this.child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      // fd 3: the watchdog's pipe; we never write to it, its end of file is our end.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.exited = new Promise<void>((resolve) => {
      const finish = (reason: string) => {
        if (this.exitReason !== undefined) return;
        this.exitReason = reason;
        this.removeState();
        // A process the command left behind may hold the pipes open; we are done reading.
        // Closing the watchdog's pipe has it kill what is left of the session.
        for (const stream of this.child.stdio) stream?.destroy();
        this.rejectReady(new Error(`bash could not start: ${reason}`));
        this.listener?.onExit(reason);
        resolve();
      };
      this.child.once('error', (error) => finish(error.message));
      this.child.once('exit', (code, signal) =>
        finish(this.describeExit(code, signal === null ? undefined : signal)),
      );
    });
    this.child.stdout?.on('data', (chunk: Buffer) => this.stream.push(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // Writing to a bash that just died fails with EPIPE; the exit handler reports it.
    this.child.stdin?.on('error', () => undefined);
    this.write(initScript(readyMarker, join(this.stateDir, 'state')));
  }

  /** The process id of bash, which is also its process group id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why bash exited, or undefined while it runs. */
  get exitedBecause(): string | undefined {
    return this.exitReason;
  }

  /**
   * Starts a command; the listener hears its start, output and end. Each command gets
   * two fresh markers: the end marker follows the snippet on bash's input, where bash
   * reads it only after the command's job has ended.
   */
  send(command: string): void {
    const markers = { start: newMarker(), end: newMarker() };
    this.command = markers;
    this.stream.expect(markers.start);
    this.stream.expect(markers.end);
    this.write(commandSnippet(command, markers.start) + endMarkerLine(markers.end));
  }

  /**
   * Kills bash and every process still in its session: the running command and what
   * earlier commands left running in the background. Safe to call at any time.
   */
  kill(): void {
    const sid = this.child.pid;
    if (sid === undefined) return;
    for (const pid of sessionMembers(sid)) signalProcess(pid, 'SIGKILL');
    signalGroup(sid, 'SIGKILL');
  }

  /**
   * Kills bash and its session, waits up to `timeoutMs` for bash to exit, and removes
   * the state directory whatever happened, so that nothing of the session's state is
   * left once this resolves.
   */
  async close(timeoutMs: number): Promise<void> {
    this.kill();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    this.removeState();
  }

  private removeState(): void {
    // Retries: a killed job's last rename may land while the directory is being emptied.
    rmSync(this.stateDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 10 });
  }

  private write(text: string): void {
    if (this.exitReason === undefined) this.child.stdin?.write(text);
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | undefined): string {
    const how = signal !== undefined ? `killed by ${signal}` : `exit status ${code ?? '?'}`;
    const stderr = this.stderrTail.trim();
    return stderr === '' ? how : `${how}: ${stderr.split('\n').slice(-3).join(' / ')}`;
  }
}

/**
 * Sends a signal to a process group; a group that is already gone is not an error.
 * Returns false when there was no such group.
 */
export function signalGroup(pgid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pgid === undefined || !Number.isSafeInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
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
 * The processes whose session is `sid`, read from /proc (Linux). Bash leads its own
 * session, so these are bash and everything it started that did not leave. Elsewhere
 * the list is empty and only bash's own group is signalled.
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
