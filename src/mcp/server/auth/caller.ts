import { type AuthInfo as SdkAuthInfo, type ServerContext } from '@modelcontextprotocol/server';
import { AgentToolError, type AuthInfo } from '../../../core';

/** Where our caller rides inside the SDK's `AuthInfo` (`extra`), from the gate to the handlers. */
const AUTH_KEY = 'io.github.christopherdavenport.agenttool/auth';

/**
 * The callers this module placed under {@link AUTH_KEY}. Only these are trusted as they
 * are: a framework in front of the handler may hand over a token's claims as `extra`,
 * and whatever they hold under our key is the token's say, not ours.
 */
const attached = new WeakSet<object>();

/**
 * The SDK's shape of a verified caller, which the serving entries hand to the request
 * handlers (`ctx.http.authInfo`). A token without expiry is one that does not expire.
 */
export function toSdkAuth(auth: AuthInfo, token: string): SdkAuthInfo {
  attached.add(auth);
  return {
    token,
    clientId: auth.clientId,
    scopes: [...auth.scopes],
    expiresAt: auth.expiresAt ?? Number.POSITIVE_INFINITY,
    extra: { [AUTH_KEY]: auth },
  };
}

/**
 * Our caller from the SDK's shape: the one the gate verified, or the one an HTTP
 * framework in front of the handler verified, whose subject is `extra.sub` (a JWT's
 * claim) or `extra.subject` when a non-empty string, else the client id, and whose
 * scopes are the verified `scopes`. A caller that names no subject (neither, and an
 * empty client id) is refused with an `INVALID_OPTIONS` error: every such caller would
 * be the subject "", and would use the others' sessions and handles (see
 * {@link namelessCaller}).
 */
export function fromSdkAuth(sdk: SdkAuthInfo): AuthInfo {
  const ours = oursIn(sdk);
  if (ours !== undefined) return ours;
  const subject = subjectNamed(sdk);
  if (subject === undefined) throw new AgentToolError('INVALID_OPTIONS', NAMELESS);
  const extra = sdk.extra ?? {};
  return Object.freeze({
    subject,
    clientId: sdk.clientId,
    scopes: Object.freeze([...sdk.scopes]),
    ...(typeof sdk.expiresAt === 'number' && Number.isFinite(sdk.expiresAt)
      ? { expiresAt: sdk.expiresAt }
      : {}),
    claims: Object.freeze({ ...extra }),
  });
}

/** The caller this module placed in `sdk` (see {@link attached}), if it is one. */
function oursIn(sdk: SdkAuthInfo): AuthInfo | undefined {
  const ours = sdk.extra?.[AUTH_KEY];
  return typeof ours === 'object' && ours !== null && attached.has(ours)
    ? (ours as AuthInfo)
    : undefined;
}

/** Why a verified caller that names no subject is refused. */
const NAMELESS =
  'mcp: the verified caller names no subject (no extra.sub or extra.subject, and an empty clientId): every such caller would be the subject "", and use the sessions and handles of the others; name the subject in the AuthInfo\'s extra.sub';

/** The subject a framework's caller names, if it names one (see {@link fromSdkAuth}). */
function subjectNamed(sdk: SdkAuthInfo): string | undefined {
  const extra = sdk.extra ?? {};
  const named = [extra.sub, extra.subject, sdk.clientId].find(
    (s) => typeof s === 'string' && s !== '',
  );
  return typeof named === 'string' ? named : undefined;
}

/**
 * Why the caller in `sdk` cannot be served, or undefined: a caller an HTTP framework
 * in front verified that names no subject (see {@link fromSdkAuth}).
 */
export function namelessCaller(sdk: SdkAuthInfo): AgentToolError | undefined {
  if (oursIn(sdk) !== undefined || subjectNamed(sdk) !== undefined) return undefined;
  return new AgentToolError('INVALID_OPTIONS', NAMELESS);
}

/**
 * The caller of the request `ctx`: over HTTP the one verified for it (none when the
 * request carried no credentials); elsewhere (stdio, in memory) `local`, the caller the
 * host states for connections without credentials.
 */
export function callerOf(ctx: ServerContext, local: AuthInfo | undefined): AuthInfo | undefined {
  if (ctx.http === undefined) return local;
  const sdk = ctx.http.authInfo;
  return sdk === undefined ? undefined : fromSdkAuth(sdk);
}

/** The subject whose session a request may use; undefined for a request without a caller. */
export function subjectOf(auth: SdkAuthInfo | undefined): string | undefined {
  return auth === undefined ? undefined : fromSdkAuth(auth).subject;
}
