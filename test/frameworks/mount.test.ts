/**
 * docs/serving.md's mounting examples: the MCP handler in Express, Fastify and Hono apps made
 * by the MCP SDK's own adapters, served on loopback, for clients of both eras, with the
 * Host and Origin checks on through each mount, and a prompt served beside the tools.
 */
import { request, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createContext, type Prompt } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, type McpToolServer, serveTools } from 'agenttool/mcp';
import { GreetModule } from '../../samples/readme/greet';
import { mountInExpress } from '../../samples/docs/mount-express';
import { mountInFastify } from '../../samples/docs/mount-fastify';
import { mountInHono } from '../../samples/docs/mount-hono';
import { INITIALIZE } from '../support/initialize';

interface Mounted {
  readonly port: number;
  close(): Promise<void>;
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const MOUNTS: Record<string, (tools: McpToolServer) => Promise<Mounted>> = {
  Express: async (tools) => {
    const server = await mountInExpress(tools);
    return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
  },
  Fastify: async (tools) => {
    const app = await mountInFastify(tools);
    return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
  },
  Hono: async (tools) => {
    const server = (await mountInHono(tools)) as Server;
    return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
  },
};

const INITIALIZE_BODY = JSON.stringify(INITIALIZE);

/** POSTs an initialize with the given headers (node:http lets a test set Host). */
function post(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE_BODY);
  });
}

describe.each(Object.keys(MOUNTS))('mounted in %s', (framework) => {
  let app: ToolApp;
  let tools: McpToolServer;
  let mounted: Mounted;

  beforeAll(async () => {
    app = await ToolApp.create(GreetModule);
    // A prompt beside the tools: the mounted handler serves what McpToolServer serves.
    const greeting: Prompt = {
      name: 'greeting',
      arguments: [{ name: 'name', required: true }],
      get: (args) => `Greet ${args.name ?? ''}`,
    };
    tools = serveTools(app, { name: 'greeter', prompts: [greeting] });
    mounted = await MOUNTS[framework]!(tools);
  });

  afterAll(async () => {
    await mounted.close();
    await tools.close();
    await app.close();
  });

  it("keeps the app's own routes", async () => {
    const health = await fetch(`http://127.0.0.1:${mounted.port}/health`);
    expect(await health.text()).toBe('ok');
  });

  it.each(['modern', 'legacy'] as const)('serves a %s client through our client', async (era) => {
    const remote = await connectMcp({
      transport: { url: `http://127.0.0.1:${mounted.port}/mcp` },
      protocol: era,
    });
    try {
      expect(remote.era).toBe(era);
      const call = { id: 'call_1', args: '{"name":"Ada"}' };
      const greet = remote.tools().find((t) => t.name === 'greet')!;
      expect((await greet.execute(call, createContext({ call }))).output).toBe('Hello, Ada!');
      const prompt = await remote.getPrompt('greeting', { name: 'Ada' });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Greet Ada' });
    } finally {
      await remote.close();
    }
  });

  it('refuses a foreign Origin and a foreign Host with 403, and takes the same request without them', async () => {
    const origin = await post(mounted.port, { origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.body).toContain('evil.example');
    const host = await post(mounted.port, { host: `evil.example:${mounted.port}` });
    expect(host.status).toBe(403);
    expect(host.body).toContain('evil.example');
    const plain = await post(mounted.port, {});
    expect(plain.status).toBe(200);
    expect(plain.body).toContain('"serverInfo"');
    // A local web client on a port of its own: the mounted handler knows no port, and a
    // loopback Origin is taken on any.
    const local = await post(mounted.port, { origin: 'http://localhost:6274' });
    expect(local.status).toBe(200);
  });
});
