/**
 * Bearer tokens on every HTTP request, in both protocol eras and in stateless mode,
 * with raw requests (fetch): the JWT verifier against a real issuer's keys, the SDK's
 * 401 and 403 challenges, and the protected resource metadata they point to.
 */
import { newTool } from 'agenttool';
import {
  type HttpAuthOptions,
  type HttpListener,
  InvalidTokenError,
  jwtVerifier,
  type McpToolServer,
  serveTools,
} from 'agenttool/mcp';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
  tamperedToken,
  unsignedToken,
} from '../../fixtures/oauth/jwt-authorization-server';
import {
  type Answer,
  bearer,
  challengeOf,
  INITIALIZE,
  modern,
  post,
  resultText,
  send,
} from './helpers';

const echo = newTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: (call) => ({ output: (JSON.parse(call.args) as { text: string }).text }),
});

let issuer: JwtAuthorizationServer;
beforeAll(async () => {
  issuer = await startJwtAuthorizationServer({ ada: ['files:read'], bob: [] });
});
afterAll(() => issuer.close());

/** Serves `echo` over HTTP with the JWT verifier of the fixture's issuer. */
async function serve(
  extra: Partial<HttpAuthOptions> & { stateless?: boolean } = {},
  reported: unknown[] = [],
): Promise<{ server: McpToolServer; listener: HttpListener }> {
  const { stateless, ...auth } = extra;
  const server = serveTools([echo], { onError: (_m, error) => reported.push(error) });
  const listener = await server.listenHttp({
    ...(stateless === undefined ? {} : { stateless }),
    auth: {
      verifyToken: jwtVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }),
      authorizationServers: [issuer.issuer],
      ...auth,
    },
  });
  return { server, listener };
}

const metadataUrl = (listener: HttpListener): string =>
  `http://127.0.0.1:${listener.port}/.well-known/oauth-protected-resource/mcp`;

/** The first request of each era: one that needs no session. */
const opening = {
  '2025 era': INITIALIZE,
  '2026-07-28': modern('tools/list'),
} as const;

describe.each(Object.entries(opening))('%s', (_era, request) => {
  let server: McpToolServer;
  let listener: HttpListener;
  beforeAll(async () => ({ server, listener } = await serve()));
  afterAll(() => server.close());

  const good = () => issuer.mint({ sub: 'ada', aud: listener.url, scope: 'files:read' });

  test('a valid token is served', async () => {
    const answer = await post(listener.url, request, bearer(good()));
    expect(answer.status).toBe(200);
    expect(answer.message?.result).toBeDefined();
  });

  // The issuer's URL is known once it listens: `why` may name it as `<issuer>`.
  const refused: [string, () => Record<string, string>, string][] = [
    ['no Authorization header', () => ({}), 'Missing Authorization header'],
    [
      'another scheme',
      () => ({ authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}` }),
      "Invalid Authorization header format, expected 'Bearer TOKEN'",
    ],
    [
      'a valid token followed by more words',
      () => ({
        authorization: `${bearer(issuer.mint({ sub: 'ada', aud: listener.url })).authorization} extra`,
      }),
      "Invalid Authorization header format, expected 'Bearer TOKEN'",
    ],
    [
      'an expired token',
      () => bearer(issuer.mint({ sub: 'ada', aud: listener.url }, { expiresIn: -60 })),
      'The access token has expired',
    ],
    [
      'a token for another audience',
      () => bearer(issuer.mint({ sub: 'ada', aud: 'http://127.0.0.1:1/mcp' })),
      'The access token was not issued for this server (aud)',
    ],
    [
      'a token of another issuer',
      () => bearer(issuer.mint({ sub: 'ada', aud: listener.url, iss: 'http://127.0.0.1:2' })),
      'The access token was not issued by <issuer> (iss)',
    ],
    [
      'an unsigned token (alg: none)',
      () => bearer(unsignedToken({ iss: issuer.issuer, sub: 'ada', aud: listener.url, exp: 2e9 })),
      'The access token is not a JWT signed by a known key',
    ],
    [
      'a tampered token (its scope widened)',
      () => bearer(tamperedToken(good(), { scope: 'files:read files:write admin' })),
      "The access token's signature does not verify",
    ],
    [
      'a token signed with a key the issuer does not publish',
      () => bearer(issuer.mint({ sub: 'ada', aud: listener.url }, { foreignKey: true })),
      "The access token's signature does not verify",
    ],
    [
      'a token without a subject',
      () => bearer(issuer.mint({ aud: listener.url }, { omit: ['sub'] })),
      'The access token\'s "sub" claim is not valid',
    ],
    ...(
      [
        ['a numeric subject', 42],
        ['an empty subject', ''],
        ['an object for a subject', { id: 'ada' }],
      ] as const
    ).map(([name, sub]): [string, () => Record<string, string>, string] => [
      `a token with ${name}`,
      () => bearer(issuer.mint({ sub, aud: listener.url })),
      'The access token\'s "sub" claim is not valid',
    ]),
    [
      'a token that is not a JWT',
      () => bearer('not-a-jwt'),
      'The access token is not a JWT signed by a known key',
    ],
  ];

  test.each(refused)('%s gets 401 and a challenge naming the metadata', async (_, headers, why) => {
    const answer = await post(listener.url, request, headers());
    why = why.replace('<issuer>', issuer.issuer);
    expect(answer.status).toBe(401);
    expect(challengeOf(answer)).toEqual({
      error: 'invalid_token',
      error_description: why,
      resource_metadata: metadataUrl(listener),
    });
    expect(JSON.parse(answer.text)).toEqual({ error: 'invalid_token', error_description: why });
  });
});

/** A 2025-era session opened with `token`: its id. */
async function openSession(listener: HttpListener, token: string): Promise<string> {
  const opened = await post(listener.url, INITIALIZE, bearer(token));
  expect(opened.status).toBe(200);
  const id = opened.headers.get('mcp-session-id') ?? '';
  expect(id).not.toBe('');
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const headers = { ...bearer(token), 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  expect((await post(listener.url, initialized, headers)).status).toBe(202);
  return id;
}

const call = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text } },
});

describe('every request is verified, not only the first (fastmcp#182)', () => {
  let server: McpToolServer;
  let listener: HttpListener;
  beforeAll(async () => ({ server, listener } = await serve()));
  afterAll(() => server.close());

  test('2025 era: a session opened with a token is refused without one, on every method', async () => {
    const token = issuer.mint({ sub: 'ada', aud: listener.url });
    const id = await openSession(listener, token);
    const session = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };

    expect(
      resultText(await post(listener.url, call(2, 'hi'), { ...session, ...bearer(token) })),
    ).toBe('hi');
    const expired = issuer.mint({ sub: 'ada', aud: listener.url }, { expiresIn: -1 });
    for (const headers of [{}, bearer(expired), bearer('forged')]) {
      const answers: Answer[] = [
        await post(listener.url, call(3, 'again'), { ...session, ...headers }),
        await send(listener.url, {
          method: 'GET',
          headers: { accept: 'text/event-stream', ...session, ...headers },
        }),
        await send(listener.url, { method: 'DELETE', headers: { ...session, ...headers } }),
      ];
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401]);
      for (const answer of answers) {
        expect(challengeOf(answer).resource_metadata).toBe(metadataUrl(listener));
      }
    }
    // The session is still there for its owner: the refused DELETEs ended nothing.
    expect(server.sessions.map((s) => s.id)).toContain(id);
    expect(
      resultText(await post(listener.url, call(4, 'still'), { ...session, ...bearer(token) })),
    ).toBe('still');
  });

  test('2026-07-28: each call is verified on its own', async () => {
    const token = issuer.mint({ sub: 'ada', aud: listener.url });
    const request = modern('tools/call', { name: 'echo', arguments: { text: 'now' } });
    expect(resultText(await post(listener.url, request, bearer(token)))).toBe('now');
    expect((await post(listener.url, request)).status).toBe(401);
  });

  test('stateless: an initialize with a token does not admit the next request', async () => {
    const stateless = await serve({ stateless: true });
    try {
      const url = stateless.listener.url;
      const token = issuer.mint({ sub: 'ada', aud: url });
      expect((await post(url, INITIALIZE, bearer(token))).status).toBe(200);
      expect(resultText(await post(url, call(2, 'x'), bearer(token)))).toBe('x');
      const refused = await post(url, call(3, 'y'));
      expect(refused.status).toBe(401);
      expect(challengeOf(refused).resource_metadata).toBe(metadataUrl(stateless.listener));
    } finally {
      await stateless.server.close();
    }
  });

  test('the signing keys are fetched once and cached across requests', async () => {
    const before = issuer.requests.filter((r) => r === 'GET /jwks').length;
    const fresh = await serve();
    try {
      const url = fresh.listener.url;
      for (let i = 0; i < 5; i++) {
        const token = issuer.mint({ sub: 'ada', aud: url });
        expect((await post(url, INITIALIZE, bearer(token))).status).toBe(200);
      }
      expect(issuer.requests.filter((r) => r === 'GET /jwks').length).toBe(before + 1);
    } finally {
      await fresh.server.close();
    }
  });
});

describe('scopes the server requires of every request', () => {
  test('a token without them gets 403 insufficient_scope naming them, with the metadata', async () => {
    const { server, listener } = await serve({ requiredScopes: ['mcp:use'] });
    try {
      const thin = issuer.mint({ sub: 'ada', aud: listener.url, scope: 'files:read' });
      for (const request of Object.values(opening)) {
        const answer = await post(listener.url, request, bearer(thin));
        expect(answer.status).toBe(403);
        expect(challengeOf(answer)).toEqual({
          error: 'insufficient_scope',
          error_description: 'Insufficient scope',
          scope: 'mcp:use',
          resource_metadata: metadataUrl(listener),
        });
      }
      const missing = await post(listener.url, INITIALIZE);
      expect(missing.status).toBe(401);
      expect(challengeOf(missing).scope).toBe('mcp:use');
      const full = issuer.mint({ sub: 'ada', aud: listener.url, scope: 'files:read mcp:use' });
      expect((await post(listener.url, INITIALIZE, bearer(full))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  let server: McpToolServer;
  let listener: HttpListener;
  beforeAll(async () => {
    server = serveTools([echo]);
    listener = await server.listenHttp({
      auth: {
        verifyToken: () => undefined,
        authorizationServers: [issuer.issuer],
        requiredScopes: ['mcp:use'],
        resourceName: 'Echo',
      },
    });
  });
  afterAll(() => server.close());

  test('is served at the path-suffixed well-known URL and at the root, without a token', async () => {
    const expected = {
      resource: listener.url,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:use'],
      resource_name: 'Echo',
    };
    const root = `http://127.0.0.1:${listener.port}/.well-known/oauth-protected-resource`;
    for (const url of [metadataUrl(listener), root, `${root}/mcp/`]) {
      const answer = await send(url, { method: 'GET' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(JSON.parse(answer.text)).toEqual(expected);
    }
    const posted = await send(metadataUrl(listener), { method: 'POST', body: '{}' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await send(`${root}/other`, { method: 'GET' })).status).toBe(404);
  });

  test('a mounted handler needs its public resource URL', () => {
    expect(() =>
      server.handler({
        auth: { verifyToken: () => undefined, authorizationServers: [issuer.issuer] },
      }),
    ).toThrow(
      'mcp: http: auth: resource is needed for a mounted handler: give the public URL of its endpoint, e.g. "https://mcp.example.com/mcp"',
    );
    expect(() =>
      server.handler({
        auth: { verifyToken: () => undefined, authorizationServers: [] },
      }),
    ).toThrow('mcp: http: auth: authorizationServers needs at least one issuer URL');
    expect(() =>
      server.handler({
        auth: {
          verifyToken: () => undefined,
          authorizationServers: ['https://as.example.com'],
          resource: 'https://mcp.example.com/mcp',
          requiredScopes: ['two words'],
        },
      }),
    ).toThrow('mcp: http: auth: requiredScopes: "two words" is not an OAuth scope name');
  });
});

describe('a verifier of ones own', () => {
  test('receives the token, the request and the resource; its refusals are 401, its failures 500', async () => {
    const reported: unknown[] = [];
    const seen: string[] = [];
    const server = serveTools([echo], { onError: (_m, error) => reported.push(error) });
    const listener = await server.listenHttp({
      auth: {
        authorizationServers: ['http://127.0.0.1:9/'],
        verifyToken: (token, request, resource) => {
          seen.push(`${token} ${request.headers.get('x-tenant')} ${resource}`);
          if (token === 'key-1') return { subject: 'svc', clientId: 'ci', scopes: [] };
          if (token === 'revoked') throw new InvalidTokenError('The key was revoked');
          if (token === 'nameless') return { subject: '', clientId: '', scopes: [] };
          if (token === 'broken') throw new Error('the key store is down');
          return undefined;
        },
      },
    });
    try {
      const send = (token: string) =>
        post(listener.url, INITIALIZE, { ...bearer(token), 'x-tenant': 't1' });
      expect((await send('key-1')).status).toBe(200);
      expect(seen).toEqual([`key-1 t1 ${listener.url}`]);

      const unknown = await send('other');
      expect(unknown.status).toBe(401);
      expect(challengeOf(unknown).error_description).toBe('The access token is not valid');
      const revoked = await send('revoked');
      expect(challengeOf(revoked).error_description).toBe('The key was revoked');
      expect(reported).toEqual([]);

      const broken = await send('broken');
      expect(broken.status).toBe(500);
      expect(broken.headers.get('www-authenticate')).toBeNull();
      expect(JSON.parse(broken.text)).toEqual({
        error: 'server_error',
        error_description: 'Internal Server Error',
      });
      expect((await send('nameless')).status).toBe(500);
      expect(reported.map((e) => (e as Error).message)).toEqual([
        'the key store is down',
        'mcp: http: verifyToken returned a caller without a subject (a session belongs to its subject; give the token\'s "sub")',
      ]);
    } finally {
      await server.close();
    }
  });
});
