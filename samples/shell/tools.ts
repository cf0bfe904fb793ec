import {
  Annotations,
  Confined,
  type Confinement,
  Param,
  Replay,
  Resource,
  type Result,
  Tool,
  type ToolContext,
  errorMessage,
  recordable,
} from 'agenttool';
import { Shell, type ShellResult } from './shell';

/** The resource both shell tools name, so that one batch runs their calls in order. */
export const SHELL_RESOURCE = 'shell:session';

/** The namespace of the record a bash call writes the moment its command starts. */
export const PROCESS_GROUP_RECORD = 'shell:process-group';

/**
 * The environment variable that names the sandbox this process runs in (for example
 * `container:agent`). The shell sets up no sandbox of its own, so the bash tool reports
 * its calls as confined only when whoever started the process says so here.
 */
export const SANDBOX_ENV = 'AGENTTOOL_SANDBOX';

/** Whether this process, and so the shell it starts, runs in a sandbox, by the environment. */
export function processConfinement(env: NodeJS.ProcessEnv = process.env): Confinement {
  const by = env[SANDBOX_ENV]?.trim() ?? '';
  return by === '' ? { confined: false, by: '' } : { confined: true, by };
}

export class BashArgs {
  @Param(
    'The command line to run, in bash syntax. The working directory, variables, functions and aliases persist from one call to the next.',
  )
  command!: string;

  @Param('Interrupt the command after this many seconds; by default it runs until it ends', {
    optional: true,
    type: 'integer',
  })
  timeout_seconds?: number;
}

/**
 * Runs a command in the persistent shell. Interrupting the call (aborting its signal)
 * interrupts the command and keeps the shell; a call while another command runs is
 * refused with `the previous command is still running`. The command's process group is
 * recorded (`shell:process-group`, `{"pgid": N}`) as it starts, so a host that loses the
 * call can still stop what it started.
 */
@Tool({
  name: 'bash',
  description:
    'Run a command in a persistent bash shell and return its output (stdout and stderr together) and exit status. State such as the working directory and variables persists between calls; use the restart tool to start over.',
  args: BashArgs,
})
@Resource(SHELL_RESOURCE)
@Confined(() => processConfinement())
@Annotations({ title: 'Run a shell command', destructive: true, openWorld: true })
export class BashTool {
  constructor(private readonly shell: Shell) {}

  async execute(args: BashArgs, ctx: ToolContext): Promise<Result> {
    const timeout = args.timeout_seconds;
    if (timeout !== undefined && timeout <= 0) {
      throw new Error(`timeout_seconds must be a positive number of seconds, got ${timeout}`);
    }
    // A process group nobody could record is one nobody could stop after a crash.
    const recordFailed = new AbortController();
    let recording: Promise<void> = Promise.resolve();
    let recordError: { error: unknown } | undefined;
    const result = await this.shell.run(args.command, {
      signal: AbortSignal.any([ctx.signal, recordFailed.signal]),
      timeoutMs: timeout === undefined ? undefined : timeout * 1000,
      // What the command prints reaches the caller as progress while it runs.
      onOutput: (text) => ctx.progress(text),
      onStart: (pgid) => {
        recording = ctx.record(recordable(PROCESS_GROUP_RECORD, { pgid })).catch((error) => {
          recordError = { error };
          recordFailed.abort();
        });
      },
    });
    await recording;
    if (recordError !== undefined) {
      throw new Error(
        `the command was interrupted because its process group could not be recorded: ${errorMessage(recordError.error)}`,
      );
    }
    return { output: describeRun(result, timeout), details: runDetails(result) };
  }
}

/** Restarts the persistent shell; shares the bash tool's resource so a batch keeps order. */
@Tool({
  name: 'restart',
  description:
    'Restart the persistent bash shell: stops any running command and starts a fresh shell in the workspace, losing the working directory, variables and functions.',
})
@Resource(SHELL_RESOURCE)
@Replay('safe')
@Annotations({ title: 'Restart the shell', destructive: true, idempotent: true })
export class RestartTool {
  constructor(private readonly shell: Shell) {}

  async execute(): Promise<string> {
    await this.shell.restart();
    return 'The shell was restarted.';
  }
}

/** The text the model sees: the output, then a line on how the command ended. */
export function describeRun(result: ShellResult, timeoutSeconds?: number): string {
  const notes: string[] = [];
  if (result.timedOut) notes.push(`[timed out after ${timeoutSeconds ?? '?'} s: interrupted]`);
  else if (result.interrupted) notes.push('[interrupted]');
  if (result.exitCode === null) notes.push('[no exit status]');
  else if (result.exitCode !== 0) notes.push(`[exit status ${result.exitCode}]`);
  const output = result.output === '' && notes.length === 0 ? '(no output)' : result.output;
  if (notes.length === 0) return output;
  const separator = output === '' || output.endsWith('\n') ? '' : '\n';
  return `${output}${separator}${notes.join('\n')}`;
}

/** What a host may read of a run besides the text (never shown to the model). */
export function runDetails(result: ShellResult): Omit<ShellResult, 'output'> {
  const { exitCode, interrupted, timedOut, truncated } = result;
  return { exitCode, interrupted, timedOut, truncated };
}
