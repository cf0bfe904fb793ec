import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import { AgentToolError, type AuthInfo } from '../../../core';
import { InvalidTokenError, type TokenVerifier } from './options';

/** What {@link jwtVerifier} checks a token against. */
export interface JwtVerifierOptions {
  /** The authorization server's issuer URL: a token's `iss` must equal it. */
  readonly issuer: string;
  /** Where the issuer publishes its signing keys (its `jwks_uri`). */
  readonly jwksUrl: string | URL;
  /**
   * The audience a token's `aud` must name (one of these). Default: the server's
   * resource identifier (RFC 8707), which MCP clients ask tokens for.
   */
  readonly audience?: string | readonly string[] | undefined;
  /**
   * The signature algorithms accepted (default: RS256/384/512, PS256/384/512,
   * ES256/384/512 and EdDSA). Unsigned tokens (`alg: none`) and symmetric ones are never
   * accepted from a key set.
   */
  readonly algorithms?: readonly string[] | undefined;
  /** A required `typ` header, e.g. `at+jwt` (RFC 9068); default: not checked. */
  readonly typ?: string | undefined;
  /** Leeway for `exp` and `nbf`, in seconds (default 0). */
  readonly clockToleranceSeconds?: number | undefined;
  /** How long fetched keys are used before they are fetched again, in ms (default 10 minutes). */
  readonly cacheMaxAgeMs?: number | undefined;
  /**
   * The least time between two fetches of the keys, in ms (default 30 s): a token
   * signed with an unknown key fetches them again at most this often.
   */
  readonly cooldownMs?: number | undefined;
  /** How long a fetch of the keys may take, in ms (default 5 s). */
  readonly timeoutMs?: number | undefined;
}

const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** jose's failures that are the key set's, not the token's: the server cannot verify now. */
const KEY_SET_FAILURES: ReadonlySet<string> = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);

/**
 * A {@link TokenVerifier} for JWT access tokens (RFC 9068) signed by an authorization
 * server whose keys are at `jwksUrl`: the signature (never `alg: none`), `iss`, `aud`
 * (the server's resource by default), `exp` (required) and `nbf` are checked with
 * `jose`; `sub` is required, a non-empty string, and becomes the subject, `scope` (space-separated) or `scp`
 * the scopes, `client_id` (or `azp`) the client, the payload the claims. The keys are
 * fetched on first use and cached (`cacheMaxAgeMs`), and fetched again for a key id
 * they do not have (at most once per `cooldownMs`).
 *
 * `jose` is loaded the first time a token is verified: an app that does not use this
 * verifier never loads it.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const issuer = options?.issuer;
  if (typeof issuer !== 'string' || issuer === '') {
    throw invalid('issuer must be the authorization server issuer URL');
  }
  let jwksUrl: URL;
  try {
    jwksUrl = new URL(options.jwksUrl);
  } catch {
    throw invalid(`jwksUrl ${JSON.stringify(String(options.jwksUrl))} is not a URL`);
  }
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.some((alg) => alg.toLowerCase() === 'none' || alg.startsWith('HS'))) {
    throw invalid('algorithms: a key set verifies signatures; "none" and HS* cannot be used');
  }
  let verify:
    ((token: string, audience: string | string[]) => Promise<Jose.JWTPayload>) | undefined;
  const prepare = () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
    const jose = require('jose') as typeof Jose;
    const keys = jose.createRemoteJWKSet(jwksUrl, {
      cacheMaxAge: options.cacheMaxAgeMs ?? 10 * 60 * 1000,
      cooldownDuration: options.cooldownMs ?? 30 * 1000,
      timeoutDuration: options.timeoutMs ?? 5000,
    });
    return async (token: string, audience: string | string[]) => {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: options.clockToleranceSeconds ?? 0,
        ...(options.typ === undefined ? {} : { typ: options.typ }),
      });
      return payload;
    };
  };
  return async (token, _request, resource) => {
    verify ??= prepare();
    const audience =
      options.audience === undefined
        ? resource
        : typeof options.audience === 'string'
          ? options.audience
          : [...options.audience];
    let payload: Jose.JWTPayload;
    try {
      payload = await verify(token, audience);
    } catch (error) {
      throw refusal(error, issuer);
    }
    // jose checks that "sub" is present; the caller needs a subject it can be named by.
    if (typeof payload.sub !== 'string' || payload.sub === '') {
      throw new InvalidTokenError('The access token\'s "sub" claim is not valid');
    }
    return callerOfPayload(payload, payload.sub);
  };
}

/** The caller a verified JWT's payload names. */
function callerOfPayload(payload: Jose.JWTPayload, subject: string): AuthInfo {
  const clientId = [payload.client_id, payload.azp].find((c) => typeof c === 'string');
  return {
    subject,
    clientId: typeof clientId === 'string' ? clientId : '',
    scopes: scopesOf(payload),
    ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
    claims: { ...payload },
  };
}

function scopesOf(payload: Jose.JWTPayload): string[] {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === 'string');
  return [];
}

/**
 * What a verification failure means for the request: a refused token (401, with a
 * message that says which check failed), or, for a key set that cannot be fetched, the
 * error itself (500, reported).
 */
function refusal(error: unknown, issuer: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_') || KEY_SET_FAILURES.has(code)) {
    return error;
  }
  const claim = (error as { claim?: unknown }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new InvalidTokenError('The access token has expired', { cause: error });
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'aud') {
        return new InvalidTokenError('The access token was not issued for this server (aud)', {
          cause: error,
        });
      }
      if (claim === 'iss') {
        return new InvalidTokenError(`The access token was not issued by ${issuer} (iss)`, {
          cause: error,
        });
      }
      return new InvalidTokenError(
        `The access token's ${typeof claim === 'string' ? `"${claim}" ` : ''}claim is not valid`,
        { cause: error },
      );
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new InvalidTokenError("The access token's signature does not verify", {
        cause: error,
      });
    default:
      return new InvalidTokenError('The access token is not a JWT signed by a known key', {
        cause: error,
      });
  }
}

function invalid(message: string): AgentToolError {
  return new AgentToolError('INVALID_OPTIONS', `mcp: jwtVerifier: ${message}`);
}
