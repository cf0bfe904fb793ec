/**
 * A request whose members the SDK refuses (`params` that is not an object, a `jsonrpc`
 * that is not "2.0") is answered with JSON-RPC's Invalid Request error under its id,
 * saying which member is wrong, by our server and by our client alike: the SDK's
 * dispatch dropped it unanswered, and its sender waited for its timeout.
 */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { createContext, newTool, outputText } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { INITIALIZE } from '../support/initialize';

/** The messages that reach `end`, and a wait for the one with `id`. */
function received(end: InMemoryTransport) {
  const messages: JSONRPCMessage[] = [];
  const waiters = new Map<unknown, (message: JSONRPCMessage) => void>();
  end.onmessage = (message) => {
    messages.push(message);
    if ('id' in message) waiters.get(message.id)?.(message);
  };
  return {
    messages,
    answerTo: (id: string | number) =>
      new Promise<JSONRPCMessage>((resolve) => {
        const found = messages.find((m) => 'id' in m && m.id === id && !('method' in m));
        if (found !== undefined) resolve(found);
        else waiters.set(id, resolve);
      }),
  };
}

test('our server answers a malformed request with Invalid Request, naming the member', async () => {
  const server = serveTools([
    newTool({ name: 'noop', description: 'Does nothing', execute: () => ({ output: 'ok' }) }),
  ]);
  const [client, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const inbox = received(client);
  await client.start();
  try {
    const send = (message: unknown) => client.send(message as JSONRPCMessage);
    await send(INITIALIZE);
    await inbox.answerTo(1);
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await send({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: 5 });
    expect(await inbox.answerTo(7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32600,
        message: 'Invalid Request: the "params" of "tools/list" must be an object, got 5',
      },
    });
    await send({ jsonrpc: '1.0', id: 'v', method: 'ping' });
    expect(await inbox.answerTo('v')).toMatchObject({
      error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0", got "1.0"' },
    });
    // The connection goes on.
    await send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    expect(await inbox.answerTo(8)).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
  } finally {
    await server.close();
  }
});

test("our client answers a server's malformed request with Invalid Request", async () => {
  const [clientEnd, server] = InMemoryTransport.createLinkedPair();
  const inbox = received(server);
  server.onmessage = (message) => {
    inbox.messages.push(message);
    if (!('method' in message) || !('id' in message)) return;
    const reply = (result: unknown) =>
      void server.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
    if (message.method === 'initialize') {
      reply({
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'raw', version: '1' },
      });
    } else if (message.method === 'tools/list') reply({ tools: [] });
  };
  await server.start();
  const remote = await connectMcp({ transport: clientEnd, protocol: 'legacy' });
  try {
    const answered = new Promise<JSONRPCMessage | undefined>((resolve) => {
      const started = Date.now();
      const look = (): void => {
        const found = inbox.messages.find((m) => 'id' in m && m.id === 'r1' && !('method' in m));
        if (found !== undefined || Date.now() - started > 5000) resolve(found);
        else setTimeout(look, 5);
      };
      look();
    });
    await server.send({
      jsonrpc: '2.0',
      id: 'r1',
      method: 'roots/list',
      params: 'x',
    } as unknown as JSONRPCMessage);
    expect(await answered).toEqual({
      jsonrpc: '2.0',
      id: 'r1',
      error: {
        code: -32600,
        message: 'Invalid Request: the "params" of "roots/list" must be an object, got "x"',
      },
    });
  } finally {
    await remote.close();
  }
});

/**
 * Over stdio, a server that asks the client something with `params` that is no object
 * while a call runs, and answers the call with what the client answered it.
 */
const ASKING_SERVER = `
const { createInterface } = require('node:readline');
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
let call;
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === 'r1' && message.method === undefined) {
    send({ jsonrpc: '2.0', id: call, result: { content: [{ type: 'text', text: JSON.stringify(message.error) }] } });
  } else if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] } });
  } else if (message.method === 'tools/call') {
    call = message.id;
    send({ jsonrpc: '2.0', id: 'r1', method: 'roots/list', params: 'x' });
  }
});
`;

test("our client answers a stdio server's malformed request too, and the call it held goes on", async () => {
  const remote = await connectMcp({
    transport: { command: process.execPath, args: ['-e', ASKING_SERVER], stderr: 'ignore' },
    protocol: 'legacy',
    callTimeout: 600_000,
  });
  try {
    const call = { id: 'call_1', args: '{}' };
    const result = await remote.tools()[0]!.execute(call, createContext({ call }));
    expect(JSON.parse(outputText(result.output))).toEqual({
      code: -32600,
      message: 'Invalid Request: the "params" of "roots/list" must be an object, got "x"',
    });
  } finally {
    await remote.close();
  }
}, 20_000);
