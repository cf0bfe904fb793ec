/**
 * The body limit on a real socket (`maxBodyBytes`): a body declared too large is refused
 * before any of it is read, one that streams past the limit as soon as it crosses it, and
 * the connection is closed after the 413 so a client that keeps sending holds nothing. A
 * client that leaves mid-upload is gone, not a failure of the server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { newTool } from 'agenttool';
import { type HttpListener, McpToolServer } from 'agenttool/mcp';
import { discardTimeoutMs } from '../../../src/mcp/server/http';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'echo' }) });

const LIMIT = 1024;

/** The request head up to its blank line, with the headers a POST to the endpoint needs. */
function head(port: number, framing: string): string {
  return [
    'POST /mcp HTTP/1.1',
    `Host: localhost:${port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    framing,
    '',
    '',
  ].join('\r\n');
}

interface Exchange {
  /** The status line of the answer. */
  readonly status: string;
  readonly headers: string;
  readonly body: string;
}

/**
 * Sends `start` on a raw connection, lets `feed` go on writing, and resolves with what
 * came back once the server closes the connection.
 */
function exchange(port: number, start: string, feed?: (socket: Socket) => void): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer (the server closed with our bytes unread) changes nothing.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [status = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = lines.join('\n').toLowerCase();
      const body = text.slice(split + 4);
      resolve({
        status,
        headers,
        body: headers.includes('transfer-encoding: chunked') ? unchunked(body) : body,
      });
    });
    socket.write(start, () => feed?.(socket));
  });
}

/** The bytes a chunked transfer encoding carries. */
function unchunked(encoded: string): string {
  let decoded = '';
  let at = 0;
  for (;;) {
    const end = encoded.indexOf('\r\n', at);
    const size = parseInt(encoded.slice(at, end), 16);
    if (!(size > 0)) return decoded;
    decoded += encoded.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}

function expectTooLarge(answer: Exchange): void {
  expect(answer.status).toBe('HTTP/1.1 413 Payload Too Large');
  expect(answer.headers).toContain('connection: close');
  // It closes the connection: no keep-alive hint beside that.
  expect(answer.headers).not.toContain('keep-alive');
  expect(JSON.parse(answer.body)).toMatchObject({
    error: { message: `Request body too large: the limit is ${LIMIT} bytes` },
  });
}

/**
 * What an endless client sends at most: far past what the server throws away before it
 * answers (2 MiB), so reaching it means no answer came; the client then leaves and the
 * test fails on the answer missing, where it would otherwise send on until the test's
 * time is up (a CI worker ran out of memory in this file twice, in runs that were not
 * reproduced).
 */
const ENDLESS_CAP = 256 * 1024 * 1024;

/**
 * Writes `next()` on `socket` for as long as no answer came and it is open, each write
 * after the last one was taken; leaves past {@link ENDLESS_CAP} bytes. Returns the bytes
 * sent so far.
 */
function sendEndlessly(socket: Socket, next: () => string): () => number {
  let answered = false;
  let sent = 0;
  socket.once('data', () => (answered = true));
  const more = (): void => {
    if (answered || socket.destroyed) return;
    if (sent > ENDLESS_CAP) {
      socket.destroy();
      return;
    }
    const text = next();
    sent += text.length;
    socket.write(text, more);
  };
  more();
  return () => sent;
}

/** A chunk of chunked transfer encoding holding `size` bytes. */
function chunk(size: number): string {
  return `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`;
}

describe('a listener with maxBodyBytes', () => {
  const reported: string[] = [];
  let server: McpToolServer;
  let listener: HttpListener;
  beforeAll(async () => {
    server = new McpToolServer([echo], { onError: (message) => reported.push(message) });
    // A request may take 2 s to arrive: a refused body is read for 1 s at most.
    listener = await server.listenHttp({ maxBodyBytes: LIMIT, requestTimeoutMs: 2_000 });
  });
  afterAll(() => server.close());

  test('refuses a body declared too large without reading it whole', async () => {
    // The client streams its 10 GB as clients do, until the answer comes: the server
    // throws away a bounded part of it (twice the limit, at least 1 MiB each), answers,
    // and closes the connection.
    let sent = (): number => 0;
    const answer = await exchange(
      listener.port,
      head(listener.port, 'Content-Length: 10000000000'),
      (socket) => (sent = sendEndlessly(socket, () => 'x'.repeat(64 * 1024))),
    );
    expectTooLarge(answer);
    // Twice the 1 MiB floor is thrown away, and what the socket buffers on either side.
    expect(sent()).toBeLessThan(64 * 1024 * 1024);
  });

  test('refuses a chunked body once it crosses the limit, without waiting for its end', async () => {
    // Past the limit, and never finished: no last chunk follows. The client stalls, so
    // the server stops waiting for more after its bound (half of requestTimeoutMs, 10 s
    // at most), then answers and closes: before Node's own 408 at requestTimeoutMs.
    const answer = await exchange(
      listener.port,
      head(listener.port, 'Transfer-Encoding: chunked') + chunk(LIMIT) + chunk(LIMIT),
    );
    expectTooLarge(answer);
  });

  test('refuses a chunked body that never ends, and closes the connection', async () => {
    // Sends on for as long as the connection takes it.
    const answer = await exchange(
      listener.port,
      head(listener.port, 'Transfer-Encoding: chunked'),
      (socket) => void sendEndlessly(socket, () => chunk(16 * 1024)),
    );
    expectTooLarge(answer);
  });

  test('leaves the endless body of a request refused before reading it unread, and closes the connection', async () => {
    const answer = await exchange(
      listener.port,
      head(listener.port, 'Transfer-Encoding: chunked').replace(
        `Host: localhost:${listener.port}`,
        'Host: attacker.example',
      ),
      (socket) => void sendEndlessly(socket, () => chunk(16 * 1024)),
    );
    expect(answer.status).toBe('HTTP/1.1 403 Forbidden');
    expect(answer.headers).toContain('connection: close');
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { message: 'Invalid Host header: attacker.example' },
    });
  });

  test('drains the short body of a refused request and keeps the connection for the next', async () => {
    const socket = connect(listener.port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (data: Buffer) => received.push(data));
    const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const refused = head(listener.port, `Content-Length: ${body.length}`)
      .replace('POST /mcp', 'POST /elsewhere')
      .concat(body);
    const second = head(listener.port, `Content-Length: ${body.length}`).concat(body);
    socket.write(refused + second);
    // Two answers on one connection: the first refused (404), the second served.
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (
          (
            Buffer.concat(received)
              .toString()
              .match(/HTTP\/1\.1 /g) ?? []
          ).length >= 2
        )
          resolve();
        else socket.once('data', check);
      };
      check();
    });
    const text = Buffer.concat(received).toString();
    socket.destroy();
    expect(text.match(/HTTP\/1\.1 \d+/g)?.[0]).toBe('HTTP/1.1 404');
    expect(text.split('HTTP/1.1 404')[1]?.split('\r\n\r\n')[0]?.toLowerCase()).not.toContain(
      'connection: close',
    );
  });

  test('reports none of these as a failure', () => {
    expect(reported).toEqual([]);
  });
});

describe('a mounted handler whose client leaves mid-upload', () => {
  test('writes nothing and reports nothing', async () => {
    const reported: string[] = [];
    const tools = new McpToolServer([echo], { onError: (message) => reported.push(message) });
    const mcp = tools.handler({ maxBodyBytes: LIMIT });
    let handled: (res: ServerResponse) => void = () => undefined;
    const served = new Promise<ServerResponse>((resolve) => (handled = resolve));
    const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      void mcp.node(req, res).then(() => handled(res));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as AddressInfo).port;
    try {
      // Half of a body within the limit, then the client is gone.
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(head(port, 'Content-Length: 1000') + '{"jsonrpc":"2.0",', () =>
        socket.destroy(),
      );
      const res = await served;
      expect(res.headersSent).toBe(false);
      expect(reported).toEqual([]);
    } finally {
      await mcp.close();
      await tools.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('a listener with maxBodyBytesInFlight', () => {
  let server: McpToolServer;
  let listener: HttpListener;
  const held: Socket[] = [];
  beforeEach(async () => {
    server = new McpToolServer([echo]);
    listener = await server.listenHttp({
      maxBodyBytes: 1000,
      maxBodyBytesInFlight: 2000,
      // The one local caller gets the whole budget here; the shares are tested below.
      maxBodyBytesInFlightPerSubject: 2000,
      requestTimeoutMs: 2_000,
    });
  });
  afterEach(async () => {
    for (const socket of held.splice(0)) socket.destroy();
    await server.close();
  });

  /** A ping padded to `size` bytes of JSON. */
  const ping = (size: number): string => {
    const start = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"';
    return `${start}${'x'.repeat(size - start.length - 4)}"}}}`;
  };

  /** A connection that sends all but the last `missing` bytes of a `size`-byte body. */
  const holding = (size: number, missing: number): Socket => {
    const socket = connect(listener.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(head(listener.port, `Content-Length: ${size}`) + ping(size).slice(0, -missing));
    held.push(socket);
    return socket;
  };

  /**
   * Sends `start` (a request that closes its connection) until the answer is a 503 (the
   * bodies held are read by then), up to 2 s.
   */
  async function until503(start: () => string): Promise<Exchange> {
    let answer = await exchange(listener.port, start());
    for (let tries = 0; tries < 100 && !answer.status.includes('503'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      answer = await exchange(listener.port, start());
    }
    return answer;
  }

  const refusal =
    'Service unavailable: the server is reading its limit of 2000 bytes of request bodies at once (maxBodyBytesInFlight); try again later';

  test('refuses a body that would not fit beside those being read, and reads it once they are', async () => {
    const first = holding(900, 100);
    holding(900, 100);
    // 1,600 bytes held: a declared 500 would not fit.
    const refused = await until503(
      () => head(listener.port, 'Content-Length: 500\r\nConnection: close') + ping(500),
    );
    expect(refused.status).toBe('HTTP/1.1 503 Service Unavailable');
    expect(refused.headers).toContain('connection: close');
    expect(refused.headers).toContain('retry-after: 1');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { message: refusal } });
    // The first body ends: its bytes are given back, and a body of 500 fits again.
    const answered = new Promise<string>((resolve) =>
      first.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    );
    first.write(ping(900).slice(-100));
    // Answered (the ping of a client that never initialized: refused, as it is alone).
    expect(await answered).not.toMatch(/^HTTP\/1\.1 503 /);
    const fits = await exchange(
      listener.port,
      head(listener.port, 'Content-Length: 500\r\nConnection: close') + ping(500),
    );
    expect(fits.status).not.toContain('503');
    expect(fits.body).toContain('"jsonrpc":"2.0"');
  });

  test('refuses a chunked body once what arrives would not fit', async () => {
    holding(900, 100);
    holding(900, 100);
    // Once a declared body is refused, the two held are being read (1,600 bytes).
    const declared = await until503(
      () => head(listener.port, 'Content-Length: 500\r\nConnection: close') + ping(500),
    );
    expect(declared.status).toBe('HTTP/1.1 503 Service Unavailable');
    const refused = await exchange(
      listener.port,
      head(listener.port, 'Transfer-Encoding: chunked'),
      // Two chunks, then nothing: the server throws away what more comes for a while (as
      // past the body limit), then answers and closes.
      (socket) => socket.write(chunk(500) + chunk(500)),
    );
    expect(refused.status).toBe('HTTP/1.1 503 Service Unavailable');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { message: refusal } });
  }, 30_000);

  test('a refused body is read for 10 s at most, and half the time a request may take', () => {
    expect(discardTimeoutMs(60_000)).toBe(10_000);
    expect(discardTimeoutMs(20_000)).toBe(10_000);
    expect(discardTimeoutMs(2_000)).toBe(1_000);
    expect(discardTimeoutMs(1)).toBe(1);
  });

  test('must hold at least one body of the largest size', async () => {
    const other = new McpToolServer([echo]);
    await expect(
      other.listenHttp({ maxBodyBytes: 1000, maxBodyBytesInFlight: 999 }),
    ).rejects.toThrow(
      'mcp: http: maxBodyBytesInFlight (999) must be at least maxBodyBytes (1000): a body of the largest size could never be read',
    );
    await other.close();
  });
});

describe("each caller's share of maxBodyBytesInFlight", () => {
  let server: McpToolServer;
  let listener: HttpListener;
  const held: Socket[] = [];
  beforeEach(async () => {
    server = new McpToolServer([echo]);
    // Callers told apart by X-Forwarded-For; each may read 1000 bytes of the 4000 at once
    // (a tenth, but never less than one body of the largest size).
    listener = await server.listenHttp({
      maxBodyBytes: 1000,
      maxBodyBytesInFlight: 4000,
      requestTimeoutMs: 2_000,
      trustProxy: true,
    });
  });
  afterEach(async () => {
    for (const socket of held.splice(0)) socket.destroy();
    await server.close();
  });

  const ping = (size: number): string => {
    const start = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"';
    return `${start}${'x'.repeat(size - start.length - 4)}"}}}`;
  };

  /** A request of `address` whose 900-byte body is whole, on a connection that closes. */
  const whole = (address: string): string =>
    head(listener.port, `Content-Length: 900\r\nConnection: close\r\nX-Forwarded-For: ${address}`) +
    ping(900);

  test('one caller holding bodies half-sent is refused more, and another caller is read', async () => {
    // Mallory sends all but the last 100 bytes of four 900-byte bodies: 3,200 bytes,
    // past the endpoint's budget once another caller's 900 come on top, were it one budget.
    for (let i = 0; i < 4; i++) {
      const socket = connect(listener.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        head(listener.port, 'Content-Length: 900\r\nX-Forwarded-For: 10.6.6.6') +
          ping(900).slice(0, -100),
      );
      held.push(socket);
    }
    // Once what Mallory sent is being read, another body of hers is refused.
    let refused = await exchange(listener.port, whole('10.6.6.6'));
    for (let tries = 0; tries < 100 && !/ (429|503) /.test(refused.status); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      refused = await exchange(listener.port, whole('10.6.6.6'));
    }
    expect(refused.status).toBe('HTTP/1.1 429 Too Many Requests');
    expect(refused.headers).toContain('connection: close');
    expect(refused.headers).toContain('retry-after: 5');
    expect(JSON.parse(refused.body)).toMatchObject({
      error: {
        message:
          'Too Many Requests: the client address 10.6.6.6 is sending its share of 1000 bytes of request bodies at once (maxBodyBytesInFlightPerSubject); finish or close one, or try again later',
      },
    });
    // Bob's body is read and answered meanwhile.
    const bob = await exchange(listener.port, whole('10.0.0.2'));
    expect(bob.status).not.toMatch(/ (429|503) /);
    expect(bob.body).toContain('"jsonrpc":"2.0"');
  });

  test('must hold at least one body of the largest size', async () => {
    const other = new McpToolServer([echo]);
    await expect(
      other.listenHttp({ maxBodyBytes: 1000, maxBodyBytesInFlightPerSubject: 999 }),
    ).rejects.toThrow(
      'mcp: http: maxBodyBytesInFlightPerSubject (999) must be at least maxBodyBytes (1000): a body of the largest size could never be read',
    );
    await other.close();
  });
});
