// jose is loaded by the JWT verifier the first time it verifies a token, and by nothing
// else: an app served over HTTP with a verifier of its own never loads it.
let mockJoseLoaded = false;
jest.mock('jose', () => {
  mockJoseLoaded = true;
  return jest.requireActual<object>('jose');
});

import { newTool } from 'agenttool';
import { jwtVerifier, serveTools } from 'agenttool/mcp';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'r', version: '0' },
  },
});

test('an HTTP server with a verifier of its own does not load jose; the JWT verifier loads it on first use', async () => {
  const server = serveTools([newTool({ name: 'echo', execute: () => ({ output: 'x' }) })]);
  const handler = server.handler({
    auth: {
      resource: 'http://localhost/mcp',
      authorizationServers: ['http://localhost:9000'],
      verifyToken: (token) =>
        token === 'key-1' ? { subject: 'svc', clientId: '', scopes: [] } : undefined,
    },
  });
  const request = (token: string) =>
    handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: INITIALIZE,
      }),
    );
  try {
    expect((await request('key-1')).status).toBe(200);
    expect((await request('key-2')).status).toBe(401);
    const verify = jwtVerifier({
      issuer: 'http://localhost:9000',
      jwksUrl: 'http://localhost:9/jwks',
    });
    expect(mockJoseLoaded).toBe(false);
    // A token that is no JWT is refused before any key is fetched.
    await expect(
      verify('no-jwt', new Request('http://localhost/mcp'), 'http://localhost/mcp'),
    ).rejects.toThrow('The access token is not a JWT signed by a known key');
    expect(mockJoseLoaded).toBe(true);
  } finally {
    await handler.close();
    await server.close();
  }
});
