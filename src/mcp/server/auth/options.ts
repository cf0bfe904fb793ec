import { AgentToolError, type AuthInfo } from '../../../core';

/**
 * Verifies a bearer token and says whom it speaks for: the caller, or undefined for a
 * token it refuses (throwing {@link InvalidTokenError} refuses too, its message going
 * into the challenge). Any other error is the verifier failing, not the token: the
 * request gets 500 and the error goes to the server's `onError`.
 *
 * It runs on every HTTP request. `request` is the request (its headers; the body is
 * not read yet); `resource` is this server's resource identifier (RFC 8707), which a
 * token must name as its audience.
 */
export type TokenVerifier = (
  token: string,
  request: Request,
  resource: string,
) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

/** A bearer token refused: the request gets 401 and a challenge carrying the message. */
export class InvalidTokenError extends AgentToolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_TOKEN', message, options);
    this.name = 'InvalidTokenError';
  }
}

/**
 * Authorization for the HTTP endpoint (MCP's authorization: the server is an OAuth 2.1
 * resource server). Every request to the endpoint, in both protocol eras and in
 * stateless mode, must carry `Authorization: Bearer <token>` that `verifyToken`
 * accepts; otherwise it gets 401 with `WWW-Authenticate: Bearer resource_metadata="..."`
 * naming this server's protected resource metadata (RFC 9728), which is served at
 * `/.well-known/oauth-protected-resource` with the endpoint's path appended, and at the
 * root. A token without `requiredScopes` gets 403 `insufficient_scope` naming them.
 */
export interface HttpAuthOptions {
  /** Verifies each request's bearer token (e.g. {@link jwtVerifier}). */
  readonly verifyToken: TokenVerifier;
  /**
   * The authorization servers (issuer URLs) clients get tokens from, at least one:
   * the metadata's `authorization_servers`.
   */
  readonly authorizationServers: readonly string[];
  /**
   * This server's resource identifier (RFC 8707): its public URL, the audience its
   * tokens must name, the metadata's `resource`. Default for `listenHttp`: the
   * listener's URL; a mounted handler needs it.
   */
  readonly resource?: string | undefined;
  /** Scopes every request's token must carry (403 `insufficient_scope` otherwise). */
  readonly requiredScopes?: readonly string[] | undefined;
  /**
   * The metadata's `scopes_supported`. Default: `requiredScopes` and the scopes the
   * served tools require (`@Scopes`), so a client asks for what the tools need.
   */
  readonly scopesSupported?: readonly string[] | undefined;
  /** The metadata's `resource_name`, for people. */
  readonly resourceName?: string | undefined;
  /** The metadata's `resource_documentation`: a page about this server. */
  readonly resourceDocumentation?: string | undefined;
}

/** The protected resource metadata document (RFC 9728) the endpoint serves. */
export interface ProtectedResourceMetadata {
  /** The server's resource identifier: the audience of its tokens. */
  readonly resource: string;
  /** Where clients get tokens: the issuer URLs of the authorization servers. */
  readonly authorization_servers: readonly string[];
  /** How a token is sent: `header` (`Authorization: Bearer`) only. */
  readonly bearer_methods_supported: readonly string[];
  /** The scopes a client may ask for. */
  readonly scopes_supported?: readonly string[];
  /** A name for people. */
  readonly resource_name?: string;
  /** A page about the server. */
  readonly resource_documentation?: string;
}
