import { mkdtempSync, rmSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BashProcess } from '../../src/shell/bash-process';
import { ShellJob } from '../../src/shell/shell-job';
import type { SignallerSignal } from '../../src/shell/signaller';
import { socketPair, stall } from '../support/late-input';

// A timer that fires late (this process was busy for longer than its delay) runs before
// the input that came meanwhile is read: Node runs due timers before it polls, and a
// timer set while the loop is busy counts from the loop's last tick. These tests stall
// the loop while bash's end line is on its way, as a long GC pause or a descheduled
// process would, and check that the job reads it before acting on the timer.

const fakes: FakeBash[] = [];
afterEach(() => {
  for (const fake of fakes.splice(0)) fake.close();
});

/**
 * A stand-in for bash: what the job sends it is recorded, and an end line written to it
 * comes back through a real socket of this process's own, so that it is input the loop
 * has to read (and is there to read as soon as it is written).
 */
class FakeBash {
  readonly signals: SignallerSignal[] = [];
  killed = false;
  onSignal: (signal: SignallerSignal) => void = () => undefined;

  private constructor(
    private readonly writer: Socket,
    private readonly server: Server,
    private readonly dir: string,
  ) {}

  static async connected(job: ShellJob): Promise<FakeBash> {
    const dir = mkdtempSync(join(tmpdir(), 'shell-job-test-'));
    const { server, writer, reader } = await socketPair(join(dir, 'bash.sock'));
    const bash = new FakeBash(writer, server, dir);
    const listener = job.listener(bash as unknown as BashProcess, {});
    reader.on('data', (chunk: Buffer) => {
      const status = /^E (\d+)$/m.exec(chunk.toString())?.[1];
      if (status !== undefined) listener.onEnd(Number(status));
    });
    listener.onStart(4242);
    return bash;
  }

  /** Writes the end line bash would write for `status`; it arrives as input later. */
  end(status: number): void {
    this.writer.write(`E ${status}\n`);
  }

  signal(_pgid: number | undefined, signal: SignallerSignal): boolean {
    this.signals.push(signal);
    this.onSignal(signal);
    return true;
  }

  kill(): void {
    this.killed = true;
  }

  close(): void {
    this.writer.destroy();
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A job on a fake bash, as the shell makes one for a command. */
async function newJob(interruptGraceMs: number): Promise<{ job: ShellJob; bash: FakeBash }> {
  const made: { bash?: FakeBash } = {};
  const job = new ShellJob({
    maxOutputBytes: 1024,
    interruptGraceMs,
    bash: () => made.bash as unknown as BashProcess | undefined,
    onSettle: () => undefined,
  });
  const bash = await FakeBash.connected(job);
  made.bash = bash;
  fakes.push(bash);
  return { job, bash };
}

describe('ShellJob after a stall', () => {
  it('takes an end line that came during the SIGKILL grace rather than replacing bash', async () => {
    const grace = 40;
    const { job, bash } = await newJob(grace);
    // The job ignores SIGINT and SIGTERM; SIGKILL ends it, and its end line comes while
    // this process is stalled for longer than the grace bash has to report it.
    bash.onSignal = (signal) => {
      if (signal !== 'KILL') return;
      setImmediate(() => {
        bash.end(137);
        stall(grace * 4);
      });
    };
    job.interrupt();
    const { exitCode } = await job.done;
    expect(bash.signals).toEqual(['INT', 'INT', 'TERM', 'KILL']);
    expect(bash.killed).toBe(false);
    expect(exitCode).toBe(137);
    expect(job.result(exitCode)).toMatchObject({ exitCode: 137, interrupted: true });
  });

  it('does not report as timed out a command whose end came before a late timeout', async () => {
    const { job, bash } = await newJob(1000);
    job.timeOutAfter(20);
    // The command ends well before its timeout, but the loop is busy until after it.
    bash.end(0);
    stall(120);
    const { exitCode } = await job.done;
    expect(bash.signals).toEqual([]);
    expect(job.result(exitCode)).toMatchObject({
      exitCode: 0,
      timedOut: false,
      interrupted: false,
    });
  });

  it('goes on to the SIGKILL after the job ended on the first SIGINT, for what it left', async () => {
    const grace = 20;
    const { job, bash } = await newJob(grace);
    // The command ends at once, by its first SIGINT; what it left ignores it.
    bash.onSignal = () => {
      if (bash.signals.length === 1) bash.end(130);
    };
    job.interrupt();
    const { exitCode } = await job.done;
    expect(exitCode).toBe(130);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (bash.signals.length < 4) return;
        clearInterval(check);
        resolve();
      }, 5);
    });
    // Some graces after the SIGKILL: bash, which reported the end, is not replaced.
    await new Promise((resolve) => setTimeout(resolve, grace * 5));
    expect(bash.signals).toEqual(['INT', 'INT', 'TERM', 'KILL']);
    expect(bash.killed).toBe(false);
    expect(job.result(exitCode)).toMatchObject({ exitCode: 130, interrupted: true });
  });

  it('still replaces bash when no end line comes after the SIGKILL', async () => {
    const { job, bash } = await newJob(20);
    job.interrupt();
    // Nothing answers: the last step replaces bash, and the job ends without a status.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (!bash.killed) return;
        clearInterval(check);
        resolve();
      }, 5);
    });
    expect(bash.signals).toEqual(['INT', 'INT', 'TERM', 'KILL']);
    expect(job.endedByUs).toBe(true);
  });
});
