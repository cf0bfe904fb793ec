// What a server that serves decorated tools in memory must not load: class-validator
// (no class here carries its decorators), the SDK's Streamable HTTP transports and its
// client auth. Each is replaced by a module that fails when loaded.
jest.mock('class-validator', () => {
  throw new Error('class-validator was loaded');
});
jest.mock('@modelcontextprotocol/sdk/server/streamableHttp.js', () => {
  throw new Error('the server HTTP transport was loaded');
});
jest.mock('@modelcontextprotocol/sdk/client/streamableHttp.js', () => {
  throw new Error('the client HTTP transport was loaded');
});
jest.mock('@modelcontextprotocol/sdk/client/auth.js', () => {
  throw new Error('the client auth was loaded');
});

import { Param, Tool, toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

class GreetArgs {
  @Param('Who') name!: string;
}

@Tool({ name: 'greet', description: 'Greets', args: GreetArgs })
class Greet {
  execute(args: GreetArgs): string {
    return `hello ${args.name}`;
  }
}

test('serving decorated tools in memory loads neither class-validator nor HTTP nor auth', async () => {
  const server = serveTools([toolFromInstance(new Greet())]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: 'lazy', version: '0' });
  await client.connect(clientEnd);
  try {
    expect(await client.callTool({ name: 'greet', arguments: { name: 'x' } })).toEqual({
      content: [{ type: 'text', text: 'hello x' }],
    });
    expect(await client.callTool({ name: 'greet', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'invalid arguments: missing required property "name"' }],
      isError: true,
    });
  } finally {
    await client.close();
    await server.close();
  }
});
