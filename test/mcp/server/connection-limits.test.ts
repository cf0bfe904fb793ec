/**
 * The connections a listener holds, on real sockets (`maxConnections`,
 * `maxConnectionsPerAddress`): one client address past its share is answered 429 and
 * closed before its request is read, while another address is served; a closed
 * connection gives its place back once; past the listener's whole limit a connection is
 * closed as soon as it is accepted; a proxy's connections are not counted by address.
 * Clients on 127.0.0.1 and 127.0.0.2 (Linux's loopback takes the whole 127/8).
 */
import { connect, type Socket } from 'node:net';
import { newTool } from 'agenttool';
import {
  DEFAULT_MAX_CONNECTIONS,
  type HttpListener,
  McpToolServer,
  type TrustProxy,
} from 'agenttool/mcp';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'echo' }) });

/** One answer read off a raw connection: its status line, headers (lower case) and body. */
interface Answer {
  readonly status: string;
  readonly headers: string;
  readonly body: string;
}

/** A raw client connection from `localAddress`, asking the health route. */
class Client {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  #received = '';
  #wake: (() => void) | undefined;
  #ended = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#received += chunk.toString('utf8');
      this.#wake?.();
    });
    // A reset from a server that closed an unread connection changes nothing here.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.#ended = true;
        this.#wake?.();
        resolve();
      }),
    );
  }

  static open(port: number, localAddress = '127.0.0.1'): Promise<Client> {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    const client = new Client(socket);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(client));
      socket.once('error', reject);
    });
  }

  /**
   * Asks the health route on this connection and resolves with the next whole answer,
   * or with an empty status when the connection closes first (nothing was answered).
   */
  async ask(port: number): Promise<Answer> {
    if (!this.#ended) {
      this.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    }
    for (;;) {
      const answer = this.#take();
      if (answer !== undefined) return answer;
      if (this.#ended) return { status: '', headers: '', body: this.#received };
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The first whole answer received, taken off what was received. */
  #take(): Answer | undefined {
    const split = this.#received.indexOf('\r\n\r\n');
    if (split === -1) return undefined;
    const [status = '', ...lines] = this.#received.slice(0, split).split('\r\n');
    const headers = lines.join('\n').toLowerCase();
    const rest = this.#received.slice(split + 4);
    let body: string;
    let used: number;
    if (headers.includes('transfer-encoding: chunked')) {
      // The health route's answer comes in one chunk and the last.
      const last = rest.indexOf('0\r\n\r\n');
      if (last === -1) return undefined;
      body = rest.slice(rest.indexOf('\r\n') + 2, last - 2);
      used = last + 5;
    } else {
      used = Number(/content-length: (\d+)/.exec(headers)?.[1] ?? 0);
      if (rest.length < used) return undefined;
      body = rest.slice(0, used);
    }
    this.#received = rest.slice(used);
    return { status, headers, body };
  }

  /** Closes the connection from this side; resolves once it is closed here. */
  async close(): Promise<void> {
    this.socket.destroy();
    await this.closed;
  }
}

const SERVED = 'HTTP/1.1 200 OK';
const REFUSED = 'HTTP/1.1 429 Too Many Requests';

/**
 * A connection from `localAddress` that the server serves, once the closes it has yet to
 * see are seen: each refused attempt waits for its answer and close (a whole round trip),
 * at most `attempts` of them. Undefined when every attempt was refused.
 */
async function admitted(
  port: number,
  localAddress: string,
  attempts = 50,
): Promise<Client | undefined> {
  for (let i = 0; i < attempts; i++) {
    const client = await Client.open(port, localAddress);
    const answer = await client.ask(port);
    if (answer.status === SERVED) return client;
    await client.close();
  }
  return undefined;
}

describe('a listener with maxConnectionsPerAddress', () => {
  const SHARE = 3;
  let server: McpToolServer;
  let listener: HttpListener;
  const clients: Client[] = [];
  const open = async (address = '127.0.0.1'): Promise<Client> => {
    const client = await Client.open(listener.port, address);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    server = new McpToolServer([echo]);
    listener = await server.listenHttp({ maxConnectionsPerAddress: SHARE });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.socket.destroy();
    await server.close();
  });

  test('refuses an address past its share with 429 before reading its request, and serves another address', async () => {
    const held: Client[] = [];
    for (let i = 0; i < SHARE; i++) {
      const client = await open();
      expect((await client.ask(listener.port)).status).toBe(SERVED);
      held.push(client);
    }
    const past = await open();
    const refused = await past.ask(listener.port);
    expect(refused.status).toBe(REFUSED);
    expect(refused.headers).toContain('retry-after: 5');
    expect(refused.headers).toContain('connection: close');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Too Many Requests: the client address 127.0.0.1 holds its share of ${SHARE} connections (maxConnectionsPerAddress); close one or try again later`,
      },
      id: null,
    });
    // The server closes it, and its request (the health route's) was never served.
    await past.closed;
    expect((await past.ask(listener.port)).body).toBe('');

    // Another address is served meanwhile, up to its own share.
    const other = await open('127.0.0.2');
    expect((await other.ask(listener.port)).status).toBe(SERVED);
    // The held connections are still served, kept alive.
    for (const client of held) expect((await client.ask(listener.port)).status).toBe(SERVED);
  });

  test('a closed connection gives its place back exactly once', async () => {
    const held: Client[] = [];
    for (let i = 0; i < SHARE; i++) {
      const client = await open();
      expect((await client.ask(listener.port)).status).toBe(SERVED);
      held.push(client);
    }
    // Two close; a refused connection (it was never counted) gives nothing back.
    const refused = await open();
    expect((await refused.ask(listener.port)).status).toBe(REFUSED);
    await refused.close();
    await held[0]!.close();
    await held[1]!.close();
    for (let i = 0; i < 2; i++) {
      const client = await admitted(listener.port, '127.0.0.1');
      expect(client).toBeDefined();
      clients.push(client!);
    }
    // Round trips on a held connection: the server has seen every close by now.
    for (let i = 0; i < 3; i++) expect((await held[2]!.ask(listener.port)).status).toBe(SERVED);
    const next = await open();
    expect((await next.ask(listener.port)).status).toBe(REFUSED);
  });
});

describe('a listener with maxConnections', () => {
  test('closes a connection past it as soon as it is accepted, whatever its address, until one closes', async () => {
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp({ maxConnections: 3, maxConnectionsPerAddress: 2 });
    const clients: Client[] = [];
    try {
      for (const address of ['127.0.0.1', '127.0.0.1', '127.0.0.2']) {
        const client = await Client.open(listener.port, address);
        clients.push(client);
        expect((await client.ask(listener.port)).status).toBe(SERVED);
      }
      // An address under its share: closed unanswered, as Node drops it.
      const past = await Client.open(listener.port, '127.0.0.3');
      clients.push(past);
      expect(await past.ask(listener.port)).toEqual({ status: '', headers: '', body: '' });
      await clients[0]!.close();
      const next = await admitted(listener.port, '127.0.0.3');
      expect(next).toBeDefined();
      clients.push(next!);
    } finally {
      for (const client of clients) client.socket.destroy();
      await server.close();
    }
  });

  test('defaults to DEFAULT_MAX_CONNECTIONS, a tenth of it for an address', async () => {
    expect(DEFAULT_MAX_CONNECTIONS).toBe(4096);
    // A tenth of the limit given: one connection of an address, the second refused.
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp({ maxConnections: 10 });
    const first = await Client.open(listener.port);
    const second = await Client.open(listener.port);
    try {
      expect((await first.ask(listener.port)).status).toBe(SERVED);
      expect((await second.ask(listener.port)).status).toBe(REFUSED);
    } finally {
      first.socket.destroy();
      second.socket.destroy();
      await server.close();
    }
  });
});

describe('a listener behind a proxy (trustProxy)', () => {
  test.each([
    ['a list', ['127.0.0.1'], true],
    ['true', true, false],
    ['a number of hops', 1, false],
  ] as const)(
    "with %s, a trusted peer's connections are not counted by address",
    async (_name, trustProxy, othersCounted) => {
      const server = new McpToolServer([echo]);
      const listener = await server.listenHttp({
        trustProxy: trustProxy as TrustProxy,
        maxConnectionsPerAddress: 1,
      });
      const clients: Client[] = [];
      const statusFrom = async (address: string): Promise<string> => {
        const client = await Client.open(listener.port, address);
        clients.push(client);
        return (await client.ask(listener.port)).status;
      };
      try {
        for (let i = 0; i < 3; i++) expect(await statusFrom('127.0.0.1')).toBe(SERVED);
        // A peer the list does not name is a client of its own, counted by its address.
        expect(await statusFrom('127.0.0.2')).toBe(SERVED);
        expect(await statusFrom('127.0.0.2')).toBe(othersCounted ? REFUSED : SERVED);
      } finally {
        for (const client of clients) client.socket.destroy();
        await server.close();
      }
    },
  );

  test('with 0 hops, every peer is a client counted by its address', async () => {
    const server = new McpToolServer([echo]);
    const listener = await server.listenHttp({ trustProxy: 0, maxConnectionsPerAddress: 1 });
    const first = await Client.open(listener.port);
    const second = await Client.open(listener.port);
    try {
      expect((await first.ask(listener.port)).status).toBe(SERVED);
      expect((await second.ask(listener.port)).status).toBe(REFUSED);
    } finally {
      first.socket.destroy();
      second.socket.destroy();
      await server.close();
    }
  });
});

describe('connection limits that are not whole numbers of at least 1', () => {
  test.each([
    ['maxConnections', 0],
    ['maxConnections', -1],
    ['maxConnections', 1.5],
    ['maxConnections', Number.NaN],
    ['maxConnections', '100'],
    ['maxConnectionsPerAddress', 0],
    ['maxConnectionsPerAddress', 2.5],
    ['maxConnectionsPerAddress', Number.POSITIVE_INFINITY],
  ] as const)('refuses %s: %p', async (option, value) => {
    const server = new McpToolServer([echo]);
    try {
      await expect(server.listenHttp({ [option]: value })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining(`mcp: ${option} must be a whole number, at least 1`),
      });
    } finally {
      await server.close();
    }
  });
});
