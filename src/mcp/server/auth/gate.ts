import {
  type AuthInfo as SdkAuthInfo,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { AgentToolError, type AuthInfo } from '../../../core';
import { toSdkAuth } from './caller';
import {
  type HttpAuthOptions,
  InvalidTokenError,
  type ProtectedResourceMetadata,
  type TokenVerifier,
} from './options';

/**
 * The gate of an endpoint served with `options`, or undefined without `options.auth`.
 * With a known port (`listenHttp`) the resource defaults to the listener's URL.
 */
export function authGate(
  options: { readonly auth?: HttpAuthOptions | undefined; readonly host?: string | undefined },
  path: string,
  port: number | undefined,
  server: GuardedServer,
): AuthGate | undefined {
  if (options.auth === undefined) return undefined;
  const host = options.host ?? '127.0.0.1';
  const shown = host.includes(':') ? `[${host}]` : host;
  const listening = port === undefined ? undefined : `http://${shown}:${port}${path}`;
  return new AuthGate(options.auth, listening, server);
}

/** The scope-token grammar (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** What the gate needs of the server it guards. */
export interface GuardedServer {
  /** The scopes the served tools require, for the metadata's default `scopes_supported`. */
  toolScopes(): readonly string[];
  report(message: string, error: unknown): void;
}

/**
 * The HTTP endpoint's authorization (see {@link HttpAuthOptions}): the protected
 * resource metadata, and each request's bearer token verified into the caller, or the
 * answer that refuses it. Verification and the challenges are the SDK's
 * (`verifyBearerToken`, `bearerAuthChallengeResponse`), so they read as every SDK
 * server's do.
 */
export class AuthGate {
  /** This server's resource identifier: the audience its tokens must name. */
  readonly resource: string;
  /** The metadata's URL: the well-known path with the resource's path appended. */
  readonly metadataUrl: string;
  readonly #verify: TokenVerifier;
  readonly #options: HttpAuthOptions;
  readonly #required: string[];
  readonly #paths: ReadonlySet<string>;
  readonly #server: GuardedServer;

  constructor(
    options: HttpAuthOptions,
    defaultResource: string | undefined,
    server: GuardedServer,
  ) {
    checkOptions(options);
    const resource = options.resource ?? defaultResource;
    if (resource === undefined) {
      throw invalid(
        'resource is needed for a mounted handler: give the public URL of its endpoint, e.g. "https://mcp.example.com/mcp"',
      );
    }
    const url = parseUrl(resource, 'resource');
    if (url.hash !== '') throw invalid(`resource ${JSON.stringify(resource)} has a fragment`);
    this.resource = resource;
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(url);
    const path = url.pathname.replace(/\/+$/, '');
    this.#paths = new Set([WELL_KNOWN, `${WELL_KNOWN}${path}`]);
    this.#verify = options.verifyToken;
    this.#options = options;
    this.#required = [...(options.requiredScopes ?? [])];
    this.#server = server;
  }

  /** The paths the metadata is served at: the well-known path, bare and with the resource's path. */
  get paths(): readonly string[] {
    return [...this.#paths];
  }

  /** The metadata document, as served now. */
  metadata(): ProtectedResourceMetadata {
    const options = this.#options;
    const scopes = options.scopesSupported ?? [
      ...new Set([...this.#required, ...this.#server.toolScopes()]),
    ];
    return {
      resource: this.resource,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ['header'],
      ...(scopes.length === 0 ? {} : { scopes_supported: [...scopes] }),
      ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
      ...(options.resourceDocumentation === undefined
        ? {}
        : { resource_documentation: options.resourceDocumentation }),
    };
  }

  /**
   * The answer to a request for the metadata (path-suffixed or at the root; GET, HEAD,
   * or a CORS preflight), or undefined for any other path.
   */
  metadataResponse(url: URL, method: string): Response | undefined {
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (!this.#paths.has(path)) return undefined;
    const cors = { 'Access-Control-Allow-Origin': '*' };
    if (method === 'OPTIONS') {
      return new Response(null, {
        status: 204,
        headers: { ...cors, 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS' },
      });
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return Response.json(
        { error: 'method_not_allowed', error_description: `${method} is not allowed here` },
        { status: 405, headers: { ...cors, Allow: 'GET, HEAD, OPTIONS' } },
      );
    }
    const response = Response.json(this.metadata(), { headers: cors });
    return method === 'HEAD' ? new Response(null, { headers: response.headers }) : response;
  }

  /**
   * The caller of `request` in the SDK's shape (our {@link AuthInfo} inside), or the
   * answer that refuses it: 401 for a missing or refused token, 403
   * `insufficient_scope` for one without the required scopes, 500 when the verifier
   * failed (reported).
   */
  async authenticate(request: Request): Promise<SdkAuthInfo | Response> {
    // One bearer credential: of several comma-joined values the first is read.
    const header = (request.headers.get('authorization') ?? '').split(',')[0]?.trim();
    const options = { requiredScopes: this.#required, resourceMetadataUrl: this.metadataUrl };
    try {
      // The scheme and one token: the SDK would read `Bearer <token> more` as the token.
      if (header !== undefined && header !== '' && !/^bearer +\S+$/i.test(header)) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "Invalid Authorization header format, expected 'Bearer TOKEN'",
        );
      }
      return await verifyBearerToken(header === '' ? undefined : header, {
        ...options,
        verifier: { verifyAccessToken: (token) => this.#caller(token, request) },
      });
    } catch (error) {
      return bearerAuthChallengeResponse(error, options);
    }
  }

  async #caller(token: string, request: Request): Promise<SdkAuthInfo> {
    let auth: AuthInfo | undefined;
    try {
      auth = await this.#verify(token, request, this.resource);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, error.message);
      }
      if (error instanceof OAuthError) throw error;
      this.#server.report('mcp: http: verifyToken failed', error);
      throw new OAuthError(OAuthErrorCode.ServerError, 'Internal Server Error');
    }
    if (auth === undefined) {
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is not valid');
    }
    const problem = callerProblem(auth);
    if (problem !== undefined) {
      this.#server.report(
        'mcp: http: verifyToken failed',
        new AgentToolError('INVALID_OPTIONS', `mcp: http: verifyToken returned ${problem}`),
      );
      throw new OAuthError(OAuthErrorCode.ServerError, 'Internal Server Error');
    }
    return toSdkAuth(frozenCaller(auth), token);
  }
}

function frozenCaller(auth: AuthInfo): AuthInfo {
  return Object.freeze({
    subject: auth.subject,
    clientId: auth.clientId,
    scopes: Object.freeze([...auth.scopes]),
    ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }),
    ...(auth.claims === undefined ? {} : { claims: Object.freeze({ ...auth.claims }) }),
  });
}

/** What is wrong with a caller a verifier returned, or undefined. */
function callerProblem(auth: AuthInfo): string | undefined {
  if (typeof auth !== 'object' || auth === null) return `${typeof auth}, not an AuthInfo`;
  if (typeof auth.subject !== 'string' || auth.subject === '') {
    return 'a caller without a subject (a session belongs to its subject; give the token\'s "sub")';
  }
  if (typeof auth.clientId !== 'string') return 'a caller whose clientId is not a string';
  if (!Array.isArray(auth.scopes) || !auth.scopes.every((s) => typeof s === 'string')) {
    return 'a caller whose scopes are not a list of strings';
  }
  if (auth.expiresAt !== undefined && typeof auth.expiresAt !== 'number') {
    return 'a caller whose expiresAt is not a number of seconds';
  }
  return undefined;
}

function checkOptions(options: HttpAuthOptions): void {
  if (typeof options?.verifyToken !== 'function') {
    throw invalid('verifyToken must be a function (token, request, resource) => AuthInfo');
  }
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw invalid(
      'authorizationServers needs at least one issuer URL, where clients get their tokens',
    );
  }
  for (const server of servers) parseUrl(server, 'authorizationServers');
  for (const [name, scopes] of [
    ['requiredScopes', options.requiredScopes],
    ['scopesSupported', options.scopesSupported],
  ] as const) {
    for (const scope of scopes ?? []) {
      if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
        throw invalid(`${name}: ${JSON.stringify(scope)} is not an OAuth scope name`);
      }
    }
  }
}

function parseUrl(text: unknown, name: string): URL {
  try {
    const url = new URL(String(text));
    if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  } catch {
    // reported below
  }
  throw invalid(`${name}: ${JSON.stringify(text)} is not an http(s) URL`);
}

function invalid(message: string): AgentToolError {
  return new AgentToolError('INVALID_OPTIONS', `mcp: http: auth: ${message}`);
}
