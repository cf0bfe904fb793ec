import {
  type FetchLike,
  type JSONRPCMessage,
  type OAuthClientProvider,
  type StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { AgentToolError, goQuote, isJsonObject } from '../../core';
import { quotedExcerpt } from './excerpts';
import { clientSdk } from './sdk-modules';

/**
 * How many times one request may be authorized again after the connection is up (a 401,
 * or a 403 `insufficient_scope` asking for more scope) before it fails: each challenge
 * is answered by one authorization and one more send of the request.
 */
export const MAX_REAUTHORIZATIONS = 2;

/** A pending interactive authorization, as `StoredAuthProvider` keeps one. */
export interface AuthorizationCodeSource {
  /** What the last authorization brought back (the code or the redirect's query), once. */
  takeAuthorizationCode(): string | URLSearchParams | undefined;
}

/** The auth provider's pending authorization, when it keeps one (see {@link AuthorizationCodeSource}). */
export function codeSource(provider: unknown): AuthorizationCodeSource | undefined {
  const p = provider as Partial<AuthorizationCodeSource> | undefined;
  return typeof p?.takeAuthorizationCode === 'function'
    ? (p as AuthorizationCodeSource)
    : undefined;
}

/** The scopes asked for with each OAuth provider: those a server's 401 named, and step-ups'. */
const scopesAsked = new WeakMap<OAuthClientProvider, { scope: string | undefined }>();

function asked(provider: OAuthClientProvider): { scope: string | undefined } {
  let entry = scopesAsked.get(provider);
  if (entry === undefined) scopesAsked.set(provider, (entry = { scope: undefined }));
  return entry;
}

/**
 * `fetch` noting the scope each 401 challenge of the MCP endpoint `resource` names (the
 * authorization that answers it asks for that scope), so a later step-up asks for it
 * too, whichever transport of the provider's connection saw it.
 */
export function notingChallengedScopes(
  fetch: FetchLike,
  resource: URL,
  provider: OAuthClientProvider,
): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.status === 401 && String(url) === resource.href) {
      const { scope } = clientSdk().extractWWWAuthenticateParams(response);
      const entry = asked(provider);
      entry.scope = clientSdk().computeScopeUnion(entry.scope, scope);
    }
    return response;
  };
}

/** What {@link reauthorizingRequests} needs besides the transport. */
export interface ReauthorizingOptions {
  /** The MCP endpoint the transport speaks to (the protected resource). */
  readonly url: URL;
  /** The OAuth provider the transport was made with. */
  readonly provider: OAuthClientProvider;
  /** The fetch for the authorization server's endpoints; the global fetch when absent. */
  readonly fetch?: FetchLike | undefined;
}

/** Turns on the handling of a transport set up by {@link reauthorizingRequests}. */
export interface Reauthorizing {
  /**
   * From now on (the connection is up), a request the server answers 401 is authorized
   * and sent again too; before, `connectClient` completes that authorization itself.
   */
  arm(): void;
}

/**
 * Makes a Streamable HTTP transport (made with `onInsufficientScope: 'throw'`) finish the
 * authorizations a server asks for, and send the request again. A 401 is handled so only
 * once {@link Reauthorizing.arm}ed (at connect, `connectClient` completes that
 * authorization itself, on a fresh transport); a 403 asking for more scope, always.
 *
 * - A 401: the SDK's transport has already run the authorization flow (the provider
 *   took the user through it); the code it brought back is exchanged (`finishAuth`) and
 *   the request sent again. A provider that keeps discovery state only for an
 *   authorization in progress (as `StoredAuthProvider` does) discovers the
 *   authorization server afresh for it, so a server that moved to another one
 *   (SEP-2352) is registered and authorized with there.
 * - A 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`: step-up.
 *   The union of the scopes asked for with the provider (see
 *   {@link notingChallengedScopes}), the token's and the challenge's is requested (a fresh authorization when it is wider than the token's, since a
 *   refresh cannot widen a grant), then the request is sent again.
 *
 * A request is authorized at most {@link MAX_REAUTHORIZATIONS} times, and fails at once
 * when the server refuses it for scope the last step-up for it already asked for; the
 * error (`CONNECTION`) names the scope. Authorizations are made one at a time; a request
 * whose turn comes after another's authorization changed the token is just sent again.
 */
export function reauthorizingRequests(
  transport: StreamableHTTPClientTransport,
  options: ReauthorizingOptions,
): Reauthorizing {
  const send = transport.send.bind(transport);
  const { provider } = options;
  let armed = false;
  /** The authorization in progress; the next one waits for it. */
  let turn: Promise<unknown> = Promise.resolve();

  const accessToken = async (): Promise<string | undefined> =>
    (await provider.tokens())?.access_token;

  /** One authorization for `challenge`, in turn; false when there is nothing to do. */
  const authorize = (challenge: Challenge, tokenBefore: string | undefined): Promise<boolean> => {
    const run = turn.then(async () => {
      if (challenge.kind === 'unauthorized') {
        const code = codeSource(provider)?.takeAuthorizationCode();
        if (code !== undefined) {
          await (typeof code === 'string'
            ? transport.finishAuth(code)
            : transport.finishAuth(code));
          return true;
        }
        // Another request's authorization may have brought a new token meanwhile.
        return (await accessToken()) !== tokenBefore;
      }
      if ((await accessToken()) !== tokenBefore) return true;
      const sdk = clientSdk();
      const tokens = await provider.tokens();
      const requested = asked(provider);
      const scope = sdk.computeScopeUnion(requested.scope, tokens?.scope, challenge.scope);
      requested.scope = scope;
      const result = await sdk.auth(provider, {
        serverUrl: options.url,
        ...(challenge.resourceMetadataUrl !== undefined
          ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
          : {}),
        ...(scope !== undefined ? { scope } : {}),
        forceReauthorization: sdk.isStrictScopeSuperset(scope, tokens?.scope),
        ...(options.fetch !== undefined ? { fetchFn: options.fetch } : {}),
      });
      if (result === 'AUTHORIZED') return true;
      const code = codeSource(provider)?.takeAuthorizationCode();
      if (code === undefined) {
        throw new sdk.UnauthorizedError(
          `the server asks for scope ${quotedExcerpt(challenge.scope ?? '')} and the authorization did not complete`,
        );
      }
      await (typeof code === 'string' ? transport.finishAuth(code) : transport.finishAuth(code));
      return true;
    });
    turn = run.catch(() => undefined);
    return run;
  };

  transport.send = async (
    message: JSONRPCMessage,
    sendOptions?: Parameters<StreamableHTTPClientTransport['send']>[1],
  ): Promise<void> => {
    if (!isRequest(message) || sendOptions?.resumptionToken !== undefined) {
      return send(message, sendOptions);
    }
    /** The scopes step-ups asked for this request. */
    let askedFor: string | undefined;
    for (let authorizations = 0; ; authorizations++) {
      const tokenBefore = await accessToken();
      try {
        return await send(message, sendOptions);
      } catch (error) {
        const challenge = challengeOf(error);
        if (challenge === undefined || (challenge.kind === 'unauthorized' && !armed)) throw error;
        const sdk = clientSdk();
        const again =
          challenge.kind === 'insufficient_scope' &&
          askedFor !== undefined &&
          !sdk.isStrictScopeSuperset(sdk.computeScopeUnion(askedFor, challenge.scope), askedFor);
        if (authorizations >= MAX_REAUTHORIZATIONS || again) {
          // A code the transport's flow brought back is not used.
          if (challenge.kind === 'unauthorized') codeSource(provider)?.takeAuthorizationCode();
          throw gaveUp(message, challenge, authorizations, error);
        }
        if (challenge.kind === 'insufficient_scope') {
          askedFor = sdk.computeScopeUnion(askedFor, challenge.scope);
        }
        if (!(await authorize(challenge, tokenBefore))) throw error;
      }
    }
  };

  return {
    arm: () => {
      armed = true;
    },
  };
}

/** What the server asked for: authorization (401), or more scope (403 insufficient_scope). */
type Challenge =
  | { readonly kind: 'unauthorized' }
  | {
      readonly kind: 'insufficient_scope';
      readonly scope: string | undefined;
      readonly resourceMetadataUrl: URL | undefined;
    };

function challengeOf(error: unknown): Challenge | undefined {
  const sdk = clientSdk();
  if (error instanceof sdk.InsufficientScopeError) {
    return {
      kind: 'insufficient_scope',
      scope: error.requiredScope,
      resourceMetadataUrl: error.resourceMetadataUrl,
    };
  }
  if (error instanceof sdk.UnauthorizedError) return { kind: 'unauthorized' };
  return undefined;
}

function isRequest(message: JSONRPCMessage): boolean {
  return !Array.isArray(message) && clientSdk().isJSONRPCRequest(message);
}

/** `mcp: <method> ["<name>"]: ...`: the request gave up after `authorizations`. */
function gaveUp(
  message: JSONRPCMessage,
  challenge: Challenge,
  authorizations: number,
  cause: unknown,
): AgentToolError {
  const request = message as { method?: unknown; params?: unknown };
  const name = isJsonObject(request.params) ? request.params.name : undefined;
  const where = `mcp: ${String(request.method)}${typeof name === 'string' ? ` ${goQuote(name)}` : ''}`;
  const after = `after ${authorizations} authorization${authorizations === 1 ? '' : 's'}`;
  const reason =
    challenge.kind === 'insufficient_scope'
      ? `the server still refuses the request for want of scope ${quotedExcerpt(challenge.scope ?? '')} (403 insufficient_scope) ${after}; giving up`
      : `the server still asks for authorization (401) ${after}; giving up`;
  return new AgentToolError('CONNECTION', `${where}: ${reason}`, { cause });
}
