import { createMcpFastifyApp } from '@modelcontextprotocol/fastify';
import { type McpToolServer } from 'agenttool/mcp';
import { type FastifyInstance } from 'fastify';

/**
 * Mounts an MCP server in a Fastify app made by the SDK's Fastify adapter (Host and
 * Origin checked in an onRequest hook, then again by the handler). The reply is
 * hijacked: the handler writes the raw response itself, streams included.
 */
export async function mountInFastify(tools: McpToolServer, port = 0): Promise<FastifyInstance> {
  const app = createMcpFastifyApp();
  const mcp = tools.handler({ path: '/mcp' });
  app.get('/health', () => 'ok');
  app.all('/mcp', async (request, reply) => {
    reply.hijack();
    await mcp.node(request.raw, reply.raw, request.body);
  });
  app.addHook('onClose', () => mcp.close());
  await app.listen({ port, host: '127.0.0.1' });
  return app;
}
