import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { backlogs } from './backlog';
import { type CallRoute } from './call-notices';

/** The request `ctx` as the route of the call it carries. */
export function routeOf(ctx: ServerContext): CallRoute {
  const request = ctx.http?.req;
  return {
    progressToken: ctx.mcpReq._meta?.progressToken,
    backlog: request === undefined ? undefined : backlogs.get(request),
    notify: (notification) => ctx.mcpReq.notify(notification),
    log: (level, data, logger) => ctx.mcpReq.log(level, data, logger),
  };
}

/** The per-request envelope's member `key` (2026-07-28), when the request carries one. */
function envelopeMember(ctx: ServerContext, key: string): unknown {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  return envelope?.[key];
}

/** The capabilities a 2026-07-28 request declares in its envelope. */
export function envelopeCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  return envelopeMember(ctx, CLIENT_CAPABILITIES_META_KEY) as ClientCapabilities | undefined;
}
