import { type ServerContext } from '@modelcontextprotocol/server';
import { type CallShares } from './fair-shares';

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

/** The calls in flight of the endpoint that serves each HTTP request, set beside its caller. */
export const callShares = new WeakMap<Request, CallShares>();

/**
 * Counts a new tool call of the request `ctx` against its caller's share of calls in
 * flight (`maxCallsPerSubject`) and its endpoint's limit (`maxCalls`): the function that
 * gives it back, once, when the call has ended; undefined off HTTP (stdio, in memory),
 * where calls are not counted. Throws the JSON-RPC error of the refusal when the caller
 * holds its share, or the endpoint its limit.
 */
export function takeCallShare(ctx: ServerContext): (() => void) | undefined {
  const request = ctx.http?.req;
  if (request === undefined) return undefined;
  const shares = callShares.get(request);
  const caller = callerKeys.get(request);
  return shares === undefined || caller === undefined ? undefined : shares.take(caller);
}
