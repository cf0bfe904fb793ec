import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type LoggingLevel,
  type ProgressToken,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import { type Backlog, backlogs } from './backlog';
import { type CallRoute } from './call-notices';

/** The request `ctx` as the route of the call it carries. */
export function routeOf(ctx: ServerContext): CallRoute {
  return new RequestRoute(ctx);
}

/** A request as a call's route: its methods, not a closure each, since most calls send nothing. */
class RequestRoute implements CallRoute {
  readonly progressToken: ProgressToken | undefined;
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
    this.progressToken = ctx.mcpReq._meta?.progressToken;
  }

  get backlog(): Backlog | undefined {
    const request = this.#ctx.http?.req;
    return request === undefined ? undefined : backlogs.get(request);
  }

  notify(notification: ServerNotification): Promise<void> {
    return this.#ctx.mcpReq.notify(notification);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.#ctx.mcpReq.log(level, data, logger);
  }
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
