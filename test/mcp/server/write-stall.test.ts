// A client that stops reading its answer holds the server's memory for that answer for
// as long as its connection lives. Past `writeStallTimeoutMs` with nothing read, the
// server closes the connection and lets the answer go; a client that reads is not
// affected. Loopback only; every wait is bounded.
import { connect, type Socket } from 'node:net';
import { newTool } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';
import { modern } from '../auth/helpers';

/** More than loopback's socket buffers hold on both sides, so the writes must wait. */
const BIG = 48 * 1024 * 1024;

const big = newTool({
  name: 'big',
  description: 'Answers a lot of text',
  execute: () => ({ output: 'x'.repeat(BIG) }),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const callBody = JSON.stringify(modern('tools/call', { name: 'big', arguments: {} }));
const callHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'big',
};

test('closes the connection of a client that reads nothing of its answer', async () => {
  const server = new McpToolServer([big]);
  const listener = await server.listenHttp({ writeStallTimeoutMs: 300 });
  const socket: Socket = connect(listener.port, '127.0.0.1');
  try {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Reads nothing for a while: the kernel's buffers fill, then the server's writes wait.
    socket.pause();
    const headers = Object.entries({
      ...callHeaders,
      host: `127.0.0.1:${listener.port}`,
      'content-length': String(Buffer.byteLength(callBody)),
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST /mcp HTTP/1.1\r\n${headers}\r\n${callBody}`);
    // Far past the stall timeout: the server has given up on this client by now.
    await pause(5000);
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    const closed = new Promise<'closed'>((resolve) =>
      socket.once('close', () => resolve('closed')),
    );
    socket.on('error', () => undefined);
    socket.resume();
    // What the sockets held arrives, then the end: the rest of the answer never does.
    expect(await Promise.race([closed, pause(20_000).then(() => 'open' as const)])).toBe('closed');
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(BIG);
  } finally {
    socket.destroy();
    await server.close();
  }
}, 40_000);

test('a client that reads its answer gets it whole, however long it takes', async () => {
  const server = new McpToolServer([big]);
  const listener = await server.listenHttp({ writeStallTimeoutMs: 300 });
  try {
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: callHeaders,
      body: callBody,
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result: { content: { text: string }[] } };
    expect(answer.result.content[0]?.text.length).toBe(BIG);
  } finally {
    await server.close();
  }
}, 30_000);

test('must be a whole number of milliseconds, at least 1', async () => {
  const server = new McpToolServer([big]);
  try {
    expect(() => server.handler({ writeStallTimeoutMs: 0 })).toThrow(
      'mcp: writeStallTimeoutMs must be a whole number, at least 1, got 0',
    );
  } finally {
    await server.close();
  }
});
