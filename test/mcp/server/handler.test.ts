/**
 * The server as a handler mounted in an HTTP server of one's own: its Node listener, its
 * fetch face under the SDK's own Node adapter, both eras, with the Host and Origin checks
 * still on.
 */
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { type NodeIncomingMessageLike, toNodeHandler } from '@modelcontextprotocol/node';
import { createContext, newTool, outputText } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';

const echo = newTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: (call) => ({ output: (JSON.parse(call.args) as { text: string }).text }),
});

async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function echoed(url: string, protocol: 'legacy' | 'modern'): Promise<string> {
  const remote = await connectMcp({ transport: { url }, protocol });
  try {
    expect(remote.era).toBe(protocol);
    const call = { id: 'call_1', args: '{"text":"hi"}' };
    return outputText((await remote.tools()[0]!.execute(call, createContext({ call }))).output);
  } finally {
    await remote.close();
  }
}

function status(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        // A fresh connection each time, so no kept-alive socket holds up the close.
        agent: false,
        headers: { 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

test('its Node listener serves both eras on a path of the app, beside routes of its own', async () => {
  const tools = serveTools([echo]);
  const mcp = tools.handler({ path: '/tools/mcp' });
  const { server, port } = await listen((req, res) => {
    if (req.url === '/health') {
      res.end('ok');
      return;
    }
    void mcp.node(req, res);
  });
  try {
    const url = `http://127.0.0.1:${port}/tools/mcp`;
    expect(await echoed(url, 'legacy')).toBe('hi');
    expect(await echoed(url, 'modern')).toBe('hi');
    expect(await status(port, '/tools/mcp', { Host: 'evil.example.com' })).toBe(403);
    // It does not know the port it is reached on: a loopback name passes on any port
    // (400: the request itself is no valid one).
    expect(await status(port, '/tools/mcp', { Host: 'localhost:1' })).toBe(400);
    expect(await status(port, '/tools/mcp', { Origin: 'http://evil.example.com' })).toBe(403);
  } finally {
    await mcp.close();
    await tools.close();
    // The client's fetch keeps its connections alive for a while: do not wait for them.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("its fetch face mounts with the SDK's own Node adapter", async () => {
  const tools = serveTools([echo]);
  const mcp = tools.handler();
  const node = toNodeHandler(mcp);
  // The SDK's request shape declares `method?: string`, which Node's `string | undefined`
  // does not meet under exactOptionalPropertyTypes; the object is the same.
  const { server, port } = await listen(
    (req, res) => void node(req as NodeIncomingMessageLike, res),
  );
  try {
    const url = `http://localhost:${port}/mcp`;
    expect(await echoed(url, 'legacy')).toBe('hi');
    expect(await echoed(url, 'modern')).toBe('hi');
  } finally {
    await tools.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('after close() it refuses new requests with 503', async () => {
  const tools = serveTools([echo]);
  const mcp = tools.handler();
  await mcp.close();
  const response = await mcp.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    }),
  );
  expect(response.status).toBe(503);
  await tools.close();
});

test('tells every path it answers, to route to it: the endpoint, the health route, the metadata', async () => {
  const tools = serveTools([echo]);
  const plain = tools.handler();
  const noHealth = tools.handler({ path: '/tools', healthPath: false });
  const guarded = tools.handler({
    path: '/tools',
    healthPath: '/livez',
    auth: {
      verifyToken: () => Promise.reject(new Error('no token is good here')),
      authorizationServers: ['https://auth.example.com'],
      resource: 'https://mcp.example.com/api/tools',
    },
  });
  try {
    expect(plain.paths).toEqual(['/mcp', '/healthz']);
    expect(noHealth.paths).toEqual(['/tools']);
    expect(guarded.paths).toEqual([
      '/tools',
      '/livez',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/tools',
    ]);
    // Each is answered: none of them gets the 404 of a path not the handler's.
    for (const path of guarded.paths.slice(1)) {
      const response = await guarded.fetch(new Request(`http://localhost${path}`));
      expect([path, response.status]).toEqual([path, 200]);
    }
  } finally {
    await tools.close();
  }
});
