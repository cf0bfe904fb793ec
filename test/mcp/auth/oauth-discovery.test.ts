/**
 * Our client logs in to our guarded server the way MCP says: the server's 401 names its
 * protected resource metadata, which names the authorization server, whose metadata
 * names where to register, authorize and get tokens (for the server's resource, RFC
 * 8707). Then a guarded tool: allowed with the scope, absent and refused without it.
 */
import { createContext, outputText, type Tool } from 'agenttool';
import {
  connectMcp,
  type HttpListener,
  jwtVerifier,
  type McpToolServer,
  MemoryTokenStore,
  type RemoteTools,
  serveTools,
  StoredAuthProvider,
} from 'agenttool/mcp';
import { newTool } from 'agenttool';
import { followAuthorization } from '../../fixtures/oauth/oauth-fixture';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../../fixtures/oauth/jwt-authorization-server';

const readNotes = newTool({
  name: 'read_notes',
  description: 'Reads the notes',
  access: { scopes: ['files:read'] },
  execute: (_call, ctx) => ({ output: `notes of ${ctx.auth?.subject ?? '?'}` }),
});
const writeNotes = newTool({
  name: 'write_notes',
  description: 'Writes the notes',
  access: { scopes: ['files:write'] },
  execute: (_call, ctx) => ({ output: `written by ${ctx.auth?.subject ?? '?'}` }),
});

let issuer: JwtAuthorizationServer;
let server: McpToolServer;
let listener: HttpListener;

beforeAll(async () => {
  issuer = await startJwtAuthorizationServer({
    ada: ['files:read', 'files:write'],
    bob: ['files:read'],
  });
  server = serveTools([readNotes, writeNotes]);
  listener = await server.listenHttp({
    auth: {
      verifyToken: jwtVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }),
      authorizationServers: [issuer.issuer],
    },
  });
});
afterAll(async () => {
  await server.close();
  await issuer.close();
});

function provider(): StoredAuthProvider {
  return new StoredAuthProvider({
    store: new MemoryTokenStore(),
    key: { endpoint: listener.url },
    clientMetadata: {
      client_name: 'agenttool tests',
      redirect_uris: ['http://127.0.0.1:8976/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    redirectUrl: 'http://127.0.0.1:8976/callback',
    authorize: followAuthorization,
    onSaveError: (error) => {
      throw error;
    },
  });
}

/** Connects as whoever the authorization server approves now, recording what it fetched. */
async function connectAs(
  subject: string,
  protocol: 'modern' | 'legacy',
): Promise<{ remote: RemoteTools; fetched: string[] }> {
  issuer.approveAs(subject);
  const fetched: string[] = [];
  const remote = await connectMcp({
    protocol,
    transport: {
      url: listener.url,
      authProvider: provider(),
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        fetched.push(`${init?.method ?? 'GET'} ${new URL(url).pathname} ${response.status}`);
        return response;
      },
    },
  });
  return { remote, fetched };
}

/** The steps of a first login at the authorization server, in order. */
const LOGIN = [
  'GET /.well-known/oauth-authorization-server',
  'POST /register',
  'GET /authorize',
  'POST /token',
];

/** The members of `wanted` found in `list` in that order. */
function subsequence(list: readonly string[], wanted: readonly string[]): string[] {
  const found: string[] = [];
  let at = 0;
  for (const item of list) if (item === wanted[at]) found.push(wanted[at++]!);
  return found;
}

async function run(remote: RemoteTools, name: string): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name) as Tool;
  const call = { id: 'call_1', args: '{}' };
  return outputText((await tool.execute(call, createContext({ call }))).output);
}

describe.each(['modern', 'legacy'] as const)('protocol %s', (protocol) => {
  test('a user with the scope logs in through the discovery chain and calls the guarded tool', async () => {
    const before = issuer.requests.length;
    const { remote, fetched } = await connectAs('ada', protocol);
    try {
      // The first request is refused; the challenge leads to the metadata, then the AS.
      expect(fetched.slice(0, 3)).toEqual([
        'POST /mcp 401',
        'GET /.well-known/oauth-protected-resource/mcp 200',
        'GET /.well-known/oauth-authorization-server 200',
      ]);
      expect(subsequence(issuer.requests.slice(before), LOGIN)).toEqual(LOGIN);
      // The token was asked for this server (RFC 8707), at authorization and exchange.
      expect(new Set(issuer.resources.slice(-2))).toEqual(new Set([listener.url]));
      expect(remote.tools().map((t) => t.name)).toEqual(['read_notes', 'write_notes']);
      await expect(run(remote, 'write_notes')).resolves.toBe('written by ada');
    } finally {
      await remote.close();
    }
  });

  test('a user without the scope does not see the tool, and calling it is refused', async () => {
    const { remote } = await connectAs('bob', protocol);
    try {
      expect(remote.tools().map((t) => t.name)).toEqual(['read_notes']);
      await expect(run(remote, 'read_notes')).resolves.toBe('notes of bob');
      const refused = await remote.session.callTool({ name: 'write_notes', arguments: {} });
      expect(refused).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'unknown tool "write_notes"' }],
      });
    } finally {
      await remote.close();
    }
  });
});
