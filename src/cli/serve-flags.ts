import { type Command, Option } from 'commander';
import { type CliIo } from './call';
import { CliError, ExitCode } from './exit-codes';
import { HTTP_LIMITS, type HttpLimits, type ServeOptions } from './serve';

/** The options `serve`, `workspace` and `dev` share, as commander gives them. */
export interface ServeFlags {
  http?: string;
  stateless?: boolean;
  record?: string;
  resumable?: boolean;
  allowedHost?: string[];
  trustProxy?: string;
  limit?: string[];
  redis?: string;
  instance?: string;
  advertise?: string;
  requestStateKeyFile?: string;
  drainGrace?: string;
  progressKeepalive?: string;
  authIssuer?: string;
  authJwks?: string;
  authVerifier?: string;
  authAudience?: string;
  authScopes?: string[];
}

/** The options `serve` and `workspace` share: how and where the tools are served. */
export function serveOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--stdio', 'serve one client over stdin/stdout (the default)').conflicts('http'),
    )
    .option('--http <[host:]port>', 'serve over Streamable HTTP (host defaults to 127.0.0.1)')
    .option('--stateless', 'with --http: no sessions, every request served on its own')
    .option('--record <file>', 'append every record the tools write to this file, as JSON lines')
    .option('--resumable', 'with --http: 2025-era streams resume after a dropped connection')
    .option(
      '--allowed-host <host...>',
      "with --http: Host names clients use, e.g. a load balancer's (name or name:port)",
    )
    .option(
      '--trust-proxy <setting>',
      'with --http: believe X-Forwarded-For from proxies in front, for per-client limits: true, a number of hops, or addresses and CIDR ranges (a,b)',
    )
    .option(
      '--limit <name=value>',
      `with --http: one of the limits of docs/deploy.md (repeat it, or separate by commas), e.g. --limit maxCallsPerSubject=200: ${HTTP_LIMITS.join(', ')}`,
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--redis <url>',
      'with --http: one of several instances behind a load balancer, sharing this Redis (see docs/deploy.md)',
    )
    .option('--instance <name>', "with --redis: this instance's name (default: random)")
    .option('--advertise <url>', 'with --redis: where the other instances reach this endpoint')
    .option(
      '--request-state-key-file <file>',
      'with --redis: the key every instance shares (default: $AGENTTOOL_REQUEST_STATE_KEY)',
    )
    .option(
      '--drain-grace <ms>',
      'on SIGTERM, let the work in flight finish for this long (default 30000 with --http; over stdio SIGTERM stops at once unless this is given)',
    )
    .option(
      '--progress-keepalive <ms>',
      'send progress at least this often while a call whose request asked for progress runs, so hosts that restart their timeout on progress keep waiting (default 15000; 0: only what the tool reports)',
    )
    .option(
      '--auth-issuer <url>',
      'with --http: require bearer tokens from this authorization server (OAuth issuer)',
    )
    .option('--auth-jwks <url>', "with --auth-issuer: the issuer's signing keys (JWT tokens)")
    .option(
      '--auth-verifier <module.js>',
      'with --auth-issuer: a module exporting verifyToken(token, request, resource), instead of --auth-jwks',
    )
    .option(
      '--auth-audience <url>',
      "the server's resource URL, which tokens must name as audience (default: its URL)",
    )
    .option('--auth-scopes <scopes...>', 'scopes every request must carry (else 403)');
}

export function serveOptionsFrom(
  options: ServeFlags,
  io: Pick<CliIo, 'stdout' | 'stderr'>,
): ServeOptions {
  return {
    http: options.http,
    stateless: options.stateless === true,
    record: options.record,
    resumable: options.resumable,
    allowedHosts: allowedHostsOf(options.allowedHost),
    trustProxy: trustProxyOf(options.trustProxy),
    limits: limitsOf(options.limit),
    redis: options.redis,
    instance: options.instance,
    advertise: options.advertise,
    requestStateKeyFile: options.requestStateKeyFile,
    drainGraceMs: milliseconds('--drain-grace', options.drainGrace),
    progressKeepaliveMs: milliseconds('--progress-keepalive', options.progressKeepalive, 10000),
    auth: {
      issuer: options.authIssuer,
      jwks: options.authJwks,
      verifier: options.authVerifier,
      audience: options.authAudience,
      scopes: options.authScopes,
    },
    log: io.stderr,
    stdout: io.stdout,
  };
}

/** The options of `workspace` beside the serving ones: the shell's sandbox. */
export function workspaceOptions(command: Command): Command {
  return command
    .option(
      '--no-sandbox',
      'run bash without a sandbox, with every right of this process (printed at start)',
    )
    .option(
      '--allow-network <host...>',
      'hosts bash may reach through the sandbox proxy: example.com, *.example.com, host:port, 127.0.0.1:8080 (default: none)',
    )
    .option('--allow-write <path...>', 'more paths bash may write, besides the folder and its temp')
    .option('--deny-read <path...>', 'more paths bash may not read, besides the credentials')
    .option('--max-processes <n>', 'the most processes one shell may have (default 1024)')
    .option(
      '--max-memory <size>',
      'the most memory one shell may use, e.g. 2G (default: 4G or half the memory)',
    )
    .option(
      '--allow-unsandboxed-commands',
      'offer the escape hatch: bash takes dangerously_disable_sandbox, and such calls run unconfined',
    )
    .option('--shell-env <name...>', "variables of this process's environment bash also gets");
}

/** `--trust-proxy`: `true`, `false`, a number of hops, or addresses and CIDR ranges. */
/** `--allowed-host`: names, each not empty (an empty one would admit no client at all). */
function allowedHostsOf(given: readonly string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const hosts = given.map((host) => host.trim());
  if (hosts.some((host) => host === '')) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --allowed-host ${given.map((host) => JSON.stringify(host)).join(' ')}: give the Host names clients use, name or name:port, e.g. --allowed-host mcp.example.com`,
    );
  }
  return hosts;
}

function trustProxyOf(text: string | undefined): boolean | number | string[] | undefined {
  if (text === undefined) return undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  const list = text.split(',').map((entry) => entry.trim());
  if (list.some((entry) => entry === '')) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --trust-proxy ${JSON.stringify(text)}: give true, a number of hops, or addresses and CIDR ranges separated by commas, e.g. --trust-proxy 10.0.0.0/8`,
    );
  }
  return list;
}

/**
 * `--limit name=value` (each given, or separated by commas): a limit of
 * {@link HTTP_LIMITS} set to a whole number, at least 1 (a time, in ms, at least 0).
 * The server checks them as it checks its options given in code.
 */
function limitsOf(given: readonly string[] | undefined): HttpLimits | undefined {
  if (given === undefined) return undefined;
  const limits: Partial<Record<(typeof HTTP_LIMITS)[number], number>> = {};
  for (const entry of given.flatMap((text) => text.split(','))) {
    const refuse = (why: string): never => {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: --limit ${JSON.stringify(entry.trim())}: ${why}`,
      );
    };
    const match = /^\s*(\w+)\s*=\s*(\S*)\s*$/.exec(entry);
    if (match === null) return refuse('give name=value, e.g. --limit maxCalls=2000');
    const [, name = '', text = ''] = match;
    const known = HTTP_LIMITS.find((limit) => limit === name);
    if (known === undefined) {
      return refuse(`there is no limit ${name}; the limits are ${HTTP_LIMITS.join(', ')}`);
    }
    if (known in limits) return refuse(`${name} is given twice`);
    const value = Number(text);
    const least = known.endsWith('Ms') ? 0 : 1;
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < least) {
      return refuse(
        `${name} takes a whole number${least === 0 ? ' of milliseconds' : ' of at least 1'}, e.g. ${name}=${known.endsWith('Ms') ? 60000 : 2000}`,
      );
    }
    limits[known] = value;
  }
  return limits;
}

/** The longest time a timer takes (a longer one fires at once). */
const MOST_MS = 2 ** 31 - 1;

/** `text` as a number of milliseconds >= 0, or undefined when not given. */
function milliseconds(flag: string, text: string | undefined, example = 30000): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0 || value > MOST_MS) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${flag} ${JSON.stringify(text)}: give a whole number of milliseconds up to ${MOST_MS}, e.g. ${flag} ${example}`,
    );
  }
  return value;
}

/**
 * Calls `interrupt` on the first SIGINT or SIGHUP (the terminal closed: without a
 * handler Node ends at once, and the shell's stop, with its last check of what a
 * command planted, never runs) and `terminate` on the first SIGTERM; any signal after
 * the first exits at once. Returns a function that removes the handlers.
 */
export function onStopSignals(handlers: {
  interrupt: () => void;
  terminate: () => void;
}): () => void {
  let signalled = false;
  const on = (handler: () => void) => (): void => {
    if (signalled) process.exit(ExitCode.INTERRUPTED);
    signalled = true;
    handler();
  };
  const interrupt = on(handlers.interrupt);
  const terminate = on(handlers.terminate);
  process.on('SIGINT', interrupt);
  process.on('SIGHUP', interrupt);
  process.on('SIGTERM', terminate);
  return () => {
    process.off('SIGINT', interrupt);
    process.off('SIGHUP', interrupt);
    process.off('SIGTERM', terminate);
  };
}

/** What `--config` and `--expand-env` hold. */
export interface ConfigFlags {
  config?: string;
  expandEnv?: boolean;
}

/** `--config` and `--expand-env`, of `serve` and `list` (see docs/composition.md). */
export function configOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      "an mcpServers configuration (Claude Desktop, Cursor, VS Code): serve or list its servers' tools too, as <name>__<tool>",
    )
    .option('--expand-env', 'with --config: expand ${VAR} and ${env:VAR} from the environment');
}
