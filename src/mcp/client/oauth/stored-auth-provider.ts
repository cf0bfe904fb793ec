import {
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { AgentToolError, errorMessage } from '../../../core';
import { type StoredGrant, type TokenKey, tokenKey, type TokenStore } from './token-store';

/** What {@link StoredAuthProvider} takes. */
export interface StoredAuthProviderOptions {
  /** Where the grant persists. */
  readonly store: TokenStore;
  /** Which grant: the MCP server URL and the user ("" or absent for one user). */
  readonly key: { readonly endpoint: string | URL; readonly subject?: string };
  /** This client as the authorization server should register it. */
  readonly clientMetadata: OAuthClientMetadata;
  /**
   * This client's metadata document (an HTTPS URL), used as its `client_id` where the
   * authorization server takes Client ID Metadata Documents
   * (`client_id_metadata_document_supported`), in place of registering.
   */
  readonly clientMetadataUrl?: string;
  /** Where the authorization server sends the user back; absent for non-interactive grants. */
  readonly redirectUrl?: string | URL;
  /** A registration made beforehand; without one the client registers itself. */
  readonly clientInformation?: OAuthClientInformationMixed;
  /**
   * Sends the user to the authorization page and resolves with what the redirect brought
   * back: the callback URL, or its query (so the issuer it names is checked, RFC 9207),
   * or the bare authorization code. Without it, a connection that needs the user fails
   * and says which page to open.
   */
  readonly authorize?: (authorizationUrl: URL) => Promise<string | URL | URLSearchParams>;
  /**
   * Receives a failed save. Required: a failed save of a rotated refresh token would
   * otherwise lose the grant unseen. The request goes on; the save is retried.
   */
  readonly onSaveError: (error: Error) => void;
}

/**
 * The SDK's `OAuthClientProvider` backed by a {@link TokenStore}: tokens and the client
 * registration are loaded from the store on first use and saved whenever the SDK hands
 * over new ones, so a refresh token the authorization server rotates is kept and the
 * grant survives a restart. A failed save goes to `onSaveError`, never fails the
 * request, and is retried when the tokens are next read.
 *
 * Give it as `authProvider` of a Streamable HTTP target; with `authorize`, `connectMcp`
 * completes an interactive authorization and connects, and later completes those the
 * server asks for (a 401, a 403 asking for more scope, a move to another authorization
 * server, which is then registered with afresh) and sends the request again.
 */
export class StoredAuthProvider implements OAuthClientProvider {
  private readonly key: TokenKey;
  private loaded: Promise<void> | undefined;
  private grant: StoredGrant = {};
  private unsaved = false;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private pendingCode: string | URLSearchParams | undefined;
  /** The `clientMetadataUrl` option: this client's metadata document, its CIMD `client_id`. */
  readonly clientMetadataUrl?: string;

  constructor(private readonly options: StoredAuthProviderOptions) {
    if (options?.store === undefined || options.clientMetadata === undefined) {
      throw new AgentToolError(
        'CONNECTION',
        'mcp: StoredAuthProvider needs a store and the client metadata',
      );
    }
    if (typeof options.onSaveError !== 'function') {
      throw new AgentToolError(
        'CONNECTION',
        'mcp: StoredAuthProvider needs onSaveError, or a failed save would lose a rotated refresh token unseen',
      );
    }
    this.key = tokenKey(options.key);
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string | URL | undefined {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.options.clientMetadata;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    await this.load();
    return this.grant.clientInformation ?? this.options.clientInformation;
  }

  async saveClientInformation(clientInformation: StoredOAuthClientInformation): Promise<void> {
    await this.load();
    this.grant = { ...this.grant, clientInformation };
    await this.persist();
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    await this.load();
    if (this.unsaved) await this.persist();
    return this.grant.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.load();
    const fresh = tokens.access_token !== this.grant.tokens?.access_token;
    this.grant = { ...this.grant, tokens, savedAt: new Date().toISOString() };
    // New tokens complete the authorization: the next one (a 401 later) discovers afresh
    // which authorization server the MCP server names, and follows it if it moved
    // (SEP-2352). The same tokens saved again (the SDK stamping their issuer) do not.
    if (fresh) this.discovery = undefined;
    await this.persist();
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.options.authorize === undefined) {
      throw new AgentToolError(
        'CONNECTION',
        `mcp: ${this.key.endpoint} needs the user to authorize at ${authorizationUrl.href}; give StoredAuthProvider an authorize callback, or store a grant first`,
      );
    }
    const back = await this.options.authorize(authorizationUrl);
    this.pendingCode = back instanceof URL ? back.searchParams : back;
  }

  /**
   * What the last authorization brought back, once; `connectMcp` exchanges it, at
   * connect and when the server asks for authorization (or more scope) later.
   */
  takeAuthorizationCode(): string | URLSearchParams | undefined {
    const code = this.pendingCode;
    this.pendingCode = undefined;
    return code;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) {
      throw new AgentToolError(
        'CONNECTION',
        'mcp: no authorization in progress (no code verifier)',
      );
    }
    return this.verifier;
  }

  /**
   * Kept for the authorization in progress only (its code is exchanged with the
   * authorization server it was asked of); dropped once new tokens are saved.
   */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    await this.load();
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    if (scope === 'all' || scope === 'tokens' || scope === 'client') {
      const { tokens, clientInformation } = this.grant;
      this.grant = {
        ...(scope === 'client' && tokens !== undefined ? { tokens } : {}),
        ...(scope === 'tokens' && clientInformation !== undefined ? { clientInformation } : {}),
      };
      await this.persist();
    }
  }

  private load(): Promise<void> {
    this.loaded ??= this.options.store.load(this.key).then(
      (grant) => {
        if (grant !== undefined) this.grant = grant;
      },
      (error: unknown) => {
        this.loaded = undefined; // try again on the next request
        throw new AgentToolError(
          'CONNECTION',
          `mcp: token store: load ${this.key.endpoint}: ${errorMessage(error)}`,
          { cause: error },
        );
      },
    );
    return this.loaded;
  }

  /** Saves the grant; a failure is reported and retried later, never thrown. */
  private async persist(): Promise<void> {
    const grant = this.grant;
    try {
      await this.options.store.save(this.key, grant);
      if (this.grant === grant) this.unsaved = false;
    } catch (error) {
      this.unsaved = true;
      try {
        this.options.onSaveError(
          new AgentToolError(
            'CONNECTION',
            `mcp: token store: save ${this.key.endpoint}: ${errorMessage(error)}`,
            { cause: error },
          ),
        );
      } catch {
        // The report is best effort; the request goes on either way.
      }
    }
  }
}
