import { type ClientCapabilities } from '@modelcontextprotocol/client';
import {
  AgentToolError,
  describeValue,
  goQuote,
  isJsonObject,
  type LogLevel,
  type LogSink,
  type Root,
} from '../../core';
import { LOG_LEVELS } from './calls';
import { type ProtocolChoice } from './connect';
import { type ElicitationHandler } from './elicitation';
import { type RootsHandler, type SamplingHandler } from './sampling-and-roots';
import { checkDeclarations, type Declarations } from './tool-mapping';
import { type McpTarget } from './transport';

/** What {@link connectMcp} takes. Only `transport` is required. */
export interface ConnectOptions extends Declarations {
  /** A command (stdio), a URL (Streamable HTTP), or an MCP transport. */
  readonly transport: McpTarget;
  /** Local names become `<prefix>__<remote name>`. */
  readonly prefix?: string;
  /**
   * What becomes of a listed tool whose local name MCP does not accept (a space, a line
   * break, more than 128 characters: see `MCP_TOOL_NAME`), which a model's API would
   * refuse with the whole request: `leave out` (default) lists the others without it,
   * with a process warning naming it (code `AGENTTOOL_MCP_INVALID_TOOL_NAME`); `keep`
   * lists it as the server names it, for a caller that renames tools before they reach
   * a model (as `agenttool serve --config` does with a server's tools section).
   */
  readonly invalidToolNames?: 'leave out' | 'keep';
  /**
   * Which protocol to speak: `auto` (default) speaks 2026-07-28 to a server that serves
   * it and the 2025 era otherwise (one probe request first; over stdio the SDK probes
   * with a short-lived second process); `modern` speaks 2026-07-28 only; `legacy`
   * speaks the 2025 era only, with no probe.
   */
  readonly protocol?: ProtocolChoice;
  /**
   * After a call whose tool is not read-only and during which no list change was seen,
   * wait this long (ms) for one, so a tool that changes the list is seen to; 0 disables.
   * Skipped for servers that do not announce list changes. Default 50.
   */
  readonly notificationGrace?: number;
  /**
   * Declare form and URL elicitation and put each server question to the elicitor of
   * the call it belongs to. Off by default: a 2025-era server's questions then fail, and
   * a call a 2026-07-28 server needs input for fails with a "needs input" error.
   */
  readonly elicitation?: boolean;
  /** The caller's own answerer of server questions; it wins over {@link ConnectOptions.elicitation}. */
  readonly elicitationHandler?: ElicitationHandler;
  /**
   * Lend a model to the server (MCP sampling): declare the `sampling` capability and
   * have each sampling request written by the `ctx.sample` of the call it belongs to
   * (the sampler the consuming host gave that call). In the 2026-07-28 era a request
   * comes back with its call; in the 2025 era it is put to the one call in flight, and
   * fails when there are none or several. Off by default: a server whose tool needs the
   * model then fails the call (`MissingRequiredClientCapability`, -32021, in 2026-07-28).
   */
  readonly sampling?: boolean;
  /** The caller's own lender of a model; it wins over {@link ConnectOptions.sampling}. */
  readonly samplingHandler?: SamplingHandler;
  /**
   * Share roots with the server (MCP roots): declare the `roots` capability and answer a
   * `roots/list` with this list, or, with `true`, with the `ctx.roots()` of the call it
   * belongs to (routed as sampling is). Off by default.
   */
  readonly roots?: boolean | readonly Root[];
  /** The caller's own lister of roots; it wins over {@link ConnectOptions.roots}. */
  readonly rootsHandler?: RootsHandler;
  /**
   * Receives the error of a failed background refresh (the old snapshot stays). What it
   * throws is ignored: refreshing goes on.
   */
  readonly onRefreshError?: (error: Error) => void;
  /**
   * Called after each listing of the tools (the one at connect, one following a
   * `tools/list_changed`, a `refresh()`), which makes new tool objects; read them with
   * `tools()`. What it throws is ignored.
   */
  readonly onToolsChanged?: () => void;
  /**
   * Called when the server says its prompts changed (`notifications/prompts/list_changed`,
   * with `'prompts'`) or its resources or resource templates did
   * (`notifications/resources/list_changed`, with `'resources'`); list them again with
   * `listPrompts`, `listResources` and `listResourceTemplates`. With it, a 2026-07-28
   * server that announces `listChanged` for them is listened to for those changes too
   * (on the connection's `subscriptions/listen` stream). What it throws is ignored.
   */
  readonly onPrimitivesChanged?: (kind: 'prompts' | 'resources') => void;
  /** How this client introduces itself; `{ name: "agenttool", version: "0" }` by default. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Capabilities to declare besides those the options imply. */
  readonly capabilities?: ClientCapabilities;
  /**
   * A limit on each request a tool call makes, in milliseconds; 15 minutes by default
   * (`DEFAULT_CALL_TIMEOUT`), 0 for none. A call past it fails with `mcp: call "<name>":
   * no answer within <n> ms`.
   */
  readonly callTimeout?: number;
  /**
   * Receives the server's log lines (`notifications/message`: level, data, logger) that
   * go to no call's own sink. MCP ties a line to no request, so a line goes to the
   * `ctx.log` of the remote tool's call when it came on that call's response stream
   * (Streamable HTTP, when the connection made the transport from a URL), or else when
   * the call is the only one in flight; and only when that context has a log sink.
   * Every other line comes here. Without it those lines are dropped.
   */
  readonly onLog?: LogSink;
  /**
   * The least severe log line to receive, one of MCP's levels (`debug` to `emergency`);
   * by default every line the server sends. A 2025-era server is told with
   * `logging/setLevel` at connect; a 2026-07-28 server with each call (which asks for
   * lines only when the call has a sink or `onLog` is set); lines below it are dropped
   * whatever the server sends.
   */
  readonly logLevel?: LogLevel;
  /**
   * Receives the URI of each resource the server says changed
   * (`notifications/resources/updated`), after `subscribeResource`. What it throws is
   * ignored.
   */
  readonly onResourceUpdated?: (uri: string) => void;
  /** Bounds the connection and the first listing only. */
  readonly signal?: AbortSignal;
}

const WHERE = 'mcp: connect';

function invalid(message: string): AgentToolError {
  return new AgentToolError('INVALID_OPTIONS', `${WHERE}: ${message}`);
}

/** An option that, when given, must be a function. */
function optionalFunction(value: unknown, name: string, shape: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw invalid(`${name} must be a function${shape}`);
  }
}

/** True for an AbortSignal, or anything that behaves as one (another realm's, a polyfill). */
function isSignal(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const signal = value as Partial<AbortSignal>;
  return typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function';
}

/**
 * Checks {@link connectMcp}'s options before anything connects, so a mistake fails with
 * `mcp: connect: <option> must be ...` (code `INVALID_OPTIONS`) and not later, or as a
 * TypeError. The transport is checked where it is made.
 */
export function checkConnectOptions(options: unknown): void {
  if (!isJsonObject(options)) {
    throw invalid('options must be an object { transport, ... }');
  }
  // Typed as the caller meant it; every check below holds what it really holds.
  const o = options as Partial<ConnectOptions>;
  checkDeclarations(o);
  if (o.prefix !== undefined && typeof o.prefix !== 'string') {
    throw invalid('prefix must be a string');
  }
  const invalidNames: unknown = o.invalidToolNames;
  if (invalidNames !== undefined && invalidNames !== 'leave out' && invalidNames !== 'keep') {
    throw invalid(
      `invalidToolNames must be "leave out" or "keep", got ${typeof invalidNames === 'string' ? goQuote(invalidNames) : describeValue(invalidNames)}`,
    );
  }
  const grace = o.notificationGrace;
  if (grace !== undefined && (typeof grace !== 'number' || !(grace >= 0))) {
    throw invalid(
      `notificationGrace must be a number of milliseconds >= 0 (0 disables), got ${String(grace)}`,
    );
  }
  const timeout = o.callTimeout;
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout >= 0))) {
    throw invalid(
      `callTimeout must be a number of milliseconds >= 0 (0: none), got ${String(timeout)}`,
    );
  }
  const protocol = o.protocol;
  if (protocol !== undefined && !['auto', 'modern', 'legacy'].includes(protocol)) {
    throw invalid(
      `protocol must be "auto", "modern" or "legacy", got ${typeof protocol === 'string' ? goQuote(protocol) : String(protocol)}`,
    );
  }
  const logLevel = o.logLevel;
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel)) {
    throw invalid(
      `logLevel must be one of ${LOG_LEVELS.map((l) => JSON.stringify(l)).join(', ')}, got ${JSON.stringify(logLevel)}`,
    );
  }
  optionalFunction(o.onLog, 'onLog', ' (level, data, logger) => void');
  optionalFunction(o.onRefreshError, 'onRefreshError', '');
  optionalFunction(o.onToolsChanged, 'onToolsChanged', ' () => void');
  optionalFunction(o.onPrimitivesChanged, 'onPrimitivesChanged', ' (kind) => void');
  optionalFunction(o.onResourceUpdated, 'onResourceUpdated', ' (uri) => void');
  optionalFunction(
    o.elicitationHandler,
    'elicitationHandler',
    ' (request, { signal }) => ElicitResult',
  );
  if (o.elicitation !== undefined && typeof o.elicitation !== 'boolean') {
    throw invalid(`elicitation must be true or false, got ${JSON.stringify(o.elicitation)}`);
  }
  const info = o.clientInfo;
  const infoObject: unknown = info;
  if (
    infoObject !== undefined &&
    !(
      isJsonObject(infoObject) &&
      typeof infoObject.name === 'string' &&
      typeof infoObject.version === 'string'
    )
  ) {
    throw invalid('clientInfo must be { name: string, version: string }');
  }
  if (o.capabilities !== undefined && !isJsonObject(o.capabilities)) {
    throw invalid('capabilities must be an object of MCP client capabilities');
  }
  if (o.signal !== undefined && !isSignal(o.signal)) {
    throw invalid('signal must be an AbortSignal');
  }
}
