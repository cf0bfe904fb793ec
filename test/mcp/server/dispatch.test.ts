// How a served connection sorts what arrives: requests and notifications are told by
// their members before the SDK's own dispatch (which tries a response first), and what
// is neither goes to the SDK's dispatch as before. Raw JSON-RPC over the SDK's in-memory
// pair, so nothing but the server decides.
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { newTool } from 'agenttool';
import { serveTools } from 'agenttool/mcp';

interface Raw {
  send(message: Record<string, unknown>): Promise<void>;
  /** The messages the server sent, in order. */
  readonly received: JSONRPCMessage[];
  /** Resolves with the answer to request `id`. */
  answer(id: number): Promise<Record<string, unknown>>;
}

async function rawClient(server: ReturnType<typeof serveTools>): Promise<Raw> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  clientSide.onmessage = (message) => {
    received.push(message);
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'number') waiting.get(id)?.(message);
  };
  await server.connect(serverSide);
  await clientSide.start();
  const raw: Raw = {
    send: (message) => clientSide.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage),
    received,
    answer: (id) => new Promise((resolve) => waiting.set(id, resolve)),
  };
  const initialized = raw.answer(0);
  await raw.send({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    },
  });
  await initialized;
  await raw.send({ method: 'notifications/initialized' });
  return raw;
}

const errors: unknown[] = [];
const slow = newTool({
  name: 'slow',
  execute: (_call, ctx) =>
    new Promise((resolve) => {
      ctx.signal?.addEventListener('abort', () => resolve({ output: 'stopped' }), { once: true });
    }),
});

test('requests are answered and a notification reaches the call it names', async () => {
  const server = serveTools([slow], { onError: (error) => errors.push(error) });
  const raw = await rawClient(server);
  try {
    const pong = raw.answer(1);
    await raw.send({ id: 1, method: 'ping' });
    expect((await pong).result).toEqual({});
    const stopped = raw.answer(2);
    await raw.send({ id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await new Promise((resolve) => setImmediate(resolve));
    // A notification: the SDK stops the request it names, and the tool sees its signal.
    await raw.send({ method: 'notifications/cancelled', params: { requestId: 2 } });
    const aborted = await Promise.race([
      stopped.then(() => 'answered'),
      new Promise((resolve) => setTimeout(() => resolve('no answer'), 200)),
    ]);
    // A cancelled request is not answered (the spec), so the cancel was taken.
    expect(aborted).toBe('no answer');
    const after = raw.answer(3);
    await raw.send({ id: 3, method: 'ping' });
    expect((await after).result).toEqual({});
  } finally {
    await server.close();
  }
});

test('what is neither a request nor a notification goes to the SDK as before', async () => {
  const server = serveTools([slow], { onError: (error) => errors.push(error) });
  const raw = await rawClient(server);
  try {
    const before = raw.received.length;
    // Members of a request and of a response: the SDK takes it for a response (to no
    // request of its own) and answers nothing. An id that is not an id: no message kind.
    await raw.send({ id: 41, method: 'ping', result: {} });
    await raw.send({ id: null, method: 'ping' });
    const pong = raw.answer(42);
    await raw.send({ id: 42, method: 'ping' });
    expect((await pong).result).toEqual({});
    // Only the last ping was answered.
    expect(raw.received.slice(before).map((message) => (message as { id?: unknown }).id)).toEqual([
      42,
    ]);
  } finally {
    await server.close();
  }
});
