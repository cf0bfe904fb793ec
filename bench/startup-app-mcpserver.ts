// A start-up child: the same tool on the SDK's McpServer with zod, over its stdio
// transport, as the SDK's own examples serve.
import { type CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { NOOP_DESCRIPTION } from './mcp-noop';
import { noopZodShape } from './mcp-noop-zod';

const OK: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };
const server = new McpServer({ name: 'mcpserver', version: '0' });
server.registerTool(
  'noop',
  { description: NOOP_DESCRIPTION, inputSchema: z.object(noopZodShape()) },
  () => OK,
);
void server.connect(new StdioServerTransport());
