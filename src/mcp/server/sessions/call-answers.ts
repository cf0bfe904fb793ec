import {
  CLIENT_INFO_META_KEY,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type AuthInfo } from '../../../core';
import { permitted } from '../auth';
import { admit, type CallTracker, failure, type ServedTool, SHUTTING_DOWN } from '../calls';
import { type ClientInfo, SESSION_META_KEY } from '../session';
import { type InstanceHost } from './host';

// What both eras' calls share: the admission, the answer once the server stops, and what
// a 2026-07-28 request's envelope and handle say.

/**
 * The tool `name` as the caller may run it with `args`, or the refusal (see `admit`); a
 * promise only when a guard answers asynchronously, so a call awaits nothing otherwise.
 */
export function admitted(
  host: InstanceHost,
  name: string,
  args: Record<string, unknown>,
  auth: AuthInfo | undefined,
): ServedTool | CallToolResult | Promise<ServedTool | CallToolResult> {
  const allowed = permitted(host, host.served(name), auth);
  return allowed instanceof Promise
    ? allowed.then((tool) => admit(name, tool, args, host.report))
    : admit(name, allowed, args, host.report);
}

/**
 * A call's answer once the server has begun to close: a failure then says the server is
 * shutting down (the tool was most likely stopped by it); a success stands.
 */
export function stoppedAnswer<T extends CallToolResult | InputRequiredResult>(
  calls: CallTracker,
  result: T,
): T | CallToolResult {
  if (!calls.stopping || (result as CallToolResult).isError !== true) return result;
  return failure(SHUTTING_DOWN);
}

/** `result` with the session handle the call ran under in its `_meta`, when it has one. */
export function withHandle<T extends CallToolResult | InputRequiredResult>(
  result: T,
  handle: string | undefined,
): T {
  if (handle === undefined) return result;
  return { ...result, _meta: { ...result._meta, [SESSION_META_KEY]: handle } };
}

/** The per-request envelope's member `key` (2026-07-28), when the request carries one. */
function envelopeMember(ctx: ServerContext, key: string): unknown {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  return envelope?.[key];
}

/** The client info a 2026-07-28 request carries in its envelope. */
export function envelopeClient(ctx: ServerContext): ClientInfo | undefined {
  const info = envelopeMember(ctx, CLIENT_INFO_META_KEY) as Partial<ClientInfo> | undefined;
  if (typeof info?.name !== 'string' || typeof info.version !== 'string') return undefined;
  return { name: info.name, version: info.version };
}

/** The session handle a 2026-07-28 request carries, if any. */
export function requestHandle(ctx: ServerContext): string | undefined {
  const handle = ctx.mcpReq._meta?.[SESSION_META_KEY];
  return typeof handle === 'string' && handle !== '' ? handle : undefined;
}
