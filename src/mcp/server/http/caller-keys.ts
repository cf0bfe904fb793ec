import { type ServerContext } from '@modelcontextprotocol/server';

/**
 * The caller each HTTP request counts against for the fair shares (see `FairShares`):
 * `subject:<sub>` for an authenticated caller, `address:<ip>` otherwise. Set by the
 * endpoint before the request is served, read by the handlers through the request.
 */
export const callerKeys = new WeakMap<Request, string>();

/** The share-holding caller of the request `ctx`; undefined off HTTP (stdio, in memory). */
export function callerKeyOf(ctx: ServerContext): string | undefined {
  const request = ctx.http?.req;
  return request === undefined ? undefined : callerKeys.get(request);
}
