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
  // Longer than a loaded machine leaves a reading client without a turn, shorter than
  // the whole slow read below.
  const stallMs = 1000;
  const listener = await server.listenHttp({ writeStallTimeoutMs: stallMs });
  try {
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: callHeaders,
      body: callBody,
    });
    expect(response.status).toBe(200);
    // Read slowly: a pause after every chunk, the whole taking several times the timeout.
    const started = Date.now();
    const chunks: Uint8Array[] = [];
    const reader = response.body!.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
      await pause(10);
    }
    expect(Date.now() - started).toBeGreaterThan(3 * stallMs);
    const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      result: { content: { text: string }[] };
    };
    expect(answer.result.content[0]?.text.length).toBe(BIG);
  } finally {
    await server.close();
  }
}, 60_000);

/** Sends a call on a connection that then reads nothing; resolves with the socket. */
async function unreadCall(port: number, forwardedFor: string): Promise<Socket> {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.pause();
  const headers = Object.entries({
    ...callHeaders,
    host: `127.0.0.1:${port}`,
    'x-forwarded-for': forwardedFor,
    'content-length': String(Buffer.byteLength(callBody)),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST /mcp HTTP/1.1\r\n${headers}\r\n${callBody}`);
  return socket;
}

/** Whether `socket` is closed by the server within `ms` (its buffered bytes read away). */
async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return true;
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  socket.on('data', () => undefined);
  socket.resume();
  return Promise.race([closed, pause(ms).then(() => false)]);
}

test("a caller's answers left unread take its share of memory, no more; others are served", async () => {
  const cuts: string[] = [];
  const server = new McpToolServer([big], {
    onError: (_message, error) => cuts.push((error as Error).message),
  });
  // A share that holds one unread answer of this size, and not two.
  const listener = await server.listenHttp({
    trustProxy: true,
    maxUnreadAnswerBytesPerSubject: BIG + BIG / 2,
  });
  const sockets: Socket[] = [];
  try {
    sockets.push(await unreadCall(listener.port, '10.0.0.1'));
    await pause(1500);
    sockets.push(await unreadCall(listener.port, '10.0.0.1'));
    sockets.push(await unreadCall(listener.port, '10.0.0.2'));
    await pause(1500);
    // The first caller's second answer is cut at once, not after the stall timeout
    // (60 s); its first, and the other caller's, wait for their clients.
    expect(cuts).toEqual([
      expect.stringMatching(
        /^an answer was cut \(its connection closed\): address:10\.0\.0\.1 has not read \d+ bytes of its answers, its share of 75497472 \(maxUnreadAnswerBytesPerSubject\), and another \d+ waited$/,
      ),
    ]);
    expect(await closedWithin(sockets[1]!, 10_000)).toBe(true);
    // Read, the waiting answers arrive whole.
    for (const socket of [sockets[0]!, sockets[2]!]) {
      let received = 0;
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      socket.resume();
      const start = Date.now();
      while (received < BIG && Date.now() - start < 20_000) await pause(50);
      expect(received).toBeGreaterThan(BIG);
    }
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.close();
  }
}, 60_000);

/** Opens a 2026-07-28 listening stream for `uri` on a connection that then reads nothing. */
async function unreadListen(port: number, forwardedFor: string, uri: string): Promise<Socket> {
  const body = JSON.stringify(
    modern('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }),
  );
  const socket: Socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const headers = Object.entries({
    ...callHeaders,
    'mcp-method': 'subscriptions/listen',
    host: `127.0.0.1:${port}`,
    'x-forwarded-for': forwardedFor,
    'content-length': String(Buffer.byteLength(body)),
  })
    .filter(([name]) => name !== 'mcp-name')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST /mcp HTTP/1.1\r\n${headers}\r\n${body}`);
  // The stream's head and its acknowledgement, then nothing more is read.
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.pause();
  return socket;
}

test("a caller's listening streams left unread take its share of memory, no more; others are served", async () => {
  const cuts: string[] = [];
  const uri = 'notes://busy';
  const server = new McpToolServer([big], {
    resources: [{ uri, name: 'busy', read: () => 'busy' }],
    onError: (_message, error) => cuts.push((error as Error).message),
  });
  const listener = await server.listenHttp({
    trustProxy: true,
    maxUnreadAnswerBytesPerSubject: 1024 * 1024,
  });
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < 3; i++) sockets.push(await unreadListen(listener.port, '10.0.0.1', uri));
    const reader = await unreadListen(listener.port, '10.0.0.2', uri);
    let received = 0;
    reader.on('data', (chunk: Buffer) => (received += chunk.length));
    reader.resume();
    sockets.push(reader);
    // Far more notices than sockets and a share hold: some 40 MB a stream.
    for (let i = 0; i < 200_000 && cuts.length === 0; i++) {
      await server.resourceUpdated(uri);
      if (i % 1000 === 999) await pause(1);
    }
    expect(cuts[0]).toMatch(
      /^an answer was cut \(its connection closed\): address:10\.0\.0\.1 has not read \d+ bytes of its answers, its share of 1048576 \(maxUnreadAnswerBytesPerSubject\), and another \d+ waited$/,
    );
    // The stream that passed the share is closed (whichever of the caller's three it was).
    const closing = sockets
      .slice(0, 3)
      .map((socket) =>
        closedWithin(socket, 10_000).then((closed) => closed || pause(10_000).then(() => false)),
      );
    expect(await Promise.race(closing)).toBe(true);
    // The caller that reads is told of every change.
    const before = received;
    await server.resourceUpdated(uri);
    const start = Date.now();
    while (received === before && Date.now() - start < 10_000) await pause(20);
    expect(received).toBeGreaterThan(before);
    expect(reader.destroyed).toBe(false);
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.close();
  }
}, 60_000);

test('must be a whole number of milliseconds, at least 1', async () => {
  const server = new McpToolServer([big]);
  try {
    expect(() => server.handler({ writeStallTimeoutMs: 0 })).toThrow(
      'mcp: writeStallTimeoutMs must be a whole number, at least 1, got 0',
    );
    expect(() => server.handler({ maxUnreadAnswerBytes: 0 })).toThrow(
      'mcp: maxUnreadAnswerBytes must be a whole number, at least 1, got 0',
    );
    expect(() => server.handler({ maxUnreadAnswerBytesPerSubject: 1.5 })).toThrow(
      'mcp: maxUnreadAnswerBytesPerSubject must be a whole number, at least 1, got 1.5',
    );
  } finally {
    await server.close();
  }
});
