// Start-up child: the same 200 tools registered with zod on the SDK's McpServer
// (mcp-startup.bench); in the 2026-07-28 era behind createMcpHandler, whose factory
// builds the server with its tools for each request, as the SDK documents.
import { type CallToolResult, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { NOOP_DESCRIPTION } from './mcp-noop';
import { noopZodShape } from './mcp-noop-zod';
import { listOnce, runMain, startupEra, TOOLS } from './mcp-startup-list';

const OK: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };

function build(): McpServer {
  const server = new McpServer({ name: 'mcpserver', version: '0' });
  for (let i = 0; i < TOOLS; i++) {
    server.registerTool(
      `tool_${i}`,
      { description: NOOP_DESCRIPTION, inputSchema: z.object(noopZodShape()) },
      () => OK,
    );
  }
  return server;
}

runMain(async () => {
  const imported = performance.now();
  const modern = startupEra() === '2026-07-28';
  const server = modern ? undefined : build();
  const handler = modern ? createMcpHandler(build, { legacy: 'reject' }) : undefined;
  const registered = performance.now();
  await listOnce(imported, registered, {
    connect: (transport) => server!.connect(transport),
    fetch: (request) => handler!.fetch(request),
    close: async () => (await server?.close(), await handler?.close()),
  });
});
