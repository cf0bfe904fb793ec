/**
 * The verified caller of a request: who the bearer token speaks for, as the server's
 * token verification found it. Absent where a request carries no credentials (stdio,
 * in memory, a server without authorization), unless the host states one.
 */
export interface AuthInfo {
  /**
   * Who the token speaks for (a JWT's `sub`). Never empty: a session belongs to the
   * subject that opened it, and per-caller state keys on it.
   */
  readonly subject: string;
  /** The OAuth client the token was issued to; "" when the token does not say. */
  readonly clientId: string;
  /** The token's scopes. */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch; absent when it does not. */
  readonly expiresAt?: number | undefined;
  /**
   * Other claims the verifier kept (a JWT's payload): information about the caller,
   * never more than the verifier checked.
   */
  readonly claims?: Readonly<Record<string, unknown>> | undefined;
}

/** What a guard decides on: a tool (or a prompt, a resource) and the caller who would use it. */
export interface AccessRequest {
  /** The tool's name (a prompt's name, a resource's or template's name). */
  readonly tool: string;
  /** What `tool` names: a tool when absent. */
  readonly kind?: 'tool' | 'prompt' | 'resource' | undefined;
  /** The verified caller; undefined when the request carried no credentials. */
  readonly auth: AuthInfo | undefined;
}

/**
 * Decides whether the caller may use a tool: true allows, anything else refuses. It
 * decides on the caller and the tool alone, so that a tool a caller may not use is left
 * out of the caller's list as well as refused when called.
 */
export type ToolGuard = (request: AccessRequest) => boolean | Promise<boolean>;

/**
 * Who may use a tool: the scopes the caller's token must all carry, then guards that
 * must all allow. A tool without it is open to every caller; a caller without
 * credentials holds no scopes. Annotations are hints and never part of it.
 */
export interface ToolAccess {
  /** Scopes the caller's token must all carry. */
  readonly scopes?: readonly string[] | undefined;
  /** Guards that must all allow, asked in order once the scopes are there. */
  readonly guards?: readonly ToolGuard[] | undefined;
}

/**
 * Whether a caller may use a tool, and why not: `scope` names the scopes the caller
 * lacks, `guard` is a guard that refused, `failed` a guard that threw (refused too).
 */
export type AccessVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: 'scope'; readonly missing: readonly string[] }
  | { readonly allowed: false; readonly reason: 'guard' }
  | { readonly allowed: false; readonly reason: 'failed'; readonly error: unknown };
