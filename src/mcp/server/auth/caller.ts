import { type AuthInfo as SdkAuthInfo, type ServerContext } from '@modelcontextprotocol/server';
import { type AuthInfo } from '../../../core';

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
 * claim) or `extra.subject` when a string, else the client id, and whose scopes are the
 * verified `scopes`.
 */
export function fromSdkAuth(sdk: SdkAuthInfo): AuthInfo {
  const extra = sdk.extra ?? {};
  const ours = extra[AUTH_KEY];
  if (typeof ours === 'object' && ours !== null && attached.has(ours)) return ours as AuthInfo;
  const named = [extra.sub, extra.subject].find((s) => typeof s === 'string' && s !== '');
  return Object.freeze({
    subject: typeof named === 'string' ? named : sdk.clientId,
    clientId: sdk.clientId,
    scopes: Object.freeze([...sdk.scopes]),
    ...(typeof sdk.expiresAt === 'number' && Number.isFinite(sdk.expiresAt)
      ? { expiresAt: sdk.expiresAt }
      : {}),
    claims: Object.freeze({ ...extra }),
  });
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
