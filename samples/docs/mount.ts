import { createServer, type Server } from 'node:http';
import { type McpToolServer } from 'agenttool/mcp';

/**
 * Mounts an MCP server in an HTTP server of one's own, beside the app's own routes: one
 * endpoint answers 2026-07-28 clients and 2025-era clients alike, with its Host and
 * Origin checks on. `mcp.fetch(request)` is the same handler for fetch runtimes.
 */
export function mountTools(tools: McpToolServer, port = 0): Promise<Server> {
  const mcp = tools.handler({ path: '/api/mcp' });
  const server = createServer((req, res) => {
    if (req.url === '/health') {
      res.end('ok');
      return;
    }
    void mcp.node(req, res);
  });
  server.on('close', () => void mcp.close());
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
