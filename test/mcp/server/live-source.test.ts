// A source whose tools change by themselves (remote servers, `McpServers`) is served
// tool by tool: one tool the server refuses is left out and reported, from the start
// as after a change, and the others are served.
import { type LiveTools, newTool, type Tool } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';

const fine = newTool({ name: 'fine', description: 'Fine', execute: () => ({ output: 'ok' }) });
// As a remote server may list it: a dialect the served check does not know.
const unusable = newTool({
  name: 'unusable',
  description: 'Its schema cannot be compiled',
  parameters: { $schema: 'http://example.com/other-dialect', type: 'object' },
  execute: () => ({ output: 'never' }),
});

function liveOf(initial: Tool[]): LiveTools & { change(tools: Tool[]): void } {
  let tools = initial;
  const listeners = new Set<() => void>();
  return {
    get tools() {
      return tools;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    change(next) {
      tools = next;
      for (const listener of listeners) listener();
    },
  };
}

test('a live source with a tool the server refuses serves its other tools from the start', async () => {
  const reports: string[] = [];
  const live = liveOf([unusable, fine]);
  // It threw (INVALID_SCHEMA): `agenttool serve --config` ended with an internal error,
  // every other server down with it, for one remote tool's schema.
  const server = new McpToolServer(live, { onError: (message) => reports.push(message) });
  try {
    expect(server.tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(reports).toEqual([
      expect.stringContaining(
        'mcp: serve: tool "unusable" is not served: mcpserver: tool "unusable": schema: unsupported $schema',
      ),
    ]);
    const another = newTool({
      name: 'another',
      description: 'New',
      execute: () => ({ output: '' }),
    });
    live.change([unusable, fine, another]);
    expect(server.tools.map((tool) => tool.name)).toEqual(['fine', 'another']);
  } finally {
    await server.close();
  }
});

test('a fixed set with a tool the server refuses is still refused whole', () => {
  expect(() => new McpToolServer([unusable, fine])).toThrow(/unsupported \$schema/);
});
