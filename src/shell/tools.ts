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
  refuseUnknownArguments,
} from 'agenttool';
import { inBackground } from './background-command';
import { waitBeforeCommand } from './before-command';
import type { ContainerOptions } from './container';
import type { SandboxOptions } from './sandbox-policy';
import { sandboxName } from './sandbox-support';
import { Shell } from './shell';
import { describeBytes, type ShellLimits } from './process-limits';
import { DEFAULT_COMMAND_TIMEOUT_MS, type ShellResult } from './shell-options';

/** The resource both shell tools name, so that one batch runs their calls in order. */
export const SHELL_RESOURCE = 'shell:session';

/** The namespace of the record a bash call writes the moment its command starts. */
export const PROCESS_GROUP_RECORD = 'shell:process-group';

/** The argument that asks for the escape hatch, when the tools offer it. */
export const ESCAPE_HATCH_ARGUMENT = 'dangerously_disable_sandbox';

/**
 * What the shell tools say about where their calls run; it must describe the injected
 * {@link Shell} (a bash call checks, and fails rather than report it wrongly).
 */
export interface ShellToolsOptions {
  /** As the shell's own option: the OS sandbox (the default), or `false` for none. */
  readonly sandbox?: SandboxOptions | false;
  /** As the shell's own option: the container the shell runs in. */
  readonly container?: ContainerOptions;
  /**
   * Offer the escape hatch: an argument (`dangerously_disable_sandbox`) with which a
   * call runs outside the sandbox. Off by default, and then absent from the schema, so a
   * definition's hash shows whether a server offers it. Needs a shell made with
   * `allowUnsandboxedCommands`.
   */
  readonly allowUnsandboxedCommands?: boolean;
}

/** The `bash` and `restart` tool classes for one shell configuration. */
export interface ShellTools {
  readonly BashTool: new (shell: Shell) => BashToolInstance;
  readonly RestartTool: new (shell: Shell) => RestartToolInstance;
}

/** What a bash tool instance does; it takes the {@link Shell} it runs in. */
export interface BashToolInstance {
  execute(
    args: BashArgs & { dangerously_disable_sandbox?: boolean },
    ctx: ToolContext,
  ): Promise<Result>;
}

/** What a restart tool instance does; it takes the {@link Shell} it restarts. */
export interface RestartToolInstance {
  execute(args: unknown, ctx: ToolContext): Promise<string>;
}

export class BashArgs {
  @Param(
    'The command line to run, in bash syntax. The working directory, variables, functions and aliases persist from one call to the next.',
  )
  command!: string;

  @Param(
    `Interrupt the command after this many seconds (default ${DEFAULT_COMMAND_TIMEOUT_MS / 1000}, i.e. ${DEFAULT_COMMAND_TIMEOUT_MS / 60_000} minutes); give more for a command that needs longer`,
    { optional: true, type: 'integer' },
  )
  timeout_seconds?: number;

  @Param(
    'Start the command in the background and answer at once with its process group and the file its output goes to (read it later with tail; stop it with kill -- -<group>). For servers and watchers; what it changes of the shell (cd, variables) does not persist.',
    { optional: true },
  )
  run_in_background?: boolean;
}

/** The arguments of a bash tool that offers the escape hatch. */
export class UnsandboxableBashArgs extends BashArgs {
  @Param(
    'Run this command outside the sandbox, with every right of the server: its files, its network, its credentials. Only when the sandbox blocks something the task truly needs; say why to the user.',
    { optional: true },
  )
  dangerously_disable_sandbox?: boolean;
}

/** Where a shell made from these options runs its commands, as `Confined` says it. */
export function confinementOf(options: ShellToolsOptions): Confinement {
  if (options.container !== undefined) {
    return { confined: true, by: `container:${options.container.name}` };
  }
  return options.sandbox === false
    ? { confined: false, by: '' }
    : { confined: true, by: sandboxName() };
}

const NOT_CONFINED: Confinement = { confined: false, by: '' };

/**
 * What a model must know of the Linux sandbox's process ids: `/proc` lists another PID
 * namespace's, so the tools that read it miss the shell's processes (pkill then fails
 * in silence, and a server it meant to stop keeps its port).
 */
const PROCESS_IDS =
  " Process ids in /proc are not the shell's: pgrep and pkill do not find its processes, and ps fails (fatal library error, lookup self) or lists other numbers. To stop a background job in a later call, save its pid as it starts (cmd & echo $! > cmd.pid) and kill that pid.";

/**
 * The `bash` and `restart` tools for a shell made from `options` (they take that
 * {@link Shell} in their constructors). `bash` answers `Confined` per call truthfully:
 * `(true, "bubblewrap")` (or `"seatbelt"`, or `"container:<name>"`) for a confined
 * call, `(false, "")` for an escape-hatch call or an unconfined shell.
 */
export function shellTools(options: ShellToolsOptions = {}): ShellTools {
  const confinement = confinementOf(options);
  const escapeHatch = options.allowUnsandboxedCommands === true;
  const bashArguments = [
    'command',
    'timeout_seconds',
    'run_in_background',
    ...(escapeHatch ? [ESCAPE_HATCH_ARGUMENT] : []),
  ];
  // Taken and left unused: what a command is for, which models trained on another
  // agent's bash send with it, changes nothing of how it runs.
  const bashIgnores = ['description'];
  if (escapeHatch && !(confinement.confined && options.container === undefined)) {
    throw new TypeError(
      'allowUnsandboxedCommands is for a sandboxed shell; without a sandbox every command already runs outside one',
    );
  }

  /**
   * Runs a command in the persistent shell. Interrupting the call (aborting its signal),
   * or its timeout passing (`timeout_seconds`, else the shell's default), interrupts the
   * command and keeps the shell. Served through an app (`ShellModule`), calls on one
   * shell wait for each other and run in the order they came; a tool used directly on a
   * shell refuses a call while another command runs (`the previous command is still
   * running`). The command's process group is recorded
   * (`shell:process-group`, `{"pgid": N}`, plus `"sandbox"` when the id is the sandbox's
   * or container's own) as it starts, so a host that loses the call can still stop it.
   */
  @Tool({
    name: 'bash',
    description:
      'Run a command in a persistent bash shell and return its output (stdout and stderr together) and exit status. Each command runs as a bash -c script would (stop it early with exit, not return). State such as the working directory and variables persists between calls; use the restart tool to start over. Start a server or watcher with run_in_background (or as cmd > cmd.log 2>&1 &): the output of a background job that goes nowhere else lands in whichever later command is running, or is lost.' +
      (confinement.confined
        ? ` Commands run confined (${confinement.by}): ${options.container === undefined ? "the system is read-only except the working directory and $TMPDIR (where git hooks and config, shell start-up files, and editors' and agents' settings such as .vscode and .claude stay read-only), the network is off except for allowed hosts (through the HTTP_PROXY the shell sets), and credentials cannot be read" : 'only what the container holds is reachable'}.${confinement.by === 'bubblewrap' ? PROCESS_IDS : ''}`
        : ''),
    args: escapeHatch ? UnsandboxableBashArgs : BashArgs,
  })
  @Resource(SHELL_RESOURCE)
  @Confined((args: UnsandboxableBashArgs) =>
    escapeHatch && args.dangerously_disable_sandbox === true ? NOT_CONFINED : confinement,
  )
  @Annotations({ title: 'Run a shell command', destructive: true, openWorld: true })
  class BashTool implements BashToolInstance {
    constructor(private readonly shell: Shell) {}

    async execute(args: UnsandboxableBashArgs, ctx: ToolContext): Promise<Result> {
      // A `timeout` in ms, `cwd`: ignored, the command would run otherwise than asked
      // (for ten minutes, elsewhere).
      refuseUnknownArguments(ctx.call, 'bash', bashArguments, bashIgnores);
      const actual = this.shell.confinement;
      if (actual.confined !== confinement.confined || actual.by !== confinement.by) {
        throw new Error(
          `the bash tool says its calls run ${describe(confinement)} but its shell runs them ${describe(actual)}: make the tools and the shell from the same options`,
        );
      }
      if (args.timeout_seconds !== undefined && args.timeout_seconds <= 0) {
        throw new Error(
          `timeout_seconds must be a positive number of seconds, got ${args.timeout_seconds}`,
        );
      }
      const background = args.run_in_background === true;
      if (background && args.timeout_seconds !== undefined) {
        throw new Error(
          'timeout_seconds does not apply to a command run in the background: it runs until it ends, is stopped (kill -- -<group>), or the shell restarts',
        );
      }
      const unsandboxed = escapeHatch && args.dangerously_disable_sandbox === true;
      const timeout = args.timeout_seconds ?? this.shell.defaultTimeoutMs / 1000;
      const where = unsandboxed ? NOT_CONFINED : actual;
      // A process group nobody could record is one nobody could stop after a crash.
      const recordFailed = new AbortController();
      let recording: Promise<void> = Promise.resolve();
      let recordError: { error: unknown } | undefined;
      const command = background ? inBackground(args.command) : args.command;
      // What the command must see done first (the workspace's file changes under way),
      // waited for at most as long as the command's timeout.
      await waitBeforeCommand(
        (session, signal) => this.shell.beforeCommand(session, signal),
        ctx,
        timeout,
      );
      const result = await this.shell.run(command, {
        signal: AbortSignal.any([ctx.signal, recordFailed.signal]),
        timeoutMs: timeout * 1000,
        unsandboxed,
        // What the command prints reaches the caller as progress while it runs.
        onOutput: (text) => ctx.progress(text),
        onStart: (pgid) => {
          const data = where.confined ? { pgid, sandbox: where.by } : { pgid };
          recording = ctx.record(recordable(PROCESS_GROUP_RECORD, data)).catch((error) => {
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
      return {
        output: describeRun(result, timeout, this.shell.limits),
        details: runDetails(result),
      };
    }
  }

  /** Restarts the persistent shell; shares the bash tool's resource so a batch keeps order. */
  @Tool({
    name: 'restart',
    description:
      'Restart the persistent bash shell: once a command still running has ended (or reached its timeout), stops whatever the shell left running in the background and starts a fresh shell in the workspace, losing the working directory, variables and functions.',
  })
  @Resource(SHELL_RESOURCE)
  @Replay('safe')
  @Annotations({ title: 'Restart the shell', destructive: true, idempotent: true })
  class RestartTool implements RestartToolInstance {
    constructor(private readonly shell: Shell) {}

    async execute(_args: unknown, ctx: ToolContext): Promise<string> {
      refuseUnknownArguments(ctx.call, 'restart', []);
      await this.shell.restart();
      return 'The shell was restarted.';
    }
  }

  return { BashTool, RestartTool };
}

function describe(confinement: Confinement): string {
  return confinement.confined ? `confined (${confinement.by})` : 'unconfined';
}

/**
 * The text the model sees: the output, then a line on how the command ended, and one on
 * each cap of the shell (`limits`) its processes ran into.
 */
export function describeRun(
  result: ShellResult,
  timeoutSeconds?: number,
  limits?: ShellLimits,
): string {
  const notes: string[] = [];
  if (result.timedOut) notes.push(`[timed out after ${timeoutSeconds ?? '?'} s: interrupted]`);
  else if (result.interrupted) notes.push('[interrupted]');
  if (result.exitCode === null) notes.push('[no exit status]');
  else if (result.exitCode !== 0) notes.push(`[exit status ${result.exitCode}]`);
  if (result.disabled !== undefined && result.disabled.length > 0) {
    notes.push(
      `[disabled, since git or an agent on the host would run them outside the sandbox: ${result.disabled.join('; ')}]`,
    );
  }
  const refused = result.capsReached?.refusedProcesses ?? 0;
  if (refused > 0) {
    const cap = limits === undefined ? '' : ` of ${limits.maxProcesses} at once`;
    notes.push(
      `[${refused} new ${refused === 1 ? 'process was' : 'processes were'} refused: the shell's processes reached their cap${cap}; end background jobs no longer needed]`,
    );
  }
  const killed = result.capsReached?.killedForMemory ?? 0;
  if (killed > 0) {
    const cap = limits === undefined ? '' : `, ${describeBytes(limits.maxMemoryBytes)} in all`;
    notes.push(
      `[${killed} ${killed === 1 ? 'process was' : 'processes were'} killed for memory: the shell's processes reached their cap${cap}]`,
    );
  }
  const output = result.output === '' && notes.length === 0 ? '(no output)' : result.output;
  if (notes.length === 0) return output;
  const separator = output === '' || output.endsWith('\n') ? '' : '\n';
  return `${output}${separator}${notes.join('\n')}`;
}

/** What a host may read of a run besides the text (never shown to the model). */
export function runDetails(result: ShellResult): Omit<ShellResult, 'output'> {
  const { exitCode, interrupted, timedOut, truncated, disabled, capsReached } = result;
  return {
    exitCode,
    interrupted,
    timedOut,
    truncated,
    ...(disabled === undefined ? {} : { disabled }),
    ...(capsReached === undefined ? {} : { capsReached }),
  };
}
