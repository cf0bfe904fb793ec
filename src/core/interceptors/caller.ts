import { type ToolContext } from '../context';
import { type Session } from '../session';

/**
 * Who a call is made for, as a key the built-in interceptors keep state under (a rate
 * limit's budget, cached results): undefined when the call carries nothing that tells
 * callers apart. Two callers never share a key.
 */
export type CallerKey = (ctx: ToolContext) => string | undefined;

const sessionNumbers = new WeakMap<Session, number>();
let sessions = 0;

/**
 * The session a call runs in, when it outlives the call (a 2025-era MCP session, a stdio
 * connection, a batch's `session`): numbered by the object itself, never by its id, which
 * a transport may give to more than one (stdio and in-memory sessions all have id "").
 */
function sessionKey(ctx: ToolContext): string | undefined {
  const session = ctx.session;
  if (session === undefined || session === null || session.endsWithCall === true) return undefined;
  let n = sessionNumbers.get(session);
  if (n === undefined) {
    n = ++sessions;
    sessionNumbers.set(session, n);
  }
  return `session:${n}`;
}

/**
 * The caller a budget is kept for: the verified subject when the call carries
 * credentials (whatever client or session it comes through, so a caller cannot reset
 * its budget by reconnecting), else its session when the session outlives the call, else
 * undefined (nothing tells two such callers apart).
 */
export const subjectOrSession: CallerKey = (ctx) => {
  const auth = ctx.auth;
  if (auth !== undefined && auth !== null) return `subject:${JSON.stringify(auth.subject)}`;
  return sessionKey(ctx);
};

/**
 * The caller results are kept for: the verified subject together with its client and
 * its scopes (a result a token with more scopes was given is never handed to a token with
 * fewer), else its session when the session outlives the call, else undefined: then
 * nothing is kept, since two callers could not be told apart.
 */
export const credentialsOrSession: CallerKey = (ctx) => {
  const auth = ctx.auth;
  if (auth !== undefined && auth !== null) {
    const scopes = [...new Set(auth.scopes)].sort();
    return `credentials:${JSON.stringify([auth.subject, auth.clientId, scopes])}`;
  }
  return sessionKey(ctx);
};
