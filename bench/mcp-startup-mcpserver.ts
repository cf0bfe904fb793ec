// Start-up child: the same 200 tools registered with zod on the SDK's McpServer
// (mcp-startup.bench).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NOOP_DESCRIPTION } from './mcp-noop';
import { noopZodShape } from './mcp-noop-zod';
import { listOnce, runMain, TOOLS } from './mcp-startup-list';

const OK: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };

runMain(async () => {
  const imported = performance.now();
  const server = new McpServer({ name: 'mcpserver', version: '0' });
  for (let i = 0; i < TOOLS; i++) {
    server.registerTool(
      `tool_${i}`,
      { description: NOOP_DESCRIPTION, inputSchema: noopZodShape() },
      () => OK,
    );
  }
  const registered = performance.now();
  await listOnce(
    imported,
    registered,
    (transport) => server.connect(transport),
    () => server.close(),
  );
});
