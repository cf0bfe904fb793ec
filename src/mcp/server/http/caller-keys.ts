import { type ServerContext } from '@modelcontextprotocol/server';
import { type CallShares } from './fair-shares';

/**
 * The caller each HTTP request counts against for the fair shares (see `FairShares`):
 * `subject:<sub>` for an authenticated caller, `address:<ip>` otherwise. Set by the
 * endpoint before the request is served, read by the handlers through the request.
 */
export const requestCallers = new WeakMap<Request, RequestCaller>();

/** Whom an HTTP request counts against: its caller, and its endpoint's calls in flight. */
export interface RequestCaller {
  readonly key: string;
  readonly calls: CallShares;
}

/** The share-holding caller of the request `ctx`; undefined off HTTP (stdio, in memory). */
export function callerKeyOf(ctx: ServerContext): string | undefined {
  const request = ctx.http?.req;
  return request === undefined ? undefined : requestCallers.get(request)?.key;
}

/**
 * Counts a new tool call of the request `ctx` against its caller's share of calls in
 * flight (`maxCallsPerSubject`) and its endpoint's limit (`maxCalls`): the function that
 * gives it back, once, when the call has ended; undefined off HTTP (stdio, in memory),
 * where calls are not counted. Throws the JSON-RPC error of the refusal when the caller
 * holds its share, or the endpoint its limit.
 */
export function takeCallShare(ctx: ServerContext): (() => void) | undefined {
  const request = ctx.http?.req;
  const caller = request === undefined ? undefined : requestCallers.get(request);
  return caller?.calls.take(caller.key);
}
