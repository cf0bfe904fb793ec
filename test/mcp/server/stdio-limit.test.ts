// A stdio message longer than the server reads: the connection goes on. The SDK's stdio
// transport closed it (and so ended the session, a shell's state with it) when one
// message outgrew its read buffer.
import { PassThrough } from 'node:stream';
import { newTool } from 'agenttool';
import { DEFAULT_STDIO_MESSAGE_BYTES, serveTools } from 'agenttool/mcp';

const LIMIT = 2000;

interface Pipe {
  /** Writes `text` to the server's stdin in pieces of `piece` characters. */
  write(text: string, piece?: number): void;
  /** The next message the server writes. */
  next(): Promise<Record<string, unknown>>;
  readonly errors: unknown[];
  close(): Promise<void>;
}

async function served(): Promise<Pipe> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const errors: unknown[] = [];
  const server = serveTools(
    [newTool({ name: 'echo', execute: (call) => ({ output: call.args }) })],
    { onError: (_message, error) => errors.push(error) },
  );
  const connection = await server.serveStdio({ stdin, stdout, maxMessageBytes: LIMIT });
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  const queued: Record<string, unknown>[] = [];
  let rest = '';
  stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      const taker = waiting.shift();
      if (taker === undefined) queued.push(message);
      else taker(message);
    }
  });
  const pipe: Pipe = {
    write(text, piece = text.length) {
      for (let at = 0; at < text.length; at += piece) stdin.write(text.slice(at, at + piece));
    },
    next: () => {
      const message = queued.shift();
      return message === undefined
        ? new Promise((resolve) => waiting.push(resolve))
        : Promise.resolve(message);
    },
    errors,
    close: async () => {
      await connection.close();
      await server.close();
    },
  };
  pipe.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'pipe', version: '0' },
      },
    }) + '\n',
  );
  expect((await pipe.next()).id).toBe(0);
  pipe.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  return pipe;
}

/** A tools/call of echo whose text makes the line `bytes` long, `id` where the SDK's client puts it (last). */
function call(id: number | string, text: string): string {
  return JSON.stringify({
    method: 'tools/call',
    params: { name: 'echo', arguments: { text } },
    jsonrpc: '2.0',
    id,
  });
}

const tooLarge = (bytes: number) =>
  `Message too large: the limit over stdio is ${LIMIT} bytes, and this one had ${bytes}`;

test('a message over the limit is answered with an error for its id, and the connection goes on', async () => {
  const pipe = await served();
  try {
    const big = call(7, 'x'.repeat(5000));
    // In small pieces, as a pipe delivers a long line; a message right after it.
    pipe.write(big + '\n' + call(8, 'small') + '\n', 700);
    expect(await pipe.next()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: tooLarge(Buffer.byteLength(big)) },
    });
    const answer = await pipe.next();
    expect(answer.id).toBe(8);
    expect(JSON.stringify(answer.result)).toContain('small');
    expect(pipe.errors.map(String)).toEqual([`Error: ${tooLarge(Buffer.byteLength(big))}`]);
  } finally {
    await pipe.close();
  }
});

test('the id is found first in the message too, and a message of the limit itself is read', async () => {
  const pipe = await served();
  try {
    const first = JSON.stringify({
      jsonrpc: '2.0',
      id: 'first-id',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'y'.repeat(3000) } },
    });
    pipe.write(first + '\n');
    expect(await pipe.next()).toMatchObject({ id: 'first-id', error: { code: -32000 } });
    // Exactly LIMIT bytes before the newline: read and answered.
    const base = call(9, '');
    const exact = call(9, 'z'.repeat(LIMIT - Buffer.byteLength(base)));
    expect(Buffer.byteLength(exact)).toBe(LIMIT);
    pipe.write(exact + '\n');
    expect(await pipe.next()).toMatchObject({ id: 9, result: { content: [{ type: 'text' }] } });
  } finally {
    await pipe.close();
  }
});

test('a long message whose id cannot be found is reported, not answered, and the next one is', async () => {
  const pipe = await served();
  try {
    const hidden = JSON.stringify({
      jsonrpc: '2.0',
      method: 'tools/call',
      id: 3,
      params: { name: 'echo', arguments: { text: 'w'.repeat(3000) } },
    });
    pipe.write(hidden + '\n' + call(4, 'after') + '\n');
    const answer = await pipe.next();
    expect(answer.id).toBe(4);
    expect(pipe.errors.map(String)).toEqual([`Error: ${tooLarge(Buffer.byteLength(hidden))}`]);
  } finally {
    await pipe.close();
  }
});

test('the limit is 10 MiB unless given, and must be a positive whole number of bytes', () => {
  expect(DEFAULT_STDIO_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
  const server = serveTools([]);
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    expect(() => server.serveStdio({ maxMessageBytes: bad })).toThrow(
      `serveStdio: maxMessageBytes must be a positive whole number of bytes, got ${String(bad)}`,
    );
  }
});

test('once the connection is closed, its stdin is let go of: unpiped and paused', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = serveTools([newTool({ name: 'echo', execute: () => ({ output: 'ok' }) })]);
  const connection = await server.serveStdio({ stdin, stdout });
  expect(stdin.listenerCount('data')).toBe(1);
  await connection.close();
  await server.close();
  expect(stdin.listenerCount('data')).toBe(0);
  expect(stdin.isPaused()).toBe(true);
});
