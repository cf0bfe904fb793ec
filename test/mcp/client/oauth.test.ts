import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrossAppAccessProvider, requestJwtAuthorizationGrant } from '@modelcontextprotocol/client';
import { createContext, type Tool } from 'agenttool';
import {
  connectMcp,
  FileTokenStore,
  type HttpTarget,
  MemoryTokenStore,
  type StoredGrant,
  StoredAuthProvider,
  type StoredAuthProviderOptions,
  type TokenKey,
  type TokenStore,
} from 'agenttool/mcp';
import {
  followAuthorization,
  type OAuthFixture,
  startOAuthFixture,
} from '../../fixtures/oauth/oauth-fixture';

const REDIRECT = 'http://127.0.0.1:8976/callback';
const clientMetadata = {
  client_name: 'agenttool tests',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

let fixture: OAuthFixture;
let dir: string;

beforeEach(async () => {
  fixture = await startOAuthFixture('ada');
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agenttool-oauth-'));
});

afterEach(async () => {
  await fixture.close();
  await fs.rm(dir, { recursive: true, force: true });
});

function provider(
  store: TokenStore,
  extra: Partial<StoredAuthProviderOptions> = {},
): StoredAuthProvider {
  return new StoredAuthProvider({
    store,
    key: { endpoint: fixture.mcpUrl },
    clientMetadata,
    redirectUrl: REDIRECT,
    onSaveError: (error) => {
      throw error; // a test that expects failures passes its own
    },
    ...extra,
  });
}

async function whoami(authProvider: NonNullable<HttpTarget['authProvider']>): Promise<string> {
  const remote = await connectMcp({ transport: { url: fixture.mcpUrl, authProvider } });
  try {
    const tool = remote.tools().find((t) => t.name === 'whoami') as Tool;
    const result = await tool.execute({ id: 'c', args: '{}' }, createContext());
    return result.output as string;
  } finally {
    await remote.close();
  }
}

const key = (): TokenKey => ({ endpoint: fixture.mcpUrl, subject: '' });
const never = (): Promise<string> => Promise.reject(new Error('asked the user again'));

describe('OAuth with a stored grant', () => {
  it('authorizes interactively once, then a restart uses the stored grant', async () => {
    const store = new FileTokenStore(path.join(dir, 'tokens.json'));
    const asked: URL[] = [];
    const first = provider(store, {
      authorize: async (url) => (asked.push(url), followAuthorization(url)),
    });
    await expect(whoami(first)).resolves.toBe('ada');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.origin).toBe(fixture.issuer);
    expect(fixture.codesExchanged).toBe(1);
    const saved = await store.load(key());
    expect(saved?.tokens?.refresh_token).toMatch(/^r1-/);
    expect(saved?.clientInformation?.client_id).toBe('client-1');
    expect((await fs.stat(store.file)).mode & 0o777).toBe(0o600);

    // A new process: a new provider over the same file, nobody to ask.
    await expect(
      whoami(provider(new FileTokenStore(store.file), { authorize: never })),
    ).resolves.toBe('ada');
    expect(fixture.codesExchanged).toBe(1);
  });

  it('saves each rotated refresh token, so the grant survives restarts (r1 -> r2 -> r3)', async () => {
    const file = path.join(dir, 'tokens.json');
    await whoami(provider(new FileTokenStore(file), { authorize: followAuthorization }));

    fixture.expireAccessTokens();
    await expect(whoami(provider(new FileTokenStore(file), { authorize: never }))).resolves.toBe(
      'ada',
    );
    fixture.expireAccessTokens();
    // r1 no longer works: this restart succeeds only because r2 was saved.
    await expect(whoami(provider(new FileTokenStore(file), { authorize: never }))).resolves.toBe(
      'ada',
    );

    expect(fixture.refreshesWith.map((t) => t.split('-')[0])).toEqual(['r1', 'r2']);
    const saved = await new FileTokenStore(file).load(key());
    expect(saved?.tokens?.refresh_token).toMatch(/^r3-/);
    expect(saved?.tokens?.access_token).toMatch(/^a3-/);
  });

  it('reports a failed save without failing the request, and retries it', async () => {
    const inner = new MemoryTokenStore();
    let failing = false;
    const flaky: TokenStore = {
      load: (k) => inner.load(k),
      save: (k, grant) => (failing ? Promise.reject(new Error('disk full')) : inner.save(k, grant)),
    };
    const errors: Error[] = [];
    const p = provider(flaky, {
      authorize: followAuthorization,
      onSaveError: (e) => errors.push(e),
    });
    await whoami(p);
    failing = true;
    fixture.expireAccessTokens();
    // The refresh's save fails: reported (once per attempt), the request still succeeds.
    const remote = await connectMcp({ transport: { url: fixture.mcpUrl, authProvider: p } });
    try {
      expect(errors.length).toBeGreaterThan(0);
      expect(new Set(errors.map((e) => e.message))).toEqual(
        new Set([`mcp: token store: save ${fixture.mcpUrl}: disk full`]),
      );
      expect((await inner.load(key()))?.tokens?.refresh_token).toMatch(/^r1-/);
      // The store recovers: the next request saves the rotated token.
      failing = false;
      const tool = remote.tools().find((t) => t.name === 'whoami') as Tool;
      await expect(tool.execute({ id: 'c', args: '{}' }, createContext())).resolves.toMatchObject({
        output: 'ada',
      });
    } finally {
      await remote.close();
    }
    expect((await inner.load(key()))?.tokens?.refresh_token).toMatch(/^r2-/);
  });

  it('says which page to open when authorization is needed and nobody can be asked', async () => {
    await expect(whoami(provider(new MemoryTokenStore()))).rejects.toThrow(
      /needs the user to authorize at http:\/\/127\.0\.0\.1:\d+\/authorize\?.*give StoredAuthProvider an authorize callback/,
    );
  });

  it('refuses a provider without onSaveError or store', () => {
    expect(
      () =>
        new StoredAuthProvider({
          store: new MemoryTokenStore(),
          key: { endpoint: 'http://x/mcp' },
          clientMetadata,
        } as unknown as StoredAuthProviderOptions),
    ).toThrow(
      'mcp: StoredAuthProvider needs onSaveError, or a failed save would lose a rotated refresh token unseen',
    );
    expect(
      () =>
        new StoredAuthProvider({
          key: { endpoint: 'http://x/mcp' },
          clientMetadata,
          onSaveError: () => undefined,
        } as unknown as StoredAuthProviderOptions),
    ).toThrow('mcp: StoredAuthProvider needs a store and the client metadata');
    expect(
      () =>
        new StoredAuthProvider({
          store: new MemoryTokenStore(),
          key: { endpoint: '' },
          clientMetadata,
          onSaveError: () => undefined,
        }),
    ).toThrow('mcp: token key needs the endpoint');
  });
});

describe('OAuth the server asks for after the connection is up', () => {
  /** A connection authorized at connect, whose calls of whoami go through `run`. */
  async function connected(
    asked: URL[],
    run: (call: () => Promise<unknown>) => Promise<void>,
  ): Promise<void> {
    const p = provider(new MemoryTokenStore(), {
      authorize: async (url) => (asked.push(url), followAuthorization(url)),
    });
    const remote = await connectMcp({ transport: { url: fixture.mcpUrl, authProvider: p } });
    try {
      const tool = remote.tools().find((t) => t.name === 'whoami') as Tool;
      await run(async () => (await tool.execute({ id: 'c', args: '{}' }, createContext())).output);
    } finally {
      await remote.close();
    }
  }

  it('steps up on 403 insufficient_scope: authorizes the wider scope, then sends the call again', async () => {
    fixture.requireScopes('tools/call', ['mcp:write']);
    const asked: URL[] = [];
    await connected(asked, async (call) => {
      await expect(call()).resolves.toBe('ada');
      // The token now has the scope: no more authorizations.
      await expect(call()).resolves.toBe('ada');
    });
    expect(fixture.authorizations.map((a) => a.scopes)).toEqual([[], ['mcp:write']]);
    expect(asked).toHaveLength(2);
  });

  it('asks for the union of the scopes, and again for each new challenge', async () => {
    fixture.requireScopes('tools/call', (attempt) =>
      attempt === 1 ? ['mcp:read'] : ['mcp:read', 'mcp:write'],
    );
    await connected([], async (call) => {
      await expect(call()).resolves.toBe('ada');
    });
    expect(fixture.authorizations.map((a) => a.scopes)).toEqual([
      [],
      ['mcp:read'],
      ['mcp:read', 'mcp:write'],
    ]);
  });

  it('gives up, naming the scope, when the server refuses the call again for the scope just asked for', async () => {
    // The authorization server never grants mcp:unobtainable: the step-up cannot succeed.
    fixture.requireScopes('tools/call', ['mcp:admin', 'mcp:unobtainable']);
    let authorized = 0;
    await connected([], async (call) => {
      await expect(call()).rejects.toThrow(
        'mcp: tools/call "whoami": the server still refuses the request for want of scope "mcp:admin mcp:unobtainable" (403 insufficient_scope) after 1 authorization; giving up',
      );
      authorized = fixture.authorizations.length;
    });
    // One at connect, one step-up: the second refusal of the same scope ends it.
    expect(authorized).toBe(2);
  });

  it('gives up after a bounded number of authorizations when each asks for more', async () => {
    fixture.requireScopes('tools/call', (attempt) => [`mcp:level${attempt}`, 'mcp:unobtainable']);
    await connected([], async (call) => {
      await expect(call()).rejects.toThrow(
        /^mcp: tools\/call "whoami": the server still refuses the request for want of scope "mcp:level3 mcp:unobtainable" \(403 insufficient_scope\) after 2 authorizations; giving up$/,
      );
    });
    // One at connect, then MAX_REAUTHORIZATIONS (2) for the call, and no more.
    expect(fixture.authorizations).toHaveLength(3);
  });

  it('follows the server to another authorization server (SEP-2352): registers there, authorizes, sends again', async () => {
    const asked: URL[] = [];
    await connected(asked, async (call) => {
      await expect(call()).resolves.toBe('ada');
      fixture.moveAuthorizationServer();
      await expect(call()).resolves.toBe('ada');
      await expect(call()).resolves.toBe('ada');
    });
    expect(asked.map((url) => url.origin)).toEqual([fixture.issuer, fixture.secondIssuer]);
    expect(fixture.secondClients).toEqual(['as2-client-1']);
    // The first server's registration was not presented to the second.
    expect(fixture.authorizations.map((a) => [a.issuer, a.clientId])).toEqual([
      [fixture.issuer, 'client-1'],
      [fixture.secondIssuer, 'as2-client-1'],
    ]);
  });
});

describe('OAuth with cross-app access (SEP-990)', () => {
  it("exchanges the user's ID token at the IdP for an ID-JAG and presents it as a JWT bearer grant", async () => {
    const { clientId, clientSecret } = fixture.crossAppClient;
    const authProvider = new CrossAppAccessProvider({
      clientId,
      clientSecret,
      expectedIssuer: fixture.issuer,
      assertion: async (context) =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: fixture.idpTokenEndpoint,
            audience: context.authorizationServerUrl,
            resource: context.resourceUrl,
            idToken: fixture.idToken,
            clientId: 'idp-client',
            fetchFn: context.fetchFn,
          })
        ).jwtAuthGrant,
    });
    await expect(whoami(authProvider)).resolves.toBe('ada');
    // The ID-JAG named the authorization server the protected resource metadata named,
    // and the MCP endpoint as the resource; no user was asked and no code exchanged.
    expect(fixture.idJagsIssued).toHaveLength(1);
    expect(new URL(fixture.idJagsIssued[0]?.audience ?? '').origin).toBe(fixture.issuer);
    expect(fixture.idJagsIssued[0]?.resource).toBe(fixture.mcpUrl);
    expect(fixture.jwtBearerGrants).toBe(1);
    expect(fixture.codesExchanged).toBe(0);
  });
});

describe('token stores', () => {
  const grant: StoredGrant = {
    tokens: { access_token: 'a', token_type: 'Bearer', refresh_token: 'r' },
  };

  it('MemoryTokenStore keeps grants per endpoint and subject, and copies them', async () => {
    const store = new MemoryTokenStore();
    const alice = { endpoint: 'http://x/mcp', subject: 'alice' };
    const mine = JSON.parse(JSON.stringify(grant)) as { tokens: { access_token: string } };
    await store.save(alice, mine as StoredGrant);
    mine.tokens.access_token = 'changed after save';
    const loaded = await store.load(alice);
    expect(loaded).toEqual(grant);
    (loaded as { tokens: { access_token: string } }).tokens.access_token = 'changed after load';
    expect(await store.load(alice)).toEqual(grant);
    expect(await store.load({ endpoint: 'http://x/mcp', subject: 'bob' })).toBeUndefined();
    expect(await store.load({ endpoint: 'http://y/mcp', subject: 'alice' })).toBeUndefined();
  });

  it('FileTokenStore round-trips several keys and refuses a file that is not its own', async () => {
    const file = path.join(dir, 'nested', 'tokens.json');
    const store = new FileTokenStore(file);
    expect(await store.load({ endpoint: 'http://x/mcp', subject: '' })).toBeUndefined();
    await Promise.all([
      store.save({ endpoint: 'http://x/mcp', subject: '' }, grant),
      store.save({ endpoint: 'http://x/mcp', subject: 'bob' }, { ...grant, savedAt: 'then' }),
    ]);
    const reopened = new FileTokenStore(file);
    expect(await reopened.load({ endpoint: 'http://x/mcp', subject: '' })).toEqual(grant);
    expect((await reopened.load({ endpoint: 'http://x/mcp', subject: 'bob' }))?.savedAt).toBe(
      'then',
    );
    await fs.writeFile(file, '[1,2]');
    await expect(reopened.load({ endpoint: 'http://x/mcp', subject: '' })).rejects.toThrow(
      /is not a token store file/,
    );
  });
});
