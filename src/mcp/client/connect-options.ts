import { AgentToolError, goQuote, isJsonObject } from '../../core';
import { LOG_LEVELS } from './calls';
import { type ConnectOptions } from './remote';
import { checkDeclarations } from './tool-mapping';

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
