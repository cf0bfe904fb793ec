import { Console } from 'node:console';
import { dirname, sep } from 'node:path';
import { Writable } from 'node:stream';
import { CliError, ExitCode } from './exit-codes';

/** How long a fatal error waits for the open target to close before exiting anyway. */
export const FATAL_CLOSE_LIMIT_MS = 5000;

/**
 * The process's stdout kept for the command's results (under `serve --stdio`, the
 * protocol): what a module's code prints goes to stderr instead.
 */
export interface GuardedStdout {
  /**
   * Writes to the real stdout; give it to the command as its stdout. `isTTY` is the
   * real stdout's (a result on a terminal is shown safe, see terminal-text.ts).
   */
  readonly results: Writable & { readonly isTTY: boolean };
  /** Resolves once everything written to {@link results} has reached stdout. */
  flush(): Promise<void>;
}

/**
 * Sends what module code prints to stderr: every method of the global `console`
 * (`log`, `dir`, `table`, `count`, `time`, `group`, ...) and `process.stdout.write`.
 * The command's own results go through the returned stream. A reader that closed
 * stdout early (EPIPE) ends the output quietly; the command keeps its exit code. Any
 * other failure to write stdout (ENOSPC on a full disk, EIO, EFBIG) is a
 * {@link StdoutWriteError}, thrown for {@link exitOnFatalErrors} to report as one line
 * and exit with {@link ExitCode.OUTPUT}; what follows is dropped.
 * Output written to file descriptor 1 directly (`fs.writeSync(1, ...)`, a child
 * process that inherits stdout) cannot be caught this way.
 */
export function guardStdout(): GuardedStdout {
  const stdout = process.stdout;
  const stderr = process.stderr;
  const toStderr = new Console({ stdout: stderr, stderr });
  // Console binds its methods to itself: copying them keeps its counters and groups,
  // and reaches code that holds the console object (require('node:console') too).
  const target = console as unknown as Record<string, unknown>;
  for (const [name, method] of Object.entries(toStderr)) {
    if (typeof method === 'function') target[name] = method;
  }
  const realWrite = stdout.write.bind(stdout);
  stdout.write = stderr.write.bind(stderr);
  let broken = false;
  const ignoreBrokenPipe = (error: NodeJS.ErrnoException): void => {
    if (broken) return;
    broken = true;
    if (error.code === 'EPIPE') return;
    // The output is lost: let the fatal handler report it (and close what is open).
    const failure = typeof error.code === 'string' ? new StdoutWriteError(error) : error;
    queueMicrotask(() => {
      throw failure;
    });
  };
  stdout.on('error', ignoreBrokenPipe);
  const results = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (broken) return callback();
      realWrite(chunk, (error?: Error | null) => {
        if (error !== undefined && error !== null) ignoreBrokenPipe(error);
        callback();
      });
    },
  });
  return {
    results: Object.assign(results, { isTTY: stdout.isTTY === true }),
    flush: () =>
      new Promise((resolve) => {
        if (results.writableFinished || results.destroyed) return resolve();
        results.once('finish', resolve);
        results.end();
      }),
  };
}

/**
 * A write to stdout failed with a system error other than EPIPE: the disk is full
 * (ENOSPC), an I/O error (EIO), a file past its size limit (EFBIG). The command's output
 * is lost; it exits with {@link ExitCode.OUTPUT}.
 */
export class StdoutWriteError extends CliError {
  constructor(cause: NodeJS.ErrnoException) {
    // "ENOSPC: no space left on device, write" reads "no space left on device (ENOSPC)".
    const code = cause.code ?? 'unknown';
    const what = cause.message.replace(/^[A-Z0-9_]+: /, '').replace(/, write$/, '');
    super(ExitCode.OUTPUT, `writing to stdout failed: ${what} (${code})`, { cause });
    this.name = 'StdoutWriteError';
  }
}

/** Closers of what the command has open (its target, its server), for a fatal error. */
export class OpenResources {
  readonly #closers = new Set<() => Promise<void>>();

  /** Registers `close`; the returned function unregisters it. */
  track(close: () => Promise<void>): () => void {
    this.#closers.add(close);
    return () => this.#closers.delete(close);
  }

  /** Closes everything registered, waiting at most `limitMs`. */
  async closeAll(limitMs: number): Promise<void> {
    const closing = Promise.allSettled([...this.#closers].map((close) => close()));
    this.#closers.clear();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
    await Promise.race([closing, limit]);
    clearTimeout(timer);
  }
}

/**
 * Reports an uncaught exception or an unhandled rejection as one `agenttool:` line with
 * the stack, closes what is open (at most {@link FATAL_CLOSE_LIMIT_MS}) and exits with
 * {@link ExitCode.INTERNAL}; `failing` tells the command not to exit meanwhile. The
 * message says whether the error came from the module's code (the first frame of its
 * stack lies in neither agenttool nor a package) or, as far as can be told, from
 * agenttool itself. A {@link StdoutWriteError} (stdout could not be written) is its one
 * line, without a stack, and exits with {@link ExitCode.OUTPUT}.
 */
export function exitOnFatalErrors(
  resources: OpenResources,
  stderr: NodeJS.WritableStream,
): { readonly failing: boolean } {
  const state = { failing: false };
  const fatal = (kind: string) => (error: unknown) => {
    if (state.failing) return;
    state.failing = true;
    const output = error instanceof StdoutWriteError;
    stderr.write(`${output ? `agenttool: ${error.message}` : describeFatal(kind, error)}\n`);
    const code = output ? ExitCode.OUTPUT : ExitCode.INTERNAL;
    void resources.closeAll(FATAL_CLOSE_LIMIT_MS).finally(() => process.exit(code));
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled rejection'));
  return state;
}

/** The line a fatal error is reported with. */
export function describeFatal(kind: string, error: unknown): string {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return fromModuleCode(error)
    ? `agenttool: the module's code left an error unhandled (${kind}): ${detail}`
    : `agenttool: internal error (${kind}): ${detail}`;
}

// agenttool's own files (this folder's parent: dist/src, or src under a test runner).
const OWN_FILES = `${dirname(__dirname)}${sep}`;

function fromModuleCode(error: unknown): boolean {
  if (!(error instanceof Error) || error.stack === undefined) return false;
  const frame = error.stack
    .split('\n')
    .map((line) => /^\s+at (?:.*\()?(.+?):\d+:\d+\)?$/.exec(line)?.[1])
    .find((file) => file !== undefined && !file.startsWith('node:'));
  return frame !== undefined && !frame.startsWith(OWN_FILES) && !frame.includes('node_modules');
}
