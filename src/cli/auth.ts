import { existsSync } from 'node:fs';
import type * as Http from 'node:http';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Writable } from 'node:stream';
import {
  errorMessage,
  FileTokenStore,
  type HttpAuthOptions,
  type HttpTarget,
  jwtVerifier,
  StoredAuthProvider,
  type TokenVerifier,
} from './public-api';
import { CliError, ExitCode } from './exit-codes';
import type * as ImportFile from './import-file';

/** What `agenttool serve --http` takes to authorize its callers. */
export interface ServeAuthSpec {
  /** The authorization server's issuer URL: where clients get tokens. */
  readonly issuer?: string | undefined;
  /** The issuer's signing keys (JWKS), for JWT access tokens. */
  readonly jwks?: string | undefined;
  /** A module file exporting `verifyToken` (or a default function), instead of JWTs. */
  readonly verifier?: string | undefined;
  /** The server's resource identifier, the audience of its tokens (default: its URL). */
  readonly audience?: string | undefined;
  /** Scopes every request's token must carry. */
  readonly scopes?: readonly string[] | undefined;
}

/**
 * The server's authorization from the command line, or undefined when no `--auth-*`
 * option is given. Every mistake is a bad-arguments {@link CliError} saying what to
 * give.
 */
export async function serveAuth(
  spec: ServeAuthSpec,
  http: boolean,
): Promise<HttpAuthOptions | undefined> {
  const given = [spec.issuer, spec.jwks, spec.verifier, spec.audience, spec.scopes].some(
    (v) => v !== undefined,
  );
  if (!given) return undefined;
  if (!http) throw bad('agenttool: --auth-* options apply to --http only');
  if (spec.issuer === undefined) {
    throw bad(
      'agenttool: give --auth-issuer <url>: the authorization server clients get their tokens from',
    );
  }
  if ((spec.jwks === undefined) === (spec.verifier === undefined)) {
    throw bad(
      "agenttool: give one of --auth-jwks <url> (the issuer's signing keys, for JWT access tokens) or --auth-verifier <module.js> (a verifyToken of your own)",
    );
  }
  for (const [name, value] of [
    ['--auth-issuer', spec.issuer],
    ['--auth-jwks', spec.jwks],
    ['--auth-audience', spec.audience],
  ] as const) {
    if (value !== undefined && !URL.canParse(value)) {
      throw bad(`agenttool: ${name} ${JSON.stringify(value)} is not a URL`);
    }
  }
  const verifyToken =
    spec.verifier !== undefined
      ? await loadVerifier(spec.verifier)
      : jwtVerifier({
          issuer: spec.issuer,
          jwksUrl: spec.jwks ?? '',
          ...(spec.audience === undefined ? {} : { audience: spec.audience }),
        });
  return {
    verifyToken,
    authorizationServers: [spec.issuer],
    ...(spec.audience === undefined ? {} : { resource: spec.audience }),
    ...(spec.scopes === undefined ? {} : { requiredScopes: [...spec.scopes] }),
  };
}

async function loadVerifier(spec: string): Promise<TokenVerifier> {
  const file = resolve(spec);
  if (!existsSync(file)) {
    throw bad(
      `agenttool: --auth-verifier ${spec} not found; give a compiled .js file that exports verifyToken`,
    );
  }
  let namespace: Record<string, unknown>;
  try {
    // Named at run time: an ES module or a CommonJS one (its module.exports as default).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an entry of its own in the bundle (import-file.ts)
    const { importFile } = require('./import-file') as typeof ImportFile;
    namespace = await importFile(file);
  } catch (error) {
    throw bad(`agenttool: loading --auth-verifier ${spec} failed: ${errorMessage(error)}`);
  }
  // verifyToken, or a default function: of an ES module, or of a CommonJS module
  // (exports.verifyToken, module.exports = fn, or a compiled export default).
  const whole = namespace['default'];
  const member = (key: string): unknown =>
    typeof whole === 'object' && whole !== null
      ? (whole as Record<string, unknown>)[key]
      : undefined;
  const found = [namespace['verifyToken'], member('verifyToken'), whole, member('default')].find(
    (candidate) => typeof candidate === 'function',
  );
  if (typeof found !== 'function') {
    throw bad(
      `agenttool: --auth-verifier ${spec} exports no verifyToken function; export verifyToken(token, request, resource) => AuthInfo | undefined`,
    );
  }
  return found as TokenVerifier;
}

/** How `list` and `call` present themselves to an HTTP server that wants a bearer token. */
export interface ClientAuthSpec {
  /** A bearer token to send as it is. */
  readonly token?: string | undefined;
  /** Use the stored OAuth grant, logging in when there is none. */
  readonly oauth?: boolean | undefined;
  /** Where grants are stored (default {@link defaultTokenStore}). */
  readonly tokenStore?: string | undefined;
  /** The loopback port the authorization redirects to (default 8976). */
  readonly oauthPort?: number | undefined;
}

/** The default OAuth port: the redirect URI registered with the authorization server. */
export const DEFAULT_OAUTH_PORT = 8976;

/** `$AGENTTOOL_TOKENS`, else `$XDG_CONFIG_HOME/agenttool/tokens.json` (`~/.config`). */
export function defaultTokenStore(): string {
  const env = process.env.AGENTTOOL_TOKENS;
  if (env !== undefined && env !== '') return env;
  const config = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(config, 'agenttool', 'tokens.json');
}

/**
 * What an HTTP target carries for `spec`: an `Authorization` header for `--token`, or
 * for `--oauth` a {@link StoredAuthProvider} over the token store file, whose grant is
 * refreshed (and its rotated refresh token saved) as needed. Without a grant the user
 * is sent to the authorization page (its URL on `log`) and the redirect is awaited on
 * 127.0.0.1 at the OAuth port.
 */
export function clientAuth(
  spec: ClientAuthSpec,
  url: string,
  log: Writable,
): Pick<HttpTarget, 'authProvider'> & { headers?: Record<string, string> } {
  if (spec.token !== undefined && spec.oauth === true) {
    throw bad('agenttool: give --token or --oauth, not both');
  }
  if (spec.token !== undefined) {
    if (spec.token === '' || /\s/.test(spec.token)) {
      throw bad('agenttool: --token takes the access token itself, without "Bearer" or spaces');
    }
    return { headers: { Authorization: `Bearer ${spec.token}` } };
  }
  if (spec.oauth !== true) return {};
  const port = spec.oauthPort ?? DEFAULT_OAUTH_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw bad(`agenttool: --oauth-port ${String(spec.oauthPort)}: give a port, 1 to 65535`);
  }
  const redirectUrl = `http://127.0.0.1:${port}/callback`;
  const store = spec.tokenStore ?? defaultTokenStore();
  return {
    authProvider: new StoredAuthProvider({
      store: new FileTokenStore(store),
      key: { endpoint: url },
      clientMetadata: {
        client_name: 'agenttool',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      redirectUrl,
      authorize: (page) => awaitRedirect(page, port, log),
      onSaveError: (error) =>
        log.write(`agenttool: the grant could not be saved to ${store}: ${error.message}\n`),
    }),
  };
}

/**
 * Shows the authorization page and resolves with the URL the authorization server
 * redirects the browser to, received on 127.0.0.1:`port`.
 */
function awaitRedirect(page: URL, port: number, log: Writable): Promise<URL> {
  // node:http is loaded by the one command that listens, not at every command's start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  const { createServer } = require('node:http') as typeof Http;
  return new Promise((done, fail) => {
    const server = createServer((req, res) => {
      const back = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      if (back.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const error = back.searchParams.get('error');
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(
        error === null
          ? 'Authorized. You may close this page and return to the terminal.\n'
          : `Authorization failed: ${error}. You may close this page.\n`,
      );
      server.close();
      if (error === null) done(back);
      else {
        const why = back.searchParams.get('error_description');
        fail(
          new CliError(
            ExitCode.CONNECTION,
            `agenttool: authorization refused: ${error}${why === null ? '' : ` (${why})`}`,
          ),
        );
      }
    });
    server.once('error', (error) =>
      fail(
        new CliError(
          ExitCode.CONNECTION,
          `agenttool: --oauth: cannot receive the authorization's redirect on 127.0.0.1:${port}: ${error.message}; free the port or give another --oauth-port (the one the client was registered with)`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () =>
      log.write(
        `agenttool: authorize in a browser: open\n  ${page.href}\nagenttool: waiting for the redirect to http://127.0.0.1:${port}/callback\n`,
      ),
    );
  });
}

function bad(message: string): CliError {
  return new CliError(ExitCode.BAD_ARGUMENTS, message);
}
