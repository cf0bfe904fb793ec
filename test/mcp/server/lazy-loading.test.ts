// What a server that serves decorated tools in memory must not load: class-validator
// (no class here carries its decorators), class-transformer's entry (no class here
// needs plainToInstance), the SDK's client (a server has no use for it), our HTTP
// endpoint, ajv (every schema here is in the contract's subset), the Redis client (the
// server does not scale out), jose (only the JWT verifier uses it), and what only a
// definition hash or a random id needs (canonicalize, node:crypto). Each is replaced
// by a module that fails when loaded.
jest.mock('class-validator', () => {
  throw new Error('class-validator was loaded');
});
jest.mock('@modelcontextprotocol/client', () => {
  throw new Error('the SDK client was loaded');
});
jest.mock('../../../src/mcp/server/listener/http', () => {
  throw new Error('the HTTP endpoint was loaded');
});
jest.mock('ajv', () => {
  throw new Error('ajv was loaded');
});
jest.mock('class-transformer', () => {
  throw new Error("class-transformer's entry was loaded");
});
jest.mock('canonicalize', () => {
  throw new Error('canonicalize was loaded');
});
jest.mock('node:crypto', () => {
  throw new Error('node:crypto was loaded');
});
jest.mock('ioredis', () => {
  throw new Error('ioredis was loaded');
});
jest.mock('jose', () => {
  throw new Error('jose was loaded');
});

import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { Param, Tool, toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';

class GreetArgs {
  @Param('Who') name!: string;
}

@Tool({ name: 'greet', description: 'Greets', args: GreetArgs })
class Greet {
  execute(args: GreetArgs): string {
    return `hello ${args.name}`;
  }
}

test('start-up promise: serving decorated tools in memory loads none of what it does not use', async () => {
  const server = serveTools([toolFromInstance(new Greet())]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  // The client is a bare JSON-RPC peer: any SDK client would load what is mocked away.
  const answers = new Map<number, (message: JSONRPCMessage) => void>();
  clientEnd.onmessage = (message) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'number') answers.get(id)?.(message);
  };
  await clientEnd.start();
  const request = (id: number, method: string, params: Record<string, unknown>) =>
    new Promise<JSONRPCMessage>((resolve) => {
      answers.set(id, resolve);
      void clientEnd.send({ jsonrpc: '2.0', id, method, params });
    });
  try {
    await request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bare', version: '0' },
    });
    await clientEnd.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await request(2, 'tools/call', { name: 'greet', arguments: { name: 'x' } })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'hello x' }] },
    });
    expect(await request(3, 'tools/call', { name: 'greet', arguments: {} })).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {
        content: [
          {
            type: 'text',
            text: 'invalid arguments: validating root: required: missing properties: ["name"]',
          },
        ],
        isError: true,
      },
    });
  } finally {
    await clientEnd.close();
    await server.close();
  }
});
