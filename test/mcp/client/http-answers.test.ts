/**
 * What a call over Streamable HTTP says when the server's answer is no MCP answer: a
 * response that ended without the call's answer fails the call at once (not at its
 * timeout), an HTTP error names its status (and the authorization a 401 or 403 asks
 * for), a body of another kind names its content type, a message that is no JSON-RPC
 * message or a result whose content is no list says so; and the connection serves the
 * next call. A 2025-era server of our own on loopback, answering as a test asks.
 */
import * as http from 'node:http';
import { connectMcp } from 'agenttool/mcp';
import { callFirstTool, listenOnLoopback } from '../../support/loopback-http';
import { connectError } from '../../../src/mcp/client/connect';
import { clientSdk } from '../../../src/mcp/client/sdk-modules';

type Answer =
  | 'ok'
  | 'accepted'
  | 'wrong-id'
  | 'notification-only'
  | 'result-string'
  | 'not-json'
  | 'html'
  | 'server-error'
  | 'unauthorized'
  | 'forbidden'
  | 'content-string'
  | 'error-no-id';

interface Scripted {
  readonly url: string;
  next: Answer;
  close(): Promise<void>;
}

const json = { 'content-type': 'application/json', 'mcp-session-id': 's1' };

async function startScripted(initialize: 'ok' | 'server-error' = 'ok'): Promise<Scripted> {
  const scripted = { next: 'ok' as Answer };
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: unknown; method?: string };
      const answer = (value: object) =>
        JSON.stringify({ jsonrpc: '2.0', id: message.id, ...value });
      const result = (value: unknown) => answer({ result: value });
      switch (message.method) {
        case 'initialize':
          if (initialize === 'server-error') return void res.writeHead(500).end('kaboom');
          return void res.writeHead(200, json).end(
            result({
              protocolVersion: '2025-03-26',
              serverInfo: { name: 'scripted', version: '1.0.0' },
              capabilities: { tools: {} },
            }),
          );
        case 'tools/list':
          return void res
            .writeHead(200, json)
            .end(result({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
        case 'tools/call':
          switch (scripted.next) {
            case 'ok':
              return void res
                .writeHead(200, json)
                .end(result({ content: [{ type: 'text', text: 'fine' }] }));
            case 'accepted':
              return void res.writeHead(202).end();
            case 'wrong-id':
              return void res
                .writeHead(200, json)
                .end(JSON.stringify({ jsonrpc: '2.0', id: 'other', result: { content: [] } }));
            case 'notification-only':
              return void res
                .writeHead(200, json)
                .end(
                  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} }),
                );
            case 'result-string':
              return void res.writeHead(200, json).end(result('fine'));
            case 'not-json':
              return void res.writeHead(200, json).end('{"jsonrpc": "2.0", oops');
            case 'html':
              return void res
                .writeHead(200, { 'content-type': 'text/html' })
                .end('<html>sign in</html>');
            case 'server-error':
              return void res.writeHead(500, { 'content-type': 'text/plain' }).end('kaboom');
            case 'unauthorized':
              return void res.writeHead(401).end();
            case 'forbidden':
              return void res.writeHead(403, { 'content-type': 'text/plain' }).end('not yours');
            case 'error-no-id':
              return void res.writeHead(200, json).end(
                JSON.stringify({
                  jsonrpc: '2.0',
                  id: null,
                  error: { code: -32700, message: 'Parse error: the body was cut' },
                }),
              );
            case 'content-string':
              return void res.writeHead(200, json).end(result({ content: 'hello' }));
          }
          return;
        default:
          if (message.id === undefined) return void res.writeHead(202).end();
          return void res.writeHead(200, json).end(result({}));
      }
    });
  });
  return Object.assign(scripted, await listenOnLoopback(server));
}

const call = callFirstTool;

test('an answer that is no MCP answer fails its call at once, saying what came, and the next is served', async () => {
  const server = await startScripted();
  // A call left waiting would end on this limit, far past the test's own.
  const remote = await connectMcp({
    transport: { url: server.url },
    protocol: 'legacy',
    callTimeout: 60_000,
  });
  const authorize =
    "it wants an authorization this connection did not give (connectMcp's authProvider, or an Authorization header)";
  const cases: [Answer, string][] = [
    [
      'accepted',
      'mcp: call "echo": the server answered the request with HTTP 202 Accepted, which answers notifications only: a request is answered with JSON or an event stream',
    ],
    [
      'wrong-id',
      `mcp: call "echo": the server's response (HTTP 200 OK) held no answer to this request`,
    ],
    [
      'notification-only',
      `mcp: call "echo": the server's response (HTTP 200 OK) held no answer to this request`,
    ],
    [
      'result-string',
      `mcp: call "echo": the server's answer could not be read: its result is not an object ("fine")`,
    ],
    ['not-json', `mcp: call "echo": the server's answer is not JSON (`],
    [
      'html',
      'mcp: call "echo": the server answered with content type "text/html", neither JSON nor an event stream: is the URL its MCP endpoint?',
    ],
    [
      'server-error',
      'mcp: call "echo": the server answered HTTP 500 Internal Server Error: kaboom',
    ],
    ['unauthorized', `mcp: call "echo": the server answered HTTP 401 Unauthorized: ${authorize}`],
    [
      'forbidden',
      'mcp: call "echo": the server answered HTTP 403 Forbidden: it refuses this client: an authorization it lacks (a scope), or the Host or Origin it was sent: not yours',
    ],
    ['content-string', `mcp: the result's content is not a list of blocks: "hello"`],
    [
      'error-no-id',
      'mcp: call "echo": the server answered with an error under no id: Parse error: the body was cut',
    ],
  ];
  try {
    for (const [answer, said] of cases) {
      server.next = answer;
      const failure = await call(remote).then(
        (output) => `returned ${output}`,
        (error: Error) => error.message,
      );
      expect(`${answer}: ${failure}`).toContain(`${answer}: ${said}`);
      server.next = 'ok';
      expect(await call(remote)).toBe('fine');
    }
  } finally {
    await remote.close();
    await server.close();
  }
}, 15_000);

test('a connection that fails says why: the HTTP status, or the refused address', async () => {
  const failing = await startScripted('server-error');
  try {
    await expect(
      connectMcp({ transport: { url: failing.url }, protocol: 'legacy' }),
    ).rejects.toThrow('mcp: connect: the server answered HTTP 500 Internal Server Error: kaboom');
  } finally {
    await failing.close();
  }
  // A port nobody listens on any more.
  const gone = await listenOnLoopback(http.createServer());
  await gone.close();
  const port = new URL(gone.url).port;
  await expect(connectMcp({ transport: { url: gone.url }, protocol: 'legacy' })).rejects.toThrow(
    `ECONNREFUSED 127.0.0.1:${port}`,
  );
});

test('a server that never answers initialize: the connection says what it waited for, and how long', () => {
  // The SDK waits 60 s for it; the error it then gives is made here, not waited for.
  const sdk = clientSdk();
  const timedOut = new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, 'Request timed out', {
    timeout: 60_000,
  });
  const error = connectError(timedOut);
  expect(error.message).toBe(
    'mcp: connect: the server did not answer initialize within 60000 ms (give connectMcp a signal to stop waiting sooner)',
  );
  expect(error.code).toBe('CONNECTION');
  expect(connectError(new sdk.UnauthorizedError()).message).toBe(
    "mcp: connect: the server answered HTTP 401 Unauthorized: it wants an authorization this connection did not give (connectMcp's authProvider, or an Authorization header)",
  );
});
