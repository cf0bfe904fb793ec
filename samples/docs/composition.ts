import { newTool, Param, text, Tool, transformTool, transformTools } from 'agenttool';
import { Inject, MCP_SERVERS, McpServersModule, Module, ToolApp } from 'agenttool/di';
import { type McpServers, type McpServersConfig } from 'agenttool/mcp';

class NoteArgs {
  @Param('What to note') text!: string;
}

/** A local tool beside the remote ones; it can see where each server stands. */
@Tool({ name: 'note', description: 'Keep a note', args: NoteArgs })
export class Note {
  constructor(@Inject(MCP_SERVERS) private readonly servers: Pick<McpServers, 'status'>) {}

  execute(args: NoteArgs): string {
    const up = this.servers.status.filter((server) => server.state === 'up');
    return `noted "${args.text}" (${up.length} of ${this.servers.status.length} servers up)`;
  }
}

/** One app: the local tools, and every server's tools as `<name>__<tool>`. */
export function composedApp(config: McpServersConfig): Promise<ToolApp> {
  @Module({
    imports: [McpServersModule.from(config, { onWarning: (m) => console.error(m) })],
    tools: [Note],
  })
  class AppModule {}
  return ToolApp.create(AppModule);
}

/** The same transforms in code, for any tool: here one built from plain values. */
export const search = newTool({
  name: 'search',
  description: 'Search an index',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string' }, index: { type: 'string', enum: ['docs', 'code'] } },
    required: ['query', 'index'],
  },
  execute: (call) => text(`searched ${call.args}`),
});

/** `index` is fixed: gone from the schema, put into every call, refused from a caller. */
export const searchDocs = transformTool(search, {
  rename: 'search_docs',
  description: 'Search the documentation',
  fixed: { index: 'docs' },
  tags: ['read'],
});

/** A set: tools kept by name pattern, then by tag. */
export const readOnly = transformTools([search, searchDocs], {
  include: ['search*'],
  includeTags: ['read'],
});
