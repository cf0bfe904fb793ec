// One server of the HTTP tools/call benchmark in its own process: serves the no-op tool
// on a loopback port and prints `{"url": ...}`; answers each `cpu` line on stdin with its
// CPU time so far (`{"cpu": <µs>}`); exits when stdin ends.
import Ajv from 'ajv';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import {
  localhostHostValidation,
  localhostOriginValidation,
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer, type Server } from '@modelcontextprotocol/server';
import { toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { floorServer, mcpServer, NAME } from './mcp-call-contenders';
import { AGENTTOOL, FLOOR, MCP_SERVER } from './mcp-call-plan';
import { HTTP_ERAS, type HttpEra } from './mcp-http-plan';
import { noopJsonSchema } from './mcp-noop';
import { decoratedNoop } from './mcp-noop-decorated';

type Listening = { url: string; close(): Promise<void> };

/**
 * A hand-wired SDK server on node's `http`, with the SDK's own Host and Origin guards in
 * front (as ours checks them): 2025-era sessions over `NodeStreamableHTTPServerTransport`
 * (one server per session), or the 2026-07-28 entry, `createMcpHandler`, through
 * `toNodeHandler` (one server per request).
 */
async function sdkServer(era: HttpEra, make: () => Server | McpServer): Promise<Listening> {
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  let serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  let closeAll: () => Promise<void>;
  if (era === '2026-07-28') {
    const handler = createMcpHandler(make, { legacy: 'reject' });
    const node = toNodeHandler(handler);
    serve = (req, res) => node(req as NodeIncomingMessageLike, res);
    closeAll = () => handler.close();
  } else {
    const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
    serve = async (req, res) => {
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known !== undefined) return known.handleRequest(req, res);
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await make().connect(transport);
      return transport.handleRequest(req, res);
    };
    closeAll = async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
    };
  }
  const http = createServer((req, res) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    serve(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await closeAll();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function agenttool(): Promise<Listening> {
  const server = serveTools([toolFromInstance(new (decoratedNoop(NAME))())]);
  const listener = await server.listenHttp();
  return { url: listener.url, close: () => server.close() };
}

async function main(): Promise<void> {
  const [era, name] = [process.argv[2] as HttpEra, process.argv[3]];
  if (!HTTP_ERAS.includes(era)) throw new Error(`unknown era ${JSON.stringify(era)}`);
  let listening: Listening;
  if (name === FLOOR) {
    const validate = new Ajv().compile(noopJsonSchema());
    listening = await sdkServer(era, () => floorServer(validate));
  } else if (name === MCP_SERVER) {
    listening = await sdkServer(era, mcpServer);
  } else if (name === AGENTTOOL) {
    listening = await agenttool();
  } else {
    throw new Error(`unknown server ${JSON.stringify(name)}`);
  }
  console.log(JSON.stringify({ url: listening.url }));
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line !== 'cpu') return;
    const used = process.cpuUsage();
    console.log(JSON.stringify({ cpu: used.user + used.system }));
  });
  lines.on('close', () => void listening.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
