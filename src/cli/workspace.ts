import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Constructor, errorMessage } from 'agenttool';
import type * as ShellEntry from 'agenttool/shell';
import type { SandboxOptions, ShellLimits, ShellOptions } from 'agenttool/shell';
import type * as WorkspaceEntry from 'agenttool/workspace';
import type { WorkspaceOptions } from 'agenttool/workspace';
import { CliError, ExitCode } from './exit-codes';
import { probeMemory } from './sandbox-probe-memory';

/** The `agenttool workspace` options that shape the shell. */
export interface WorkspaceFlags {
  /** False with `--no-sandbox`. */
  readonly sandbox?: boolean | undefined;
  readonly allowNetwork?: readonly string[] | undefined;
  readonly allowWrite?: readonly string[] | undefined;
  readonly denyRead?: readonly string[] | undefined;
  readonly allowUnsandboxedCommands?: boolean | undefined;
  readonly maxProcesses?: string | undefined;
  readonly maxMemory?: string | undefined;
  readonly shellEnv?: readonly string[] | undefined;
}

/** The workspace app for `dir`, ready to serve, and the lines that say how it is confined. */
export interface WorkspaceApp {
  readonly module: Constructor;
  readonly name: string;
  readonly root: string;
  /** What the server prints once about the sandbox, before it serves. */
  readonly summary: string;
  /**
   * Settles once the sandbox is known to start here (bubblewrap's probe, run while the
   * app is built); rejects with the CLI's error naming the cause and the fix. Settled at
   * once where the probe passed before under the same conditions (sandbox-probe-memory.ts):
   * it is then made again once the server serves, with `warm`.
   */
  readonly ready: Promise<void>;
  /**
   * Sandboxed: readies the sandbox's proxies ahead of the first command (which then
   * starts its shell in a fraction of the time); returns what lets go of them.
   */
  readonly warm?: () => () => Promise<void>;
}

/**
 * The workspace module for `dir` (the working directory by default), configured from
 * the command line. The sandbox is checked now, so a machine that cannot run it fails
 * at start with the cause and the fix, not at the first call; where the same check
 * passed before under the same conditions, right after the server starts serving (see
 * sandbox-probe-memory.ts), and a failure then is printed and refused by `bash`.
 * `serverFiles` (absolute) are the files the server itself keeps (its record, its
 * request-state key, its token verifier): kept from the sandboxed shell and the file
 * tools, read and write, like the credentials, wherever they are.
 */
export function workspaceApp(
  dir: string | undefined,
  flags: WorkspaceFlags,
  cwd: string = process.cwd(),
  log: NodeJS.WritableStream = process.stderr,
  serverFiles: readonly string[] = [],
): WorkspaceApp {
  // Loaded here: the other commands never load the shell or its sandbox.
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use */
  const shellEntry = require('agenttool/shell') as typeof ShellEntry;
  const workspaceEntry = require('agenttool/workspace') as typeof WorkspaceEntry;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const root = resolve(cwd, dir ?? '.');
  const unnamed = folderWordProblem(dir, root);
  if (unnamed !== undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: workspace: ${unnamed}`);
  }
  const tooBroad = broadRootProblem(root, dir === undefined);
  if (tooBroad !== undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: workspace: ${tooBroad}`);
  }
  const held = shellEntry.protectedFolderProblem(root);
  if (held !== undefined) {
    const how = dir === undefined ? 'no folder was given, and the working directory' : 'the folder';
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: workspace: ${how} ${held}`);
  }
  const { sandboxed, shell } = workspaceShellOptions(flags, cwd, shellEntry, serverFiles);
  let module: Constructor;
  let limits: ShellLimits | undefined;
  let ready: Promise<void> = Promise.resolve();
  let warm: (() => () => Promise<void>) | undefined;
  try {
    if (sandboxed) {
      const probe = (): Promise<void> =>
        shellEntry.probeSandboxSupport().catch((error: unknown) => {
          throw workspaceError(error, shellEntry);
        });
      const memory = probeMemory(shellEntry.sandboxProbeConditions());
      if (memory.passedBefore) {
        warm = verifiedWarm(probe, memory, shellEntry.warmSandbox, log);
      } else {
        // Started now and awaited before the server serves: the probe runs while it builds.
        ready = probe().then(() => memory.passed());
        // Awaited by the server; this keeps a failure from counting as unhandled meanwhile.
        ready.catch(() => undefined);
        warm = shellEntry.warmSandbox;
      }
    }
    module = workspaceEntry.WorkspaceModule.forRoot({ root, shell } satisfies WorkspaceOptions);
    const policy = new shellEntry.Shell({ ...shell, cwd: root }).sandboxPolicy;
    if (policy !== undefined) {
      limits = shellEntry.limitsEnforcement(policy.maxProcesses, policy.maxMemoryBytes);
    }
  } catch (error) {
    throw workspaceError(error, shellEntry);
  }
  return {
    module,
    name: 'workspace',
    root,
    summary: summary(root, flags, limits, shellEntry),
    ready,
    ...(warm === undefined ? {} : { warm }),
  };
}

/**
 * The warm-up of a workspace whose probe passed before under the same conditions: the
 * probe again first (the server already serves), then the sandbox readied. Should it fail
 * now, the cause is printed and the memory forgotten; the shell, which probes for itself
 * until a probe has passed, refuses to start with the same cause.
 */
function verifiedWarm(
  probe: () => Promise<void>,
  memory: ReturnType<typeof probeMemory>,
  warmSandbox: () => () => Promise<void>,
  log: NodeJS.WritableStream,
): () => () => Promise<void> {
  return () => {
    let cool: (() => Promise<void>) | undefined;
    let stopped = false;
    probe()
      .then(
        () => {
          memory.passed();
          if (!stopped) cool = warmSandbox();
        },
        (error: unknown) => {
          memory.forget();
          log.write(
            `${errorMessage(error)} (found once serving, though it passed here before: bash will not start)\n`,
          );
        },
      )
      // Nothing above is meant to throw; a stderr gone (EPIPE) must not end the server.
      .catch(() => undefined);
    // A probe still under way when the server stops is not waited for (bubblewrap's
    // `true` ends by itself); what the warm-up started is let go of.
    return async () => {
      stopped = true;
      await cool?.();
    };
  };
}

/**
 * Why a workspace at `root` would open too much to the model's commands, or undefined:
 * the file system's root, given or not (every command could write wherever this process
 * can), and, when no folder was given (`defaulted`), a working directory that is the
 * home folder. A host starts a server from `/` or from the user's home, so a
 * configuration that leaves the folder out would otherwise hand over all of it.
 */
export function broadRootProblem(
  root: string,
  defaulted: boolean,
  home: string = homedir(),
): string | undefined {
  const real = realOrSelf(root);
  const example = '`agenttool workspace ~/projects/site`';
  if (real === '/') {
    const how = defaulted
      ? 'no folder was given, and the working directory is /'
      : 'the folder given is /';
    return `${how}, the whole file system: every command could write wherever this process can; name the project folder to work in, e.g. ${example}`;
  }
  if (defaulted && real === realOrSelf(home)) {
    return `no folder was given, and the working directory is the home folder ${JSON.stringify(real)}: every command could write anywhere in it; name the folder to work in, e.g. ${example} (\`agenttool workspace .\` if it is this one)`;
  }
  return undefined;
}

/**
 * What is wrong with the folder word a host passed, before anything is looked up: an
 * empty one (a host's variable, such as VS Code's `${workspaceFolder}`, left unset)
 * would serve the working directory unnoticed; a `~` is no home folder where no shell
 * expanded it (hosts pass their arguments as written).
 */
function folderWordProblem(dir: string | undefined, root: string): string | undefined {
  if (dir !== undefined && dir.trim() === '') {
    return "the folder given is empty (a host's variable, such as ${workspaceFolder}, that was not set?); name the project folder to work in";
  }
  if (dir?.startsWith('~') === true && !existsSync(root)) {
    // The full path is known for this user's `~` only, not for another's (`~bob`).
    const own = dir === '~' || dir.startsWith('~/');
    const example = own ? `, e.g. ${JSON.stringify(join(homedir(), dir.slice(2)))}` : '';
    return `the folder ${JSON.stringify(dir)} does not exist: ~ is not expanded here, since a host passes its arguments as written, without a shell; give the full path${example}`;
  }
  return undefined;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The CLI's error for a workspace that cannot start: the sandbox's cause, or a bad option. */
function workspaceError(error: unknown, shellEntry: typeof ShellEntry): CliError {
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(
    error instanceof shellEntry.SandboxUnavailableError
      ? ExitCode.CONNECTION
      : ExitCode.BAD_ARGUMENTS,
    `agenttool: workspace: ${message}`,
    { cause: error },
  );
}

function summary(
  root: string,
  flags: WorkspaceFlags,
  limits: ShellLimits | undefined,
  shellEntry: typeof ShellEntry,
): string {
  const lines = [`  workspace: ${root}`];
  if (flags.sandbox === false) {
    lines.push(
      '  sandbox: OFF (--no-sandbox): bash runs every command with all the rights of this process',
    );
    return `${lines.join('\n')}\n`;
  }
  const network =
    flags.allowNetwork === undefined || flags.allowNetwork.length === 0
      ? 'none'
      : `only ${flags.allowNetwork.join(', ')}`;
  const writable = [root, ...(flags.allowWrite ?? []), 'its private $TMPDIR'].join(', ');
  lines.push(
    `  sandbox: ${process.platform === 'darwin' ? 'seatbelt' : 'bubblewrap'}; writable: ${writable}; network: ${network}`,
  );
  if (limits !== undefined) {
    const processes =
      limits.processesBy === 'none'
        ? `${limits.maxProcesses} processes NOT enforced (RLIMIT_NPROC does not bind root, and no cgroup could be made)`
        : `${limits.maxProcesses} processes (${limits.processesBy})`;
    const memory = `${shellEntry.describeBytes(limits.maxMemoryBytes)} memory (${limits.memoryBy === 'cgroup' ? 'cgroup, for the whole shell' : 'rlimit, for each process'})`;
    lines.push(`  limits per shell: ${processes}, ${memory}`);
  }
  if (flags.allowUnsandboxedCommands === true) {
    lines.push(
      '  escape hatch: on (bash takes dangerously_disable_sandbox; such calls run unconfined)',
    );
  }
  return `${lines.join('\n')}\n`;
}

function count(option: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value <= 0) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${option} must be a positive integer, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/** `512M`, `4G`, `1048576`: a size in bytes (binary units, `B`/`iB` optional). */
function bytes(option: string, text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  const scale = UNITS[(match?.[2] ?? '').toLowerCase()];
  const value = match === null || scale === undefined ? NaN : Math.floor(Number(match[1]) * scale);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${option} must be a size such as 512M or 4G, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** The shell's environment with the variables `--shell-env` names; a bad name is the flag's error. */
function shellEnvironmentOf(
  shellEntry: typeof ShellEntry,
  names: readonly string[],
): NodeJS.ProcessEnv {
  try {
    return shellEntry.shellEnvironment(process.env, [...names]);
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: workspace: --shell-env: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * The shell's options the flags give, checked as `workspace` checks them (a flag that
 * configures a sandbox --no-sandbox turns off, a count or size that is none, a variable
 * name that is none): what `workspace` starts with, and what `install` checks before it
 * writes a client's entry.
 */
export function workspaceShellOptions(
  flags: WorkspaceFlags,
  cwd: string,
  shellEntry: typeof ShellEntry = require('agenttool/shell') as typeof ShellEntry, // eslint-disable-line @typescript-eslint/no-require-imports -- loaded on first use
  serverFiles: readonly string[] = [],
): { readonly sandboxed: boolean; readonly shell: Omit<ShellOptions, 'cwd'> } {
  const sandboxed = flags.sandbox !== false;
  const sandboxOnly = (
    [
      ['--allow-network', flags.allowNetwork],
      ['--allow-write', flags.allowWrite],
      ['--deny-read', flags.denyRead],
      ['--allow-unsandboxed-commands', flags.allowUnsandboxedCommands],
      ['--max-processes', flags.maxProcesses],
      ['--max-memory', flags.maxMemory],
    ] as const
  ).find(([, value]) => value !== undefined && value !== false);
  if (!sandboxed && sandboxOnly !== undefined) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: workspace: ${sandboxOnly[0]} configures the sandbox, which --no-sandbox turns off`,
    );
  }
  const sandbox: SandboxOptions = {
    ...(flags.allowNetwork === undefined ? {} : { allowedHosts: flags.allowNetwork }),
    ...(flags.allowWrite === undefined
      ? {}
      : { allowWrite: flags.allowWrite.map((p) => resolve(cwd, p)) }),
    // The server's own files: a command that read its record would see every caller's
    // process groups, and one that wrote it would plant some for a host to stop; its
    // key would let a caller forge another's request state; its verifier runs in it.
    ...(flags.denyRead === undefined && serverFiles.length === 0
      ? {}
      : { denyRead: [...(flags.denyRead ?? []).map((p) => resolve(cwd, p)), ...serverFiles] }),
    ...(flags.maxProcesses === undefined
      ? {}
      : { maxProcesses: count('--max-processes', flags.maxProcesses) }),
    ...(flags.maxMemory === undefined
      ? {}
      : { maxMemoryBytes: bytes('--max-memory', flags.maxMemory) }),
  };
  const shell: Omit<ShellOptions, 'cwd'> = {
    sandbox: sandboxed ? sandbox : false,
    ...(flags.allowUnsandboxedCommands === true ? { allowUnsandboxedCommands: true } : {}),
    env: shellEnvironmentOf(shellEntry, flags.shellEnv ?? []),
  };
  return { sandboxed, shell };
}
