import type * as ChildProcesses from 'node:child_process';
import { type ChildProcess } from 'node:child_process';
import { type PassThrough } from 'node:stream';
import type * as ClientStdio from '@modelcontextprotocol/client/stdio';
import { guardGroup, prepareGroupGuard } from './group-guard';
import { clientStdio } from './sdk-modules';

/** How long a server has to exit once its stdin is closed, before it is signalled (the SDK's). */
const STDIN_GRACE_MS = 2000;
/** How long a server's process group has after SIGTERM, on close, before SIGKILL (the SDK's). */
const TERM_GRACE_MS = 2000;
/** The same for the SDK's probe of the protocol era on a second process (the SDK's). */
const PROBE_TERM_GRACE_MS = 1000;
/** How often a signalled group is looked at, until it is empty. */
const POLL_MS = 20;

// node:child_process costs 1-2 ms to load, and a server that only serves never spawns one.
let childProcesses: typeof ChildProcesses | undefined;

/** node:child_process, loaded on the first server spawned. */
function spawn(...args: Parameters<typeof ChildProcesses.spawn>): ChildProcess {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  childProcesses ??= require('node:child_process') as typeof ChildProcesses;
  return childProcesses.spawn(...args);
}

type StdioTransport = ClientStdio.StdioClientTransport;
type StdioTransportClass = typeof ClientStdio.StdioClientTransport;

/** What of the SDK's stdio client transport (2.4.0, pinned) this reads and writes. */
interface Internals {
  _process?: ChildProcess | undefined;
  _readBuffer: { append(chunk: Buffer): void; clear(): void };
  _serverParams: ClientStdio.StdioServerParameters;
  _stderrStream: PassThrough | null;
  processReadBuffer(): void;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
}

let made: StdioTransportClass | undefined;

/**
 * The SDK's stdio client transport, made to start the server in a process group of its
 * own and to stop that whole group: a server started through a wrapper (`sh -c 'node
 * server.js & wait'`, `npx ...`, a shell script) leaves processes of its own behind when
 * only the process the transport started is signalled, and a background job of a shell
 * does not even take the Ctrl-C of the terminal. Close ends the server's stdin, gives it
 * the SDK's 2 s to exit, then sends SIGTERM to the group (also when the server exited by
 * itself and left processes behind), and SIGKILL to what is left 2 s later. The SDK's
 * probe of the protocol era, which it runs on a second process of the same class, is
 * stopped the same way. On Windows, which has no process groups, the SDK's own class.
 *
 * Its group is its own: Ctrl-C at a terminal reaches the command, not the server, and
 * the command's close stops the server. When this process exits with a server it did not
 * close (`process.exit`), the server's group is sent SIGTERM; when it dies outright
 * (SIGKILL, an OOM kill), a guard process sends the group SIGTERM, then SIGKILL to what
 * is left 2 s later (group-guard.ts): a server that does not exit at the end of its stdin
 * does not outlive it either way.
 */
export function groupedStdioTransport(): StdioTransportClass {
  if (made !== undefined) return made;
  const Base = clientStdio().StdioClientTransport;
  if (process.platform === 'win32') return (made = Base);
  const { getDefaultEnvironment } = clientStdio();

  class GroupedStdioTransport extends Base {
    override start(): Promise<void> {
      const self = this as unknown as Internals;
      if (self._process !== undefined) {
        throw new Error(
          'StdioClientTransport already started! If using Client class, note that connect() calls start() automatically.',
        );
      }
      const params = self._serverParams;
      return new Promise((resolve, reject) => {
        prepareGroupGuard(spawn);
        // As the SDK's start, in a new process group (and session) led by the server.
        const child = spawn(params.command, params.args ?? [], {
          env: { ...getDefaultEnvironment(), ...params.env },
          stdio: ['pipe', 'pipe', params.stderr ?? 'inherit'],
          shell: false,
          ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
          detached: true,
        });
        self._process = child;
        guardGroup(spawn, child);
        child.on('error', (error) => {
          reject(error);
          self.onerror?.(error);
        });
        child.on('spawn', () => {
          stopAtExit(child);
          resolve();
        });
        child.on('close', () => {
          self._process = undefined;
          self.onclose?.();
        });
        child.stdin?.on('error', (error) => self.onerror?.(error));
        child.stdout?.on('data', (chunk: Buffer) => {
          try {
            self._readBuffer.append(chunk);
            self.processReadBuffer();
          } catch (error) {
            self.onerror?.(error as Error);
            this.close().catch(() => undefined);
          }
        });
        child.stdout?.on('error', (error) => self.onerror?.(error));
        // A server that closed its stdout answers nothing more, even if it runs on: the
        // connection ends now, failing what waits, rather than at each call's timeout.
        child.stdout?.on('end', () => {
          if (self._process === child) this.close().catch(() => undefined);
        });
        if (self._stderrStream !== null && child.stderr !== null) {
          child.stderr.pipe(self._stderrStream);
        }
      });
    }

    override async close(): Promise<void> {
      const self = this as unknown as Internals;
      const child = self._process;
      if (child !== undefined) {
        self._process = undefined;
        try {
          child.stdin?.end();
        } catch {
          // Closed already.
        }
        // The process's exit, not its pipes' close: a process it left may hold those.
        await within(exited(child), STDIN_GRACE_MS);
        await stopGroup(child, TERM_GRACE_MS);
      }
      self._readBuffer.clear();
    }
  }

  // The SDK probes the protocol era on a second process of the transport's class when
  // that class's prototype has its own `_dispose` (the SDK's reaper of the probe; a
  // subclass without one is probed in place, which a server that exits on an early
  // request does not survive). This one stops the probe's group, signal first.
  Object.defineProperty(GroupedStdioTransport.prototype, '_dispose', {
    configurable: true,
    writable: true,
    value: async function dispose(this: StdioTransport): Promise<void> {
      const self = this as unknown as Internals;
      const child = self._process;
      self._process = undefined;
      if (child !== undefined) {
        try {
          child.stdin?.end();
        } catch {
          // Closed already.
        }
        await stopGroup(child, PROBE_TERM_GRACE_MS);
        child.stdout?.destroy();
        child.stdin?.destroy();
        child.stderr?.destroy();
      }
      self._readBuffer.clear();
    },
  });
  return (made = GroupedStdioTransport);
}

/** The servers started here whose process still runs, for the stop at this process's exit. */
const running = new Set<ChildProcess>();

/**
 * Sends SIGTERM to the server's group if its process still runs when this process exits
 * without having closed it. A group whose leader has exited is left alone: its id may be
 * another group's by then.
 */
function stopAtExit(child: ChildProcess): void {
  if (running.size === 0) process.once('exit', stopRunning);
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    if (running.size === 0) process.off('exit', stopRunning);
  });
}

function stopRunning(): void {
  for (const child of running) {
    if (child.pid !== undefined && isRunning(child)) signalGroup(child.pid, 'SIGTERM');
  }
}

/**
 * Stops the server's process group: SIGTERM to every process in it (the server, when
 * it still runs, and what it started), then, when some are still there once `graceMs`
 * has passed, SIGKILL; resolves once the server's process has exited (at most 2 s more).
 */
async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  const group = child.pid;
  if (group === undefined) return;
  if (signalGroup(group, 'SIGTERM') && !(await emptied(group, graceMs))) {
    signalGroup(group, 'SIGKILL');
  }
  // A server that left its group (a setsid of its own) is not reached by the group's
  // signals: it is stopped by its own id, as the SDK stops it.
  if (isRunning(child)) {
    child.kill('SIGTERM');
    await within(exited(child), graceMs);
    if (isRunning(child)) child.kill('SIGKILL');
  }
  await within(exited(child), TERM_GRACE_MS);
}

/** Sends `signal` to the process group; false when it has no process left. */
function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch (error) {
    // EPERM: a process of the group is another user's (a set-user-id program); it is
    // there all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves true once the group has no process left, false after `ms`. */
async function emptied(group: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += POLL_MS) {
    if (!signalGroup(group, 0)) return true;
    await delay(POLL_MS);
  }
  return !signalGroup(group, 0);
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function exited(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Resolves once `promise` does, or after `ms`. The timer holds this process meanwhile (a
 * close must not be cut short by an event loop that has nothing else left), and is
 * cleared at once when `promise` settles first.
 */
async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
