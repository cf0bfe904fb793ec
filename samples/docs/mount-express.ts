import { type Server } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/express';
import { type McpToolServer } from 'agenttool/mcp';

/**
 * Mounts an MCP server in an Express app made by the SDK's Express adapter, whose Host
 * and Origin checks come first; the handler keeps its own. Express parses the body, and
 * the handler takes it as parsed.
 */
export function mountInExpress(tools: McpToolServer, port = 0): Promise<Server> {
  const app = createMcpExpressApp({ jsonLimit: '4mb' });
  const mcp = tools.handler({ path: '/mcp' });
  app.get('/health', (_req, res) => {
    res.send('ok');
  });
  app.all('/mcp', (req, res) => void mcp.node(req, res, req.body));
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', (error) => {
      if (error) reject(error);
      else resolve(server);
    });
    server.on('close', () => void mcp.close());
  });
}
