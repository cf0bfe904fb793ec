import {
  connectMcp,
  createContext,
  type Elicitor,
  errorMessage,
  Executor,
  type ExecutorEvent,
  type Job,
  type RecordFunc,
  type RemoteTools,
  serveTools,
  type Tool,
  ToolApp,
} from './public-api';
import { relative, resolve } from 'node:path';
import { type Writable } from 'node:stream';
import { type ClientAuthSpec, clientAuth } from './auth';
import { splitCommandLine } from './command-line';
import { CliError, ExitCode } from './exit-codes';
import { MemoryTransport } from './memory-transport';
import { type LoadedModule, loadModuleFile } from './module-file';
import { packageVersion } from './version';
import { Composition } from './composition';
import { terminalSafe } from './terminal-text';
import { during, untilAborted } from './start-stage';

/** Where the tools are: a module file, a command that serves MCP over stdio, or a URL. */
export interface TargetSpec {
  readonly moduleFile?: string | undefined;
  readonly stdio?: string | undefined;
  readonly http?: string | undefined;
  /** HTTP headers, `Name: value`. */
  readonly headers?: readonly string[] | undefined;
  /** The protocol era to speak to a remote target; `auto` by default. */
  readonly protocol?: 'auto' | 'modern' | 'legacy' | undefined;
  /** How to authorize to an HTTP target: a bearer token, or the stored OAuth grant. */
  readonly auth?: ClientAuthSpec | undefined;
  /** Where to show a person what they must do (the page to authorize at): stderr. */
  readonly log?: Writable | undefined;
  /** Aborts the opening (Ctrl-C): a connection attempt stops, its server process ended. */
  readonly signal?: AbortSignal | undefined;
  /**
   * An `mcpServers` configuration file: its servers' tools beside the module file's (or
   * alone), as `serve --config` serves them.
   */
  readonly config?: string | undefined;
  /** With `config`: expand `${VAR}` from the environment. */
  readonly expandEnv?: boolean | undefined;
}

/** What one batch runs with. */
export interface RunOptions {
  readonly signal?: AbortSignal | undefined;
  readonly recorder?: RecordFunc | undefined;
  readonly elicitor?: Elicitor | undefined;
}

/**
 * A target's prompts, resources and templates, reached as an MCP client reaches them
 * (a module file's app served to the command in memory).
 */
export type Primitives = Pick<
  RemoteTools,
  'listPrompts' | 'getPrompt' | 'listResources' | 'listResourceTemplates' | 'readResource'
>;

/** Tools opened from a {@link TargetSpec}, ready to list and call; close it when done. */
export interface OpenTarget {
  /** How to name the target to a person, e.g. `module WorkspaceModule` or the URL. */
  readonly label: string;
  readonly tools: readonly Tool[];
  /** Runs a batch through an executor (the app's own, for a module). */
  execute(jobs: readonly Job[], options: RunOptions): AsyncIterable<ExecutorEvent>;
  /**
   * The prompts, resources and templates: the server's own for a remote target; for a
   * module file, its app served over MCP in this process (so that prompts and reads run
   * with a call context, as a client sees them), or undefined when the app has none.
   */
  primitives(): Promise<Primitives | undefined>;
  /** Closes the app (its shells and other resources) or the connection. */
  close(): Promise<void>;
  /**
   * Of a configuration's servers, those not up once it was opened (one line each: its
   * name, where it stands and why), whose tools are missing; none for other targets.
   */
  readonly unavailable?: readonly string[];
}

/**
 * Opens the tools a command line names. A module file becomes an app
 * (`ToolApp.create`); `--stdio` starts the command and connects as an MCP client (it
 * inherits this process's environment); `--http` connects to the URL. Failures are
 * {@link CliError}s: bad arguments for a wrong target, connection for one that could
 * not be started or reached.
 */
export async function openTarget(spec: TargetSpec): Promise<OpenTarget> {
  if (spec.config !== undefined) return openComposed(spec, spec.config);
  const given = [spec.moduleFile, spec.stdio, spec.http].filter((t) => t !== undefined);
  if (given.length !== 1) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      given.length === 0
        ? 'agenttool: no target; give a module file, --stdio "command args" or --http URL'
        : 'agenttool: more than one target; give only one of a module file, --stdio or --http',
    );
  }
  const auth = spec.auth ?? {};
  if (spec.http === undefined && (auth.token !== undefined || auth.oauth === true)) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      'agenttool: --token and --oauth apply to --http only',
    );
  }
  if (spec.moduleFile !== undefined) return openModule(spec.moduleFile, spec.log, spec.signal);
  return openRemote(spec);
}

async function openModule(
  moduleFile: string,
  log: Writable | undefined,
  signal: AbortSignal | undefined,
): Promise<OpenTarget> {
  const loaded = await loadModule(moduleFile, signal);
  const app = await createApp(loaded.module, {
    onWarning: (warning) => log?.write(`agenttool: warning: ${warning}\n`),
    signal,
  });
  let served: Promise<{ remote: RemoteTools; close: () => Promise<void> }> | undefined;
  return {
    label: `module ${loaded.name}`,
    tools: [...app.tools],
    execute: (jobs, options) => app.execute(jobs, options),
    primitives: async () => {
      if (app.prompts.length === 0 && app.resources.length === 0) return undefined;
      served ??= serveInMemory(app, loaded.name);
      return (await served).remote;
    },
    close: async () => {
      const serving = served;
      served = undefined;
      await closingAll([
        async () => (await serving?.catch(() => undefined))?.close(),
        () => app.close(),
      ]);
    },
  };
}

/**
 * The tools of a module file (optional) and of the servers of a configuration file,
 * composed as `serve --config` serves them; prompts and resources reached by serving
 * the composition in memory.
 */
async function openComposed(spec: TargetSpec, config: string): Promise<OpenTarget> {
  if (spec.stdio !== undefined || spec.http !== undefined) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      'agenttool: --config applies to a module file (or none), not to --stdio or --http',
    );
  }
  const loaded =
    spec.moduleFile === undefined ? undefined : await loadModule(spec.moduleFile, spec.signal);
  const app =
    loaded === undefined
      ? undefined
      : await createApp(loaded.module, {
          onWarning: (warning) => spec.log?.write(`agenttool: warning: ${warning}\n`),
          signal: spec.signal,
        });
  let composition: Composition;
  try {
    composition = await Composition.open(app, {
      config,
      expandEnv: spec.expandEnv,
      log: spec.log ?? process.stderr,
      once: true,
    });
  } catch (error) {
    await app?.close().catch(() => undefined);
    throw error;
  }
  const name = loaded?.name ?? 'config';
  const executor = app?.executor ?? new Executor();
  let served: Promise<{ remote: RemoteTools; close: () => Promise<void> }> | undefined;
  return {
    label: `${loaded === undefined ? '' : `module ${loaded.name} and `}${composition.file}`,
    unavailable: composition.servers.status
      .filter((server) => server.state !== 'up')
      .map(
        (server) =>
          `mcp server ${JSON.stringify(server.name)}: ${server.state}${server.error === undefined ? '' : `: ${terminalSafe(server.error)}`} (${server.target})`,
      ),
    tools: [...composition.tools],
    execute: (jobs, options) =>
      executor.execute(jobs, {
        signal: options.signal,
        context: createContext({ recorder: options.recorder, elicitor: options.elicitor }),
      }),
    primitives: async () => {
      if (composition.prompts.length === 0 && composition.resources.length === 0) return undefined;
      served ??= serveInMemory(composition, name);
      return (await served).remote;
    },
    close: () =>
      closingAll([
        async () => (await served?.catch(() => undefined))?.close(),
        () => composition.close(),
        async () => app?.close(),
      ]),
  };
}

/** The app served over a pair of in-memory transports, and the command's client to it. */
async function serveInMemory(
  app: ToolApp | Composition,
  name: string,
): Promise<{ remote: RemoteTools; close: () => Promise<void> }> {
  const server = serveTools(app, { name, version: packageVersion() });
  const [clientEnd, serverEnd] = MemoryTransport.pair();
  try {
    await server.connect(serverEnd);
    const remote = await connectMcp({ transport: clientEnd, elicitation: true });
    return {
      remote,
      close: async () => {
        await remote.close().catch(() => undefined);
        await server.close();
      },
    };
  } catch (error) {
    await server.close().catch(() => undefined);
    throw new CliError(
      ExitCode.CONNECTION,
      `agenttool: module ${name}: could not serve its prompts and resources: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/**
 * Runs every step of a close, each whatever the others did, and throws their failures
 * together (an `AggregateError`, flattened: see {@link closeFailures}): none is lost to
 * a later one.
 */
async function closingAll(steps: readonly (() => Promise<unknown>)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    await step().catch((error: unknown) => errors.push(error));
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `closing: ${errors.length} failed`);
}

/**
 * What a failed close says, a line each: an `AggregateError`'s errors (`ToolApp.close`
 * joins its `CLOSE_FAILED` and `HOOK_FAILED` problems in one, each naming the provider
 * or hook, e.g. `closing Res: close boom`), flattened; any other error's message.
 */
export function closeFailures(error: unknown): string[] {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return (error.errors as unknown[]).flatMap(closeFailures);
  }
  return [errorMessage(error)];
}

/**
 * `loadModuleFile`, recorded as loading while it runs (named if it never finishes: see
 * start-stage.ts), and given up on when `signal` aborts (a Ctrl-C while its top level
 * awaits): the command is interrupted then.
 */
export function loadModule(spec: string, signal?: AbortSignal): Promise<LoadedModule> {
  const hash = spec.lastIndexOf('#');
  const file = resolve(hash > 0 ? spec.slice(0, hash) : spec);
  const shown = relative(process.cwd(), file) || file;
  return during({ kind: 'loading', file: shown }, untilAborted(loadModuleFile(spec), signal));
}

/**
 * `ToolApp.create`, its failure as a connection {@link CliError} (the tools cannot
 * start), recorded as starting while it runs (named if it never finishes: see
 * start-stage.ts). `options.signal` (a Ctrl-C) cancels the start.
 */
export async function createApp(
  module: Parameters<typeof ToolApp.create>[0],
  options: Parameters<typeof ToolApp.create>[1] = {},
): Promise<ToolApp> {
  const name = typeof module === 'function' ? module.name : String(module);
  // One turn of the event loop first: a promise the module file's top level left
  // rejected is reported now (see main.ts), not after the tools ran.
  await new Promise((resolve) => setImmediate(resolve));
  try {
    return await during({ kind: 'starting', module: name }, ToolApp.create(module, options));
  } catch (error) {
    throw new CliError(
      ExitCode.CONNECTION,
      `agenttool: the app could not start: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

async function openRemote(spec: TargetSpec): Promise<OpenTarget> {
  let label: string;
  let transport: Parameters<typeof connectMcp>[0]['transport'];
  if (spec.stdio !== undefined) {
    const [command, ...args] = splitCommandLine(spec.stdio);
    if (command === undefined) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        'agenttool: --stdio needs a command, e.g. --stdio "node dist/server.js"',
      );
    }
    label = `stdio ${spec.stdio}`;
    transport = { command, args, env: inheritedEnvironment(), stderr: 'inherit' };
  } else {
    const url = spec.http ?? '';
    // Only http(s) reaches a Streamable HTTP endpoint: another scheme is a wrong argument.
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol)) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: --http ${JSON.stringify(url)} is not ${parsed === undefined ? 'a URL' : 'an http or https URL'}; give the server's Streamable HTTP endpoint, e.g. http://127.0.0.1:3333/mcp`,
      );
    }
    label = url;
    const auth = clientAuth(spec.auth ?? {}, url, spec.log ?? process.stderr);
    transport = {
      url,
      headers: { ...parseHeaders(spec.headers ?? []), ...auth.headers },
      ...(auth.authProvider === undefined ? {} : { authProvider: auth.authProvider }),
    };
  }
  const protocol = spec.protocol ?? 'auto';
  const remote = await connectMcp({
    transport,
    elicitation: true,
    protocol,
    ...(spec.signal === undefined ? {} : { signal: spec.signal }),
  }).catch((error: unknown) => {
    const message = errorMessage(error);
    // A server that wants a token, asked without one: say how to give it.
    const hint =
      spec.http !== undefined &&
      spec.auth?.token === undefined &&
      spec.auth?.oauth !== true &&
      /\b401\b/.test(message)
        ? '; give --token <access token>, or --oauth to log in'
        : '';
    throw new CliError(ExitCode.CONNECTION, `agenttool: ${label}: ${message}${hint}`, {
      cause: error,
    });
  });
  const executor = new Executor();
  return {
    label,
    tools: remote.tools(),
    execute: (jobs, options) =>
      executor.execute(jobs, {
        signal: options.signal,
        context: createContext({ recorder: options.recorder, elicitor: options.elicitor }),
      }),
    primitives: () => Promise.resolve(remote),
    close: () => remote.close(),
  };
}

// A person running the command expects the server to see their environment, as a
// shell would give it; the SDK's default passes only a few safe variables.
function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (name === '') {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: --header ${JSON.stringify(line)}: give "Name: value"`,
      );
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}
