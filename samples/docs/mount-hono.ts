import { type ServerType, serve } from '@hono/node-server';
import { createMcpHonoApp } from '@modelcontextprotocol/hono';
import { type McpToolServer } from 'agenttool/mcp';

/**
 * Mounts an MCP server in a Hono app made by the SDK's Hono adapter (Host and Origin
 * checked by its middleware, then again by the handler), served on Node by
 * `@hono/node-server`. Hono hands over a web-standard request: the fetch face takes it.
 */
export function mountInHono(tools: McpToolServer, port = 0): Promise<ServerType> {
  const app = createMcpHonoApp();
  const mcp = tools.handler({ path: '/mcp' });
  app.get('/health', (c) => c.text('ok'));
  app.all('/mcp', (c) => mcp.fetch(c.req.raw));
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(server));
    server.on('close', () => void mcp.close());
  });
}
