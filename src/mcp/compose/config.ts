import { isAbsolute, resolve } from 'node:path';
import {
  AgentToolError,
  goQuote,
  isJsonObject,
  type JsonObject,
  type ToolSetTransform,
  toolNameProblem,
} from '../../core';
import { type Transport } from '@modelcontextprotocol/client';
import { type HttpTarget, type StdioTarget } from '../client';
import { checkToolSetTransform, fieldPath } from './config-fields';

/**
 * A server started as a child process and spoken to over its stdin and stdout, as the
 * `mcpServers` entries of Claude Desktop, Cursor and VS Code write it.
 */
export interface McpStdioServerEntry {
  readonly type?: 'stdio' | undefined;
  readonly command: string;
  readonly args?: readonly string[] | undefined;
  /**
   * Added to a small safe environment (PATH, HOME, ...): the server does not see the
   * rest of this process's. Values may be secrets; they are never printed.
   */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** The folder it starts in (a relative one is the config file's); default: see `baseDir`. */
  readonly cwd?: string | undefined;
  /** Which of its tools are served, and how they are changed (see `ToolSetTransform`). */
  readonly tools?: ToolSetTransform | undefined;
  /** Leave the entry out. */
  readonly disabled?: boolean | undefined;
  /** The protocol era to speak: `auto` (the default), `modern` or `legacy`. */
  readonly protocol?: 'auto' | 'modern' | 'legacy' | undefined;
}

/** A server at a Streamable HTTP endpoint. */
export interface McpHttpServerEntry {
  /** `http` (VS Code, Claude Code) or `streamable-http`; `sse` is refused (not supported). */
  readonly type?: 'http' | 'streamable-http' | undefined;
  readonly url: string;
  /** Sent with every request; values may be secrets and are never printed. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly tools?: ToolSetTransform | undefined;
  readonly disabled?: boolean | undefined;
  readonly protocol?: 'auto' | 'modern' | 'legacy' | undefined;
}

/**
 * A server reached over a transport the caller makes (in code only, not in a file): a
 * server in the same process over an in-memory pair, say. `transport` is called for each
 * attempt to connect, since a transport serves one connection.
 */
export interface McpTransportServerEntry {
  readonly transport: () => Transport;
  readonly tools?: ToolSetTransform | undefined;
  readonly disabled?: boolean | undefined;
  readonly protocol?: 'auto' | 'modern' | 'legacy' | undefined;
}

/** One entry of `mcpServers`. */
export type McpServerEntry = McpStdioServerEntry | McpHttpServerEntry | McpTransportServerEntry;

/** How a server that fails is tried again. */
export interface RetryOptions {
  /** The pause before the first retry, doubled after each failure (ms); default 1000. */
  readonly initialDelayMs?: number | undefined;
  /** The longest pause between two attempts (ms); default 30000. */
  readonly maxDelayMs?: number | undefined;
  /** Attempts in a row that may fail before the server is given up; default 10. */
  readonly maxAttempts?: number | undefined;
}

/** {@link RetryOptions} with every member given. */
export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
}

/**
 * The configuration clients use for MCP servers (`mcpServers`, or VS Code's `servers`),
 * with agenttool's own members: a per-server `tools` section, the tags every served tool
 * is filtered by, `tools` for the local tools (`agenttool serve app.js --config`), and
 * how failed servers are retried.
 */
export interface McpServersConfig {
  /** The servers by name; this or `servers` must be given (`{}` for none). */
  readonly mcpServers?: Readonly<Record<string, McpServerEntry>> | undefined;
  /** VS Code's name for `mcpServers`; give one of the two. */
  readonly servers?: Readonly<Record<string, McpServerEntry>> | undefined;
  /** Only the tools with at least one of these tags are served (after the transforms). */
  readonly includeTags?: readonly string[] | undefined;
  /** The tools with any of these tags are not served. */
  readonly excludeTags?: readonly string[] | undefined;
  /** How the local tools are changed (those of the app served beside the servers). */
  readonly tools?: ToolSetTransform | undefined;
  readonly retry?: RetryOptions | undefined;
}

/** How a configuration is read. */
export interface ConfigReadOptions {
  /** How errors name where it came from, e.g. the file's path; `config` by default. */
  readonly source?: string | undefined;
  /**
   * Expands `${VAR}` and `${env:VAR}` in `command`, `args`, `env`, `cwd`, `url` and
   * `headers` from this environment (a variable it lacks is an error naming it). Without
   * it nothing is expanded, and a value with `${...}` in `env`, `url` or `headers` is
   * refused, so that a placeholder never goes out as a credential.
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * The folder a relative `cwd` is resolved against, and where a stdio server without a
   * `cwd` starts (the config file's folder, for a file); default: this process's folder.
   */
  readonly baseDir?: string | undefined;
}

/** One server as checked: its name (the prefix), where it is, and its tool section. */
export interface CheckedServer {
  readonly name: string;
  readonly target: StdioTarget | HttpTarget | (() => Transport);
  /** Where to show it is, without credentials: the command, or the URL without query. */
  readonly shown: string;
  readonly tools: ToolSetTransform | undefined;
  readonly protocol: 'auto' | 'modern' | 'legacy';
  /**
   * The values never to print: env values, header values (and the credential of one
   * such as `Bearer <token>`), the URL's secrets.
   */
  readonly secrets: readonly string[];
}

/** A configuration as checked. */
export interface CheckedConfig {
  readonly servers: readonly CheckedServer[];
  readonly includeTags: readonly string[] | undefined;
  readonly excludeTags: readonly string[] | undefined;
  readonly tools: ToolSetTransform | undefined;
  readonly retry: RetryPolicy;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  maxAttempts: 10,
});

const PLACEHOLDER = /\$\{(?:env:)?([^}]*)\}/g;
/** VS Code's prompted input (`"inputs"` of its mcp.json), which only VS Code can ask for. */
const INPUT = /\$\{input:([^}]*)\}/;

/**
 * Checks a configuration (as parsed from JSON, or written in code) and normalizes it.
 * Throws `INVALID_OPTIONS` naming the source, the entry and the field, e.g. `servers.json:
 * mcpServers.github.args[1]: must be a string`; a value from `env` or `headers` is never
 * part of a message.
 */
export function checkMcpServersConfig(
  value: unknown,
  options: ConfigReadOptions = {},
): CheckedConfig {
  const source = options.source ?? 'config';
  const fail = (path: string, problem: string): never => {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `${source}: ${path === '' ? '' : `${path}: `}${problem}`,
    );
  };
  if (!isJsonObject(value)) fail('', 'must be a JSON object with "mcpServers"');
  const config = value as JsonObject;
  if (config['mcpServers'] !== undefined && config['servers'] !== undefined) {
    fail('', 'give "mcpServers" or VS Code\'s "servers", not both');
  }
  if (config['mcpServers'] === undefined && config['servers'] === undefined) {
    // A misspelt key ("mcpServer") would otherwise compose nothing, without a word.
    fail('', 'has no "mcpServers" (an object of servers by name), nor VS Code\'s "servers"');
  }
  const key = config['servers'] !== undefined ? 'servers' : 'mcpServers';
  const entries = config[key];
  if (!isJsonObject(entries)) fail(key, 'must be an object of servers by name');
  const servers: CheckedServer[] = [];
  for (const [name, entry] of Object.entries(entries as JsonObject)) {
    const at = fieldPath(key, name);
    const server = checkEntry(name, entry, at, options, fail);
    if (server !== undefined) servers.push(server);
  }
  const tags = (field: 'includeTags' | 'excludeTags'): readonly string[] | undefined => {
    const list = config[field];
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((t) => typeof t === 'string' && t !== '')) {
      return fail(field, 'must be a list of non-empty strings');
    }
    return list as string[];
  };
  return {
    servers,
    includeTags: tags('includeTags'),
    excludeTags: tags('excludeTags'),
    tools: checkToolSetTransform(config['tools'], 'tools', fail),
    retry: checkRetry(config['retry'], fail),
  };
}

type Fail = (path: string, problem: string) => never;

/** `name` with each run of underscores made one, and none at its end. */
function unambiguous(name: string): string {
  return name.replace(/_{2,}/g, '_').replace(/_+$/, '') || 'server';
}

function checkEntry(
  name: string,
  entry: unknown,
  at: string,
  options: ConfigReadOptions,
  fail: Fail,
): CheckedServer | undefined {
  const nameProblem = toolNameProblem(`${name}__x`);
  if (name === '' || nameProblem !== undefined) {
    fail(
      at,
      `the server's name prefixes its tools (${name}__<tool>), so it may hold only A-Z, a-z, 0-9, _, - and .`,
    );
  }
  // `a` listing `b__c` and `a__b` listing `c` would both serve `a__b__c` (and `a_` with
  // `c`, `a` with `_c`, `a___c`): the prefix must say where the server's name ends.
  if (name.includes('__') || name.endsWith('_')) {
    fail(
      at,
      `the server's name prefixes its tools (${name}__<tool>), so it may not hold "__" nor end with "_": another server's tool names could then be its own; rename it (e.g. ${goQuote(unambiguous(name))})`,
    );
  }
  if (!isJsonObject(entry))
    return fail(at, 'must be an object: { "command", "args" } or { "url" }');
  if (entry['disabled'] === true) return undefined;
  if (entry['disabled'] !== undefined && typeof entry['disabled'] !== 'boolean') {
    fail(`${at}.disabled`, 'must be true or false');
  }
  const type = entry['type'];
  if (type === 'sse') {
    fail(
      `${at}.type`,
      '"sse" (the 2024 HTTP+SSE transport) is not supported; give the server\'s Streamable HTTP endpoint with "type": "http"',
    );
  }
  if (type !== undefined && !['stdio', 'http', 'streamable-http'].includes(type as string)) {
    fail(`${at}.type`, 'must be "stdio", "http" or "streamable-http"');
  }
  const protocol = entry['protocol'] ?? 'auto';
  if (!['auto', 'modern', 'legacy'].includes(protocol as string)) {
    fail(`${at}.protocol`, 'must be "auto", "modern" or "legacy"');
  }
  const made = (entry as { transport?: unknown }).transport;
  if (made !== undefined) {
    if (typeof made !== 'function')
      fail(`${at}.transport`, 'must be a function making an MCP transport');
    if (entry['command'] !== undefined || entry['url'] !== undefined) {
      fail(at, 'give "transport", "command" or "url", one of them');
    }
    return {
      name,
      target: made as () => Transport,
      shown: 'a transport made in code',
      tools: checkToolSetTransform(entry['tools'], `${at}.tools`, fail),
      protocol: protocol as CheckedServer['protocol'],
      secrets: [],
    };
  }
  const hasCommand = entry['command'] !== undefined;
  const hasUrl = entry['url'] !== undefined;
  if (hasCommand === hasUrl) {
    fail(
      at,
      hasCommand
        ? 'give "command" (a stdio server) or "url" (an HTTP server), not both'
        : 'give "command" (a stdio server) or "url" (an HTTP server)',
    );
  }
  if (hasCommand && type !== undefined && type !== 'stdio') {
    fail(
      `${at}.type`,
      `is ${JSON.stringify(type)} but the entry gives a command; give "url" or drop "type"`,
    );
  }
  if (hasUrl && type === 'stdio') fail(`${at}.type`, 'is "stdio" but the entry gives a url');
  const expand = expander(at, options.env, fail);
  const tools = checkToolSetTransform(entry['tools'], `${at}.tools`, fail);
  if (hasCommand) {
    const commandWritten = stringAt(entry, 'command', at, fail);
    const command = expand('command', commandWritten, false);
    if (command === '') fail(`${at}.command`, 'must not be empty');
    const argsWritten = stringList(entry['args'], `${at}.args`, fail);
    const args = argsWritten.map((arg, i) => expand(`args[${i}]`, arg, false));
    const env = stringMap(entry['env'], `${at}.env`, fail, (k, v) => expand(`env.${k}`, v, true));
    const cwdGiven =
      entry['cwd'] === undefined
        ? undefined
        : expand('cwd', stringAt(entry, 'cwd', at, fail), false);
    const base = options.baseDir;
    const cwd =
      cwdGiven === undefined
        ? base
        : isAbsolute(cwdGiven) || base === undefined
          ? cwdGiven
          : resolve(base, cwdGiven);
    const target: StdioTarget = {
      command,
      args,
      ...(env === undefined ? {} : { env }),
      ...(cwd === undefined ? {} : { cwd }),
    };
    return {
      name,
      target,
      // As written: a value taken from the environment (a token in an argument) is not
      // printed, and is a secret.
      shown: [commandWritten, ...argsWritten].map(shownWord).join(' '),
      tools,
      protocol: protocol as CheckedServer['protocol'],
      secrets: [
        ...Object.values(env ?? {}),
        ...expansions([commandWritten, ...argsWritten], options.env),
      ],
    };
  }
  const url = expand('url', stringAt(entry, 'url', at, fail), true);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(
      `${at}.url`,
      'is not a URL; give the server\'s Streamable HTTP endpoint, e.g. "http://127.0.0.1:3000/mcp"',
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail(`${at}.url`, 'must be an http: or https: URL');
  }
  const headers = stringMap(entry['headers'], `${at}.headers`, fail, (k, v) =>
    expand(`headers.${k}`, v, true),
  );
  return {
    name,
    target: { url, ...(headers === undefined ? {} : { headers }) },
    shown: `${parsed.origin}${parsed.pathname}`,
    tools,
    protocol: protocol as CheckedServer['protocol'],
    secrets: [...headerSecrets(headers ?? {}), ...urlSecrets(parsed)],
  };
}

/** Expands `${VAR}` from the environment when given one; else refuses it in secret fields. */
function expander(
  at: string,
  env: Readonly<Record<string, string | undefined>> | undefined,
  fail: Fail,
): (field: string, value: string, secret: boolean) => string {
  return (field, value, secret) => {
    if (!value.includes('${')) return value;
    const input = INPUT.exec(value);
    if (input !== null) {
      // Neither expanded nor passed on as it is, with or without env: nothing answers it.
      return fail(
        `${at}.${field}`,
        `holds \${input:${input[1] ?? ''}}, a value VS Code asks its user for when it starts the server ("inputs" of its mcp.json); agenttool asks no one, so such prompts are not supported here: write the value, or \${env:NAME} with --expand-env (env in code) to take it from the environment`,
      );
    }
    if (env === undefined) {
      if (!secret) return value;
      return fail(
        `${at}.${field}`,
        'holds a ${...} placeholder, which is not expanded unless asked: give --expand-env (the env option in code) to take it from the environment, or write the value',
      );
    }
    return value.replace(PLACEHOLDER, (_whole, name: string) => {
      const found = env[name];
      if (name === '' || found === undefined) {
        return fail(
          `${at}.${field}`,
          `names the environment variable ${JSON.stringify(name)}, which is not set`,
        );
      }
      return found;
    });
  };
}

/** The longest word of a command line shown whole (a script given with `-e` is not). */
const SHOWN_WORD_CHARACTERS = 120;

/** A word of a command line as a one-line report shows it: its first line, clipped. */
function shownWord(word: string): string {
  const line = word.split('\n', 1)[0] ?? '';
  if (line.length === word.length && word.length <= SHOWN_WORD_CHARACTERS) return word;
  return `${line.slice(0, SHOWN_WORD_CHARACTERS)}...`;
}

/** The values the placeholders of `words` take from `env` (none unless expanding). */
function expansions(
  words: readonly string[],
  env: Readonly<Record<string, string | undefined>> | undefined,
): string[] {
  if (env === undefined) return [];
  const values: string[] = [];
  for (const word of words) {
    for (const [, name] of word.matchAll(PLACEHOLDER)) {
      const value = name === undefined ? undefined : env[name];
      if (value !== undefined && value !== '') values.push(value);
    }
  }
  return values;
}

function stringAt(entry: JsonObject, key: string, at: string, fail: Fail): string {
  const value = entry[key];
  if (typeof value !== 'string') return fail(`${at}.${key}`, 'must be a string');
  return value;
}

function stringList(value: unknown, at: string, fail: Fail): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail(at, 'must be a list of strings');
  return value.map((item, i) =>
    typeof item === 'string' ? item : fail(`${at}[${i}]`, 'must be a string'),
  );
}

function stringMap(
  value: unknown,
  at: string,
  fail: Fail,
  expand: (key: string, value: string) => string,
): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) return fail(at, 'must be an object of strings by name');
  const map: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    // The value may be a secret: the message names the field only.
    if (typeof item !== 'string') fail(fieldPath(at, key), 'must be a string');
    map[key] = expand(key, item);
  }
  return map;
}

/** The parts of a URL that may be credentials: the password, the user, query values. */
function urlSecrets(url: URL): string[] {
  const secrets = [url.password, url.username, ...url.searchParams.values()];
  // A message may quote the URL as written (percent-encoded) or decoded.
  return secrets
    .filter((s) => s !== '')
    .flatMap((s) => [s, decodedComponent(s), encodeURIComponent(s)]);
}

/** `text` percent-decoded; as it is when it does not decode (a lone `%`). */
function decodedComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Headers whose whole value is a scheme and a credential (RFC 9110, 11.6). */
const AUTHORIZATION_HEADER = /^(?:proxy-)?authorization$/i;
/** Schemes that say a credential follows, in whichever header (`X-Auth: Token <t>`). */
const CREDENTIAL_SCHEME = /^(?:bearer|basic|token|apikey|api-key|key|dpop|sso-key)$/i;

/**
 * The values of `headers`, and the credential of each that is a scheme and one
 * (`Bearer <token>`, `token <token>`, `Basic <base64>` with the `user:password` it
 * encodes and each half): a server quotes the token alone as often as the whole header.
 */
function headerSecrets(headers: Readonly<Record<string, string>>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    secrets.push(value);
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) +(\S.*)$/.exec(value.trim());
    if (match === null) continue;
    const [, scheme = '', credential = ''] = match;
    if (!AUTHORIZATION_HEADER.test(name) && !CREDENTIAL_SCHEME.test(scheme)) continue;
    secrets.push(credential.trim());
    if (scheme.toLowerCase() === 'basic') secrets.push(...basicSecrets(credential.trim()));
  }
  return secrets;
}

/**
 * The `user:password` a Basic credential encodes, its password and its user (a token is
 * often sent as the user, as a URL's is: see {@link urlSecrets}); none if it encodes none.
 */
function basicSecrets(credential: string): string[] {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credential)) return [];
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Not base64 of text with a colon: nothing more to look for.
  if (colon < 0 || decoded.includes('\uFFFD')) return [];
  return [decoded, decoded.slice(colon + 1), decoded.slice(0, colon)].filter((s) => s !== '');
}

function checkRetry(value: unknown, fail: Fail): RetryPolicy {
  if (value === undefined) return DEFAULT_RETRY;
  if (!isJsonObject(value))
    return fail('retry', 'must be an object: { initialDelayMs, maxDelayMs, maxAttempts }');
  const read = (key: keyof RetryOptions, least: number): number => {
    const n = value[key];
    if (n === undefined) return DEFAULT_RETRY[key];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < least) {
      return fail(`retry.${key}`, `must be a whole number, ${least} or more`);
    }
    return n;
  };
  return {
    initialDelayMs: read('initialDelayMs', 0),
    maxDelayMs: read('maxDelayMs', 0),
    maxAttempts: read('maxAttempts', 1),
  };
}
