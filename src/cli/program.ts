import { resolve } from 'node:path';
import { Command, CommanderError, type OutputConfiguration } from 'commander';
import { type CliIo } from './call';
import { registerDev } from './dev-command';
import { registerInstall } from './install-command';
import { CliError, EXIT_CODES_HELP, ExitCode } from './exit-codes';
import { registerInit } from './init';
import { type ServeOptions, type Serving, serveModule } from './serve';
import {
  type ConfigFlags,
  configOptions,
  onStopSignals,
  type ServeFlags,
  serveOptions,
  serveOptionsFrom,
  workspaceOptions,
} from './serve-flags';
import { registerTargetCommands } from './target-commands';
import { type WorkspaceFlags, workspaceApp } from './workspace';
import { OpenResources } from './process-guard';
import { errorMessage } from './public-api';
import { packageVersion } from './version';
import { terminalSafeLines } from './terminal-text';

/**
 * Runs the `agenttool` command with `argv` (the words after the command's name) and
 * resolves with its exit code (see {@link ExitCode}). Failures print one line on
 * stderr; nothing is ever printed on stdout but results (and, under `serve --stdio`,
 * the protocol).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  resources: OpenResources = new OpenResources(),
): Promise<ExitCode> {
  let code: ExitCode = ExitCode.OK;
  let wroteError = false;
  const output: OutputConfiguration = {
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => {
      wroteError = true;
      io.stderr.write(s);
    },
  };
  const program = buildProgram(io, output, resources, (c) => (code = c), argv[0]);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message; help and version end well. Help asked for
      // (`help serve`) takes Commander's code from process.exitCode, which whatever ran
      // before in this process may have set: help is an error only when it went to stderr.
      if (error.code === 'commander.help') return wroteError ? ExitCode.BAD_ARGUMENTS : ExitCode.OK;
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.BAD_ARGUMENTS;
    }
    if (error instanceof CliError) {
      // Its message may quote what a server said (a refusal, a resource's error).
      io.stderr.write(`${terminalSafeLines(error.message)}\n`);
      return error.exitCode;
    }
    io.stderr.write(`agenttool: internal error: ${internalDetail(error)}\n`);
    return ExitCode.INTERNAL;
  }
}

/**
 * An unexpected failure's stack, and for an `AggregateError` (whose stack names only
 * how many failed) each of its errors' messages, a line each.
 */
function internalDetail(error: unknown): string {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (!(error instanceof AggregateError)) return detail;
  const inner = (error.errors as unknown[]).map((e) => `\n  caused by: ${errorMessage(e)}`);
  return `${detail}${inner.join('')}`;
}

type Register = (
  program: Command,
  io: CliIo,
  resources: OpenResources,
  setCode: (code: ExitCode) => void,
) => void;

/**
 * The commands, in the order help lists them, each with the words that run it (name and
 * aliases; the target commands are registered together).
 */
const COMMANDS: readonly { readonly words: readonly string[]; readonly register: Register }[] = [
  { words: ['serve'], register: registerServe },
  { words: ['workspace'], register: registerWorkspace },
  { words: ['dev'], register: registerDev },
  {
    words: ['install'],
    register: (program, io, _resources, setCode) => registerInstall(program, io, setCode),
  },
  {
    words: ['init'],
    register: (program, io, _resources, setCode) => registerInit(program, io, setCode),
  },
  {
    words: ['list', 'call', 'get-prompt', 'prompt', 'read-resource', 'read'],
    register: registerTargetCommands,
  },
];

/**
 * The program, with every command, or with only the one `first` names (the first word of
 * the command line): a command runs, or prints its own help, alone, and defining the
 * others' options is a part of every start (1-2 ms). Anything else (no word, an option,
 * `help`, a word no command has) gets them all, for the list, the help and the suggestions.
 */
function buildProgram(
  io: CliIo,
  output: OutputConfiguration,
  resources: OpenResources,
  setCode: (code: ExitCode) => void,
  first?: string,
): Command {
  const program = new Command('agenttool')
    .description(
      'Serve, list and call agent tools: app modules built with agenttool, or any MCP server.',
    )
    .version(packageVersion())
    .configureOutput(output)
    .showSuggestionAfterError()
    .exitOverride()
    // A command's options come after its name (install's serve arguments need it), and
    // the program's own (--version) before: the same whichever commands are defined.
    .enablePositionalOptions()
    .addHelpText('after', EXIT_CODES_HELP);
  const invoked = COMMANDS.find((command) => first !== undefined && command.words.includes(first));
  for (const command of COMMANDS) {
    if (invoked === undefined || command === invoked)
      command.register(program, io, resources, setCode);
  }
  return program;
}

function registerServe(
  program: Command,
  io: CliIo,
  resources: OpenResources,
  setCode: (code: ExitCode) => void,
): void {
  const serve = program
    .command('serve')
    .description(
      'Serve the tools of a module file (a compiled .js exporting a @Module class) over MCP, and those of the MCP servers of a --config file.',
    )
    .argument('[module-file]', 'the compiled module file, optionally file.js#ExportName');
  configOptions(serveOptions(serve))
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (moduleFile: string | undefined, options: ServeFlags & ConfigFlags) => {
      if (moduleFile === undefined && options.config === undefined) {
        throw new CliError(
          ExitCode.BAD_ARGUMENTS,
          'agenttool: serve: give a module file, a --config file of MCP servers, or both',
        );
      }
      const config = { config: options.config, expandEnv: options.expandEnv };
      await serveUntilStopped(
        { ...serveOptionsFrom(options, io), moduleFile, ...config },
        io,
        resources,
      );
      setCode(ExitCode.OK);
    });
}

function registerWorkspace(
  program: Command,
  io: CliIo,
  resources: OpenResources,
  setCode: (code: ExitCode) => void,
): void {
  const workspace = program
    .command('workspace')
    .description(
      'Serve the workspace tools for a folder over MCP: bash (persistent, in an OS sandbox) and read_file, write_file, edit_file, append_file (confined to the folder).',
    )
    .argument('[dir]', 'the workspace folder (default: the working directory)');
  serveOptions(workspaceOptions(workspace))
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (dir: string | undefined, options: ServeFlags & WorkspaceFlags) => {
      const cwd = process.cwd();
      const files = withFilesResolved(options, cwd);
      const serverFiles = [files.record, files.requestStateKeyFile, files.authVerifier].filter(
        (file): file is string => file !== undefined,
      );
      const app = workspaceApp(dir, options, cwd, io.stderr, serverFiles);
      const serving = serveOptionsFrom(files, io);
      // The sandbox runtime holds its list of protected names (.bashrc, .vscode, ...) at
      // this process's working directory, there or not, by an empty file or folder made
      // in place of a missing one: in the user's project, where an editor starts the
      // server. The shell holds them in every writable folder itself, where they exist.
      if (options.sandbox !== false) process.chdir('/');
      await serveUntilStopped({ ...serving, module: app }, io, resources);
      setCode(ExitCode.OK);
    });
}

/** `options` with the files it names, read later, made absolute against `cwd`. */
function withFilesResolved(options: ServeFlags, cwd: string): ServeFlags {
  const resolved = { ...options };
  for (const key of ['record', 'requestStateKeyFile', 'authVerifier'] as const) {
    const file = options[key];
    if (file !== undefined) resolved[key] = resolve(cwd, file);
  }
  return resolved;
}

/** Serves until a signal or the client ends it, draining on an orchestrator's stop. */
async function serveUntilStopped(
  options: ServeOptions,
  io: CliIo,
  resources: OpenResources,
): Promise<void> {
  // Listened for from the start: a signal while the app builds and the composed servers
  // start would otherwise end the process there, leaving those servers running. It
  // cancels the module file's loading and the app's start (a factory or hook that never
  // settles would else never let it stop), or stops the server as soon as it has started
  // (a second signal exits at once, as ever).
  let serving: Serving | undefined;
  let stopAsked: 'SIGINT' | 'SIGTERM' | undefined;
  const starting = new AbortController();
  const stopStarting = (signal: 'SIGINT' | 'SIGTERM'): void => {
    stopAsked = signal;
    starting.abort(new Error(`${signal} while starting`));
  };
  const release = onStopSignals({
    interrupt: () => {
      io.stderr.write('agenttool: stopping: closing sessions and the app\n');
      if (serving === undefined) stopStarting('SIGINT');
      else void serving.stop('SIGINT');
    },
    // An orchestrator's stop: leave the balancer's pool, finish, then stop. Over stdio a
    // host sends it once closing stdin did not end the server, and kills it soon after
    // (as MCP's stdio shutdown has it): there the server stops at once, as on Ctrl-C,
    // unless a drain was asked for (--drain-grace).
    terminate: () => {
      if (options.http === undefined && options.drainGraceMs === undefined) {
        io.stderr.write('agenttool: stopping: closing sessions and the app\n');
        if (serving === undefined) stopStarting('SIGTERM');
        else void serving.stop('SIGTERM');
        return;
      }
      io.stderr.write('agenttool: draining: refusing new work, finishing the work in flight\n');
      if (serving === undefined) stopStarting('SIGTERM');
      else void serving.drain('SIGTERM');
    },
  });
  try {
    serving = await serveModule({ ...options, signal: starting.signal });
  } catch (error) {
    release();
    // The start given up on a signal (what it had started is closed): stopped, as asked.
    if (!starting.signal.aborted) throw error;
    io.stderr.write('agenttool: stopped\n');
    return;
  }
  const started = serving;
  const untrack = resources.track(() => started.stop());
  if (stopAsked !== undefined) void started.stop(stopAsked);
  await started.closed;
  release();
  untrack();
  io.stderr.write('agenttool: stopped\n');
}
