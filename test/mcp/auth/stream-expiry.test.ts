/**
 * A listening stream lasts no longer than the token that opened it: when the token
 * expires the server ends the stream (a 2025-era session's GET stream, a 2026-07-28
 * `subscriptions/listen`), and the request that would reopen it needs a valid token.
 */
import { newTool } from 'agenttool';
import { type HttpListener, jwtVerifier, type McpToolServer, serveTools } from 'agenttool/mcp';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../../fixtures/oauth/jwt-authorization-server';
import { bearer, INITIALIZE, modern, post } from './helpers';

let issuer: JwtAuthorizationServer;
let server: McpToolServer;
let listener: HttpListener;

beforeAll(async () => {
  issuer = await startJwtAuthorizationServer({});
  // Its list may change, so that clients listen for changes on a stream.
  server = serveTools(
    [newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'echo' }) })],
    { listChanged: true },
  );
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

/** A token of `subject` that expires in `seconds`. */
const token = (subject: string, seconds: number) =>
  bearer(issuer.mint({ sub: subject, aud: listener.url }, { expiresIn: seconds }));

/** Reads `response`'s stream to its end; resolves with what it carried. */
async function readToEnd(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const next = await reader.read();
    if (next.done) return text;
    text += decoder.decode(next.value, { stream: true });
  }
}

test('2026-07-28: a subscriptions/listen stream ends when its token expires', async () => {
  const auth = token('ada', 2);
  const opened = await fetch(listener.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      ...auth,
    },
    body: JSON.stringify(
      modern('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ),
  });
  expect(opened.status).toBe(200);
  // The stream is open (it was acknowledged) and ends by itself: the test's timeout would
  // end a stream that outlived its token.
  expect(await readToEnd(opened)).toContain('notifications/subscriptions/acknowledged');
  const again = await post(
    listener.url,
    modern('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    auth,
  );
  expect(again.status).toBe(401);
  expect(again.headers.get('www-authenticate')).toContain('The access token has expired');
});

test("2025 era: a session's GET stream ends when the token that opened it expires", async () => {
  const long = token('bob', 300);
  const opened = await post(listener.url, INITIALIZE, long);
  const session = opened.headers.get('mcp-session-id')!;
  const stream = await fetch(listener.url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
      ...token('bob', 2),
    },
  });
  expect(stream.status).toBe(200);
  await readToEnd(stream);
  // The session itself goes on: a request with a valid token reaches it.
  const listed = await post(
    listener.url,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...long },
  );
  expect(listed.status).toBe(200);
  expect(listed.message?.result).toMatchObject({ tools: [{ name: 'echo' }] });
});
