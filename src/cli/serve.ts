import { basename } from 'node:path';
import { type Writable } from 'node:stream';
import {
  AgentToolError,
  DEFAULT_DRAIN_GRACE_MS,
  errorMessage,
  type HttpListener,
  type HttpServeOptions,
  type McpServerOptions,
  type McpToolServer,
  type ServeSource,
  serveTools,
  type Tool,
  type ToolApp,
  type Constructor,
  describeModules,
} from './public-api';
import { openRecordFile } from './call';
import { type ServeAuthSpec, serveAuth } from './auth';
import { CliError, ExitCode } from './exit-codes';
import { closeFailures, createApp, loadModule } from './targets';
import { Composition } from './composition';
import { packageVersion } from './version';
import { redacted, scaleOutOptions } from './scale-out-flags';
import { terminalSafe, terminalSafeLines } from './terminal-text';
import { sandboxLine, toolLines } from './serve-banner';

/**
 * The limits `--limit` sets, by their option names (docs/deploy.md, "Limits and fair
 * shares"): the listener's, then the server's (parked calls, tasks).
 */
export const HTTP_LIMITS = [
  'maxSessions',
  'maxSessionsPerSubject',
  'maxStreams',
  'maxStreamsPerSubject',
  'maxCalls',
  'maxCallsPerSubject',
  'maxConnections',
  'maxConnectionsPerAddress',
  'maxBodyBytes',
  'maxBodyBytesInFlight',
  'maxBodyBytesInFlightPerSubject',
  'maxUnreadAnswerBytes',
  'maxUnreadAnswerBytesPerSubject',
  'requestTimeoutMs',
  'maxParkedCalls',
  'maxParkedCallsPerSubject',
  'maxTasksPerSubject',
] as const;

/** The limits of {@link HTTP_LIMITS} that are the server's options, not the listener's. */
type ServerLimit = 'maxParkedCalls' | 'maxParkedCallsPerSubject' | 'maxTasksPerSubject';

/** Values of {@link HTTP_LIMITS}. */
export type HttpLimits = Readonly<Partial<Record<(typeof HTTP_LIMITS)[number], number>>>;

/** `limits` split into the listener's options and the server's. */
function splitLimits(limits: HttpLimits | undefined): {
  listener: Partial<Pick<HttpServeOptions, Exclude<keyof HttpLimits, ServerLimit>>>;
  server: Pick<McpServerOptions, 'maxParkedCalls' | 'maxParkedCallsPerSubject' | 'tasks'>;
} {
  const { maxParkedCalls, maxParkedCallsPerSubject, maxTasksPerSubject, ...listener } =
    limits ?? {};
  return {
    listener,
    server: {
      ...(maxParkedCalls === undefined ? {} : { maxParkedCalls }),
      ...(maxParkedCallsPerSubject === undefined ? {} : { maxParkedCallsPerSubject }),
      ...(maxTasksPerSubject === undefined ? {} : { tasks: { maxTasksPerSubject } }),
    },
  };
}

/** What `agenttool serve` takes. */
export interface ServeOptions {
  /** The compiled module file to serve (`file.js` or `file.js#Export`). */
  readonly moduleFile?: string | undefined;
  /**
   * A module to serve instead of a file's (`agenttool workspace`), with the name it is
   * served under and lines printed once about it when it serves.
   */
  readonly module?:
    | {
        readonly module: Constructor;
        readonly name: string;
        readonly summary?: string;
        /** Awaited once the app is built, before serving (the workspace's sandbox probe). */
        readonly ready?: Promise<void>;
        /**
         * Called a moment after the server serves, once a host's first requests are
         * answered (the workspace readies its sandbox for the first command); what it
         * returns is called, and awaited, when the server stops.
         */
        readonly warm?: () => () => Promise<void>;
      }
    | undefined;
  /**
   * An `mcpServers` configuration file (`--config`): its servers' tools are served beside
   * the module's (or alone, without a module), each as `<name>__<tool>`.
   */
  readonly config?: string | undefined;
  /** With `config`: expand `${VAR}` from the environment (`--expand-env`). */
  readonly expandEnv?: boolean | undefined;
  /** `[host:]port` for Streamable HTTP; absent serves stdio. */
  readonly http?: string | undefined;
  readonly stateless?: boolean | undefined;
  /** A file every call's records are appended to, as JSON lines. */
  readonly record?: string | undefined;
  /** With `http`: resumable 2025-era streams (`Last-Event-ID`). */
  readonly resumable?: boolean | undefined;
  /** With `http`: the Host names clients use (DNS-rebinding protection). */
  readonly allowedHosts?: readonly string[] | undefined;
  /** With `http`: which proxies in front may name the client (`X-Forwarded-For`). */
  readonly trustProxy?: boolean | number | readonly string[] | undefined;
  /** With `http`: limits of the listener, by their option names (`--limit`). */
  readonly limits?: HttpLimits | undefined;
  /** With `http`: scale out over this Redis (needs the request-state key). */
  readonly redis?: string | undefined;
  /** With `redis`: this instance's name among its peers. */
  readonly instance?: string | undefined;
  /** With `redis`: the URL peers reach this endpoint at. */
  readonly advertise?: string | undefined;
  /** With `redis`: a file holding the shared request-state key. */
  readonly requestStateKeyFile?: string | undefined;
  /** How long a drain (SIGTERM) lets the work in flight finish, in ms. */
  readonly drainGraceMs?: number | undefined;
  /** How long a call waited on with a progress token stays quiet at most, in ms (0: never kept alive). */
  readonly progressKeepaliveMs?: number | undefined;
  /** The environment the request-state key may come from (`AGENTTOOL_REQUEST_STATE_KEY`). */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Bearer authorization of every HTTP request (the `--auth-*` options). */
  readonly auth?: ServeAuthSpec | undefined;
  /** Human text goes here: stderr (under stdio, stdout carries the protocol alone). */
  readonly log: Writable;
  /** Where the stdio protocol is written; process.stdout by default. */
  readonly stdout?: Writable | undefined;
  /**
   * What is served of the app: the app itself unless given (`agenttool dev` serves its
   * tools wrapped, to know when an app it replaced has no call running).
   */
  readonly serveAs?: ((app: ToolApp) => ServeSource) | undefined;
  /** Announce that the served lists can change (`agenttool dev`, which reloads them). */
  readonly listChanged?: boolean | undefined;
  /**
   * Cancels the start (a signal while it runs): the module file's loading and the app's
   * `ToolApp.create` are given up, and `serveModule` rejects, once what was started is
   * closed.
   */
  readonly signal?: AbortSignal | undefined;
}

/** A running server. */
export interface Serving {
  /** The HTTP endpoint's URL; undefined over stdio. */
  readonly url: string | undefined;
  readonly tools: readonly Tool[];
  /** The MCP server: `agenttool dev` swaps what it serves. */
  readonly server: McpToolServer;
  /** Resolves once the server and the app are closed. */
  readonly closed: Promise<void>;
  /**
   * Ends every session, stops listening and closes the app (its shells), once. `signal`
   * is the name of the signal that stops the server, which the app's shutdown hooks get.
   */
  stop(signal?: string): Promise<void>;
  /**
   * Leaves the load balancer's pool: the health route fails, new work is refused, and
   * the work in flight finishes within the drain grace; then {@link stop}.
   */
  drain(signal?: string): Promise<void>;
}

export { REQUEST_STATE_KEY_ENV } from './scale-out-flags';

/**
 * Loads the module file, creates its app and serves its tools over stdio (until the
 * client closes stdin) or Streamable HTTP. Once it serves, it prints to `log`, once,
 * what it serves: the address, the tools, whether authorization is on, and the sandbox
 * (the workspace's summary, or {@link sandboxLine}); start-up warnings come before.
 */
/** How long after serving starts a module's `warm` is called. */
const WARM_AFTER_MS = 100;

export async function serveModule(options: ServeOptions): Promise<Serving> {
  const address = options.http === undefined ? undefined : parseAddress(options.http);
  if (address === undefined) {
    const httpOnly = (
      [
        ['--stateless', options.stateless],
        ['--resumable', options.resumable],
        ['--allowed-host', options.allowedHosts],
        ['--trust-proxy', options.trustProxy],
        ['--limit', options.limits],
        ['--redis', options.redis],
      ] as const
    ).find(([, value]) => value !== undefined && value !== false);
    if (httpOnly !== undefined) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: ${httpOnly[0]} applies to --http only`,
      );
    }
  }
  const scaleOut = scaleOutOptions(options);
  const limits = splitLimits(options.limits);
  const auth = await serveAuth(options.auth ?? {}, address !== undefined);
  const loaded =
    options.module ??
    (options.moduleFile === undefined && options.config !== undefined
      ? undefined
      : await loadModule(options.moduleFile ?? '', options.signal));
  // Opened before the app is built: a path that cannot be written is refused at once.
  const records = options.record === undefined ? undefined : await openRecordFile(options.record);
  let app: ToolApp | undefined;
  let composition: Composition | undefined;
  let server: ReturnType<typeof serveTools>;
  const name = loaded?.name ?? basename(options.config ?? 'agenttool', '.json');
  try {
    if (loaded !== undefined) {
      app = await createApp(loaded.module, {
        onWarning: (warning) =>
          options.log.write(`agenttool: warning: ${terminalSafeLines(warning)}\n`),
        signal: options.signal,
      });
      if ('ready' in loaded) await loaded.ready;
    }
    if (options.config !== undefined) {
      const spec = { config: options.config, expandEnv: options.expandEnv, log: options.log };
      composition = await Composition.open(app, spec);
      if (loaded !== undefined) warnUnguardedServers(loaded.module, options.log);
    }
    // A module file, a configuration, or both: one of them is there (see loaded above).
    const source: ServeSource =
      composition ?? options.serveAs?.(app as ToolApp) ?? (app as ToolApp);
    server = serveTools(source, {
      ...limits.server,
      name,
      version: packageVersion(),
      ...(records === undefined ? {} : { recorder: records.recorder() }),
      ...(scaleOut === undefined ? {} : { scaleOut }),
      ...(options.progressKeepaliveMs === undefined
        ? {}
        : { progressKeepaliveMs: options.progressKeepaliveMs }),
      // A module file's onServe hook is handed the server and may change its list.
      ...((loaded !== undefined && 'onServe' in loaded && loaded.onServe !== undefined) ||
      options.listChanged === true
        ? { listChanged: true }
        : {}),
    });
  } catch (error) {
    // What was started ends: the composition's servers, the app, the record file.
    await composition?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await records?.close();
    throw error;
  }
  let warmTimer: NodeJS.Timeout | undefined;
  let cool: (() => Promise<void>) | undefined;
  let stopping: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const stop = (signal?: string): Promise<void> =>
    (stopping ??= (async () => {
      const errors: string[] = [];
      // Each failure named (the app's are joined in one AggregateError: each provider
      // whose close() threw, each hook), as a warning: the server did stop.
      const failed = (e: unknown): number => errors.push(...closeFailures(e));
      // Sessions first (their shells), then the app's own providers, then the file.
      await server.close().catch(failed);
      clearTimeout(warmTimer);
      await cool?.().catch(failed);
      await composition?.close().catch(failed);
      await app?.close(signal).catch(failed);
      await records?.close().catch(failed);
      for (const error of errors) {
        options.log.write(
          `agenttool: warning: while closing ${loaded === undefined ? '' : 'module '}${terminalSafe(name)}: ${terminalSafeLines(error)}\n`,
        );
      }
      resolveClosed();
    })());

  const tools = [...(composition?.tools ?? app?.tools ?? [])];
  let listener: HttpListener | undefined;
  try {
    if (address === undefined) {
      const connection = await server.serveStdio(
        options.stdout === undefined ? {} : { stdout: options.stdout },
      );
      void connection.closed.then(() => stop());
    } else {
      listener = await server.listenHttp({
        ...address,
        stateless: options.stateless === true,
        resumable: options.resumable === true,
        ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
        ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
        ...limits.listener,
        ...(options.advertise === undefined ? {} : { advertiseUrl: options.advertise }),
        ...(auth === undefined ? {} : { auth }),
      });
    }
    if (loaded !== undefined && 'onServe' in loaded) await loaded.onServe?.(server);
  } catch (error) {
    await stop();
    // A refused option (a public host without allowed hosts) is the caller's to fix;
    // a port in use or a closed stdin is the place's.
    throw new CliError(
      error instanceof AgentToolError && error.code !== 'CONNECTION'
        ? ExitCode.BAD_ARGUMENTS
        : ExitCode.CONNECTION,
      `agenttool: serve: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  const warm = loaded !== undefined && 'warm' in loaded ? loaded.warm : undefined;
  if (warm !== undefined) {
    // Not at once: a host writes its first requests as it starts the server, and what
    // warming loads would hold up their answers.
    warmTimer = setTimeout(() => {
      if (stopping === undefined) cool = warm();
    }, WARM_AFTER_MS);
    warmTimer.unref();
  }
  const how =
    listener === undefined
      ? 'over stdio'
      : `over Streamable HTTP at ${listener.url}${options.stateless === true ? ' (stateless)' : ''}`;
  options.log.write(`agenttool: serving ${name} ${how}\n${toolLines(tools)}`);
  if (composition !== undefined) options.log.write(composition.statusLines());
  if (loaded !== undefined && 'summary' in loaded && loaded.summary !== undefined) {
    options.log.write(loaded.summary);
  }
  if (records !== undefined) options.log.write(`  records: ${records.path}\n`);
  if (server.instanceId !== undefined) {
    options.log.write(`  instance: ${server.instanceId}, sharing ${redacted(options.redis)}\n`);
  }
  options.log.write(
    auth !== undefined
      ? `  authorization: on: bearer tokens from ${auth.authorizationServers.join(', ')} for ${auth.resource ?? listener?.url ?? ''}\n`
      : listener === undefined
        ? '  authorization: off: over stdio the one client is the process that started this one\n'
        : '  authorization: off: any client that reaches the address may call the tools (--auth-issuer requires tokens)\n',
  );
  // The workspace says how its shell is confined in its summary.
  if (!(loaded !== undefined && 'summary' in loaded && loaded.summary !== undefined)) {
    options.log.write(sandboxLine(tools));
  }
  const grace = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
  let draining: Promise<void> | undefined;
  const drain = (signal?: string): Promise<void> =>
    (draining ??= (async () => {
      await server.drain(grace);
      await stop(signal);
    })());
  return { url: listener?.url, tools, server, closed, stop, drain };
}

/** `3333`, `127.0.0.1:3333`, `[::1]:3333` or `localhost:3333` as a host and a port. */
export function parseAddress(text: string): { host?: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text.trim());
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || !Number.isInteger(port) || port > 65535) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --http ${JSON.stringify(text)}: give a port or host:port, e.g. --http 3333 or --http 127.0.0.1:3333`,
    );
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return host === undefined ? { port } : { host, port };
}

/**
 * Says, once at start, that the servers of `--config` are served beside the module's
 * tools, not behind the root module's guards and interceptors (which the module's own
 * tools pass): a guard meant for everything served would else seem to hold for them.
 */
function warnUnguardedServers(module: Constructor, log: Writable): void {
  const [root] = describeModules(module);
  if (root === undefined) return;
  const kinds = [
    ...(root.guards.length > 0 ? [`guards (${root.guards.length})`] : []),
    ...(root.interceptors.length > 0 ? [`interceptors (${root.interceptors.length})`] : []),
  ];
  if (kinds.length === 0) return;
  log.write(
    `agenttool: warning: the servers of --config are served beside ${terminalSafe(root.module.name)}'s tools, not behind its ${kinds.join(' and ')}: every caller the endpoint lets in may list and call them; to put them behind the module's, import McpServersModule in it instead (see docs/composition.md)\n`,
  );
}
