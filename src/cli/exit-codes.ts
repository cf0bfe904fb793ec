import { AgentToolError, type AgentToolErrorCode } from './public-api';

/**
 * The exit codes of the `agenttool` command. A script can tell from the code alone
 * whether the tool ran and failed, the command line was wrong, or the tools could not
 * be reached.
 */
export const ExitCode = {
  /** The command did what was asked (for `call`: the tool succeeded). */
  OK: 0,
  /**
   * `call`: the tool ran and failed (an error result); `get-prompt`, `read-resource`: the
   * prompt or the read ran and failed. The error is printed on stderr.
   */
  TOOL_ERROR: 1,
  /**
   * The command line was wrong: an unknown command, option, tool or prompt, a URI the
   * target does not serve, arguments that are not JSON or do not fit the tool's schema
   * (or the prompt's: a required argument missing), a module file that cannot be used.
   */
  BAD_ARGUMENTS: 2,
  /**
   * The tools could not be reached: a server that would not start or connect, a
   * connection lost mid-call, an app whose module failed to build.
   */
  CONNECTION: 3,
  /**
   * An unexpected failure: a bug in agenttool, or an error the module's code left
   * unhandled (an uncaught exception, an unhandled rejection); the stack is printed.
   */
  INTERNAL: 70,
  /**
   * The output could not be written: a write to stdout failed (a full disk, an I/O
   * error, a file past its size limit). sysexits' EX_IOERR, beside 70 (EX_SOFTWARE): the
   * command may have done its work (a call's tool ran), but its result is lost. A reader
   * that closed stdout early (`| head`) is not this: the output ends quietly.
   */
  OUTPUT: 74,
  /** Interrupted (Ctrl-C or SIGTERM) before the call completed. */
  INTERRUPTED: 130,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The help text that lists the exit codes. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    the tool, the prompt or the read ran and failed (call, get-prompt,
       read-resource)
  2    bad arguments: unknown command, option, tool or prompt; a URI the target does
       not serve; arguments that are not JSON or do not fit the tool's schema (or the
       prompt's arguments); a module file that cannot be used
  3    connection failure: the server or app could not be started or reached, or the
       connection was lost
  70   internal error: a bug in agenttool, or an error the module's code left
       unhandled (uncaught exception, unhandled rejection); the stack is printed
  74   the output could not be written: a write to stdout failed (a full disk, an
       I/O error); the command may have done its work
  130  interrupted (Ctrl-C)`;

/** The {@link AgentToolError} code of each exit code, so a CliError says what happened. */
const CODES: Readonly<Record<ExitCode, AgentToolErrorCode>> = {
  [ExitCode.OK]: 'INTERNAL',
  [ExitCode.TOOL_ERROR]: 'TOOL_FAILED',
  [ExitCode.BAD_ARGUMENTS]: 'INVALID_COMMAND',
  [ExitCode.CONNECTION]: 'CONNECTION',
  [ExitCode.INTERNAL]: 'INTERNAL',
  // Writing to another process or a file failed: the nearest of the codes.
  [ExitCode.OUTPUT]: 'CONNECTION',
  [ExitCode.INTERRUPTED]: 'CANCELLED',
};

/**
 * A failure the command reports as one line on stderr and an exit code; the message
 * says what was wrong and how to fix it. Its `code` follows the exit code
 * (`INVALID_COMMAND` for bad arguments, `CONNECTION`, `TOOL_FAILED`, ...).
 */
export class CliError extends AgentToolError {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CODES[exitCode], message, options);
    this.name = 'CliError';
  }
}
