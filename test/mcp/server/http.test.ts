import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { newTool, type Session } from 'agenttool';
import { type HttpListener, serveTools } from 'agenttool/mcp';
import { deferred, firstText } from './helpers';
import { INITIALIZE } from '../../support/initialize';

const echo = newTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: (call) => ({ output: (JSON.parse(call.args) as { text: string }).text }),
});

const INITIALIZE_BODY = JSON.stringify(INITIALIZE);

interface Raw {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A raw HTTP request, so the test controls Host, Origin and the body byte for byte. */
function raw(
  listener: HttpListener,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: listener.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          // An SSE response stays open; the first event is enough here.
          if (Buffer.concat(chunks).toString().includes('\n\n')) res.destroy();
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            headers: res.headers,
          });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

test.each(['::1', '[::1]'])('binds the IPv6 loopback written as %s', async (host) => {
  const server = serveTools([echo]);
  try {
    const listener = await server.listenHttp({ host });
    expect(listener.host).toBe('::1');
    expect(listener.url).toBe(`http://[::1]:${listener.port}/mcp`);
    const opened = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: INITIALIZE_BODY,
    });
    await opened.text();
    expect(opened.status).toBe(200);
  } finally {
    await server.close();
  }
});

describe('Streamable HTTP, stateful (the default)', () => {
  const server = serveTools([echo]);
  let listener: HttpListener;
  beforeAll(async () => {
    listener = await server.listenHttp({ maxBodyBytes: 1024 });
  });
  afterAll(() => server.close());

  test('binds loopback and serves the endpoint path only', async () => {
    expect(listener.host).toBe('127.0.0.1');
    expect(listener.url).toBe(`http://127.0.0.1:${listener.port}/mcp`);
    const other = await raw(listener, { path: '/other', body: INITIALIZE_BODY });
    expect(other.status).toBe(404);
  });

  test('DNS-rebinding protection refuses a foreign Host or Origin with 403', async () => {
    const host = await raw(listener, {
      headers: { Host: 'evil.example.com' },
      body: INITIALIZE_BODY,
    });
    expect(host.status).toBe(403);
    expect(host.body).toContain('Invalid Host header: evil.example.com');
    const origin = await raw(listener, {
      headers: { Origin: 'http://evil.example.com' },
      body: INITIALIZE_BODY,
    });
    expect(origin.status).toBe(403);
    expect(origin.body).toContain('Invalid Origin header');
    const local = await raw(listener, {
      headers: { Host: `localhost:${listener.port}`, Origin: `http://localhost:${listener.port}` },
      body: INITIALIZE_BODY,
    });
    expect(local.status).toBe(200);
    expect(local.headers['mcp-session-id']).toEqual(expect.any(String));
  });

  test('refuses an id MCP does not take with 400 -32600, saying which message and what it was', async () => {
    const cases: [string, string][] = [
      [
        '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
        'the message must be a string or an integer, got an object',
      ],
      [
        '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
        'got a number too large for a double (read as Infinity)',
      ],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 'got 1.5'],
      ['{"jsonrpc":"2.0","id":true,"method":"ping"}', 'got true'],
      [
        '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
        'past 2^53 where integers stay exact',
      ],
      [
        '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":[1],"method":"ping"}]',
        'the id of message 1 of the batch must be a string or an integer, got an array',
      ],
    ];
    for (const [body, said] of cases) {
      const refused = await raw(listener, { body });
      expect({ body, status: refused.status }).toEqual({ body, status: 400 });
      const answer = JSON.parse(refused.body) as {
        id: unknown;
        error: { code: number; message: string };
      };
      expect(answer.id).toBeNull();
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toContain(said);
    }
    // What MCP takes passes the screen: here a string id opens a session.
    const taken = await raw(listener, { body: JSON.stringify({ ...INITIALIZE, id: 'init-1' }) });
    expect(taken.status).toBe(200);
  });

  test('refuses a Host that is no host with 400, whatever allowed name it carries', async () => {
    for (const host of [
      `evil.example.com#@127.0.0.1:${listener.port}`,
      `evil.example.com@127.0.0.1:${listener.port}`,
      `127.0.0.1:${listener.port}/mcp`,
      `evil.example.com?127.0.0.1:${listener.port}`,
    ]) {
      const refused = await raw(listener, { headers: { Host: host }, body: INITIALIZE_BODY });
      expect({ host, status: refused.status }).toEqual({ host, status: 400 });
      expect(refused.body).toContain('the Host header or the path is not valid');
    }
  });

  test("takes the loopback names as Host with the listener's port only", async () => {
    for (const host of [
      `localhost:${listener.port}`,
      `127.0.0.1:${listener.port}`,
      `[::1]:${listener.port}`,
    ]) {
      const taken = await raw(listener, { headers: { Host: host }, body: INITIALIZE_BODY });
      expect({ host, status: taken.status }).toEqual({ host, status: 200 });
    }
    // Another port is another listener; a Host without a port means port 80.
    for (const host of ['localhost:1', '127.0.0.1:1', '[::1]:1', 'localhost']) {
      const refused = await raw(listener, { headers: { Host: host }, body: INITIALIZE_BODY });
      expect({ host, status: refused.status }).toEqual({ host, status: 403 });
      expect(refused.body).toContain(`Invalid Host header: ${host}`);
    }
  });

  test('takes a loopback Origin on any port (a local web client), and nothing that only looks like one', async () => {
    for (const origin of ['http://localhost:6274', 'https://127.0.0.1:5173', 'http://[::1]:8080']) {
      const taken = await raw(listener, { headers: { Origin: origin }, body: INITIALIZE_BODY });
      expect({ origin, status: taken.status }).toEqual({ origin, status: 200 });
    }
    for (const origin of [
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io:6274',
      'http://evil.example@localhost:6274',
      'http://localhost:6274/path',
      'file://localhost',
      'null',
    ]) {
      const refused = await raw(listener, { headers: { Origin: origin }, body: INITIALIZE_BODY });
      expect({ origin, status: refused.status }).toEqual({ origin, status: 403 });
      expect(refused.body).toContain(`Invalid Origin header: ${origin}`);
    }
  });

  test('a body over the limit is refused with 413, bad JSON with a parse error', async () => {
    const big = await raw(listener, { body: JSON.stringify({ pad: 'x'.repeat(2048) }) });
    expect(big.status).toBe(413);
    const bad = await raw(listener, { body: '{not json' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: { code: -32700 } });
  });

  test('requests need a live session: none is 400, an unknown one 404', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await raw(listener, { body: list })).status).toBe(400);
    const unknown = await raw(listener, { body: list, headers: { 'Mcp-Session-Id': 'nope' } });
    expect(unknown.status).toBe(404);
  });

  test('an initialize whose params are not one says what is wrong, not that a session is missing', async () => {
    const noClientInfo = await raw(listener, {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'init-1',
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {} },
      }),
    });
    expect(noClientInfo.status).toBe(400);
    expect(JSON.parse(noClientInfo.body)).toEqual({
      jsonrpc: '2.0',
      id: 'init-1',
      error: {
        code: -32602,
        message:
          'Invalid params for initialize: params.clientInfo: Invalid input: expected object, received undefined',
      },
    });
    // In a batch, the same.
    const batch = await raw(listener, {
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: 7 } },
      ]),
    });
    expect(JSON.parse(batch.body)).toMatchObject({
      id: 5,
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid params for initialize: params\.protocolVersion: /),
      },
    });
  });

  test("a 2025 session's MCP-Protocol-Version that names no revision is refused as such", async () => {
    const opened = await raw(listener, { body: INITIALIZE_BODY });
    const session = opened.headers['mcp-session-id'];
    expect(typeof session).toBe('string');
    for (const version of ['bogus', '', '2025-6-18']) {
      const answer = await raw(listener, {
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        headers: { 'MCP-Protocol-Version': version, 'Mcp-Session-Id': String(session) },
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error).toEqual({
        code: -32000,
        message: `Bad Request: Unsupported protocol version: ${JSON.stringify(version)} is no protocol revision (supported versions: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)`,
      });
    }
  });

  test('methods other than POST, GET and DELETE are 405 with Allow, session or none', async () => {
    for (const method of ['PUT', 'PATCH', 'OPTIONS']) {
      for (const headers of [{}, { 'Mcp-Session-Id': 'any' }]) {
        const answer = await raw(listener, { method, headers });
        expect([method, answer.status, answer.headers['allow']]).toEqual([
          method,
          405,
          'GET, POST, DELETE',
        ]);
      }
    }
  });

  test('DELETE ends the session: its onClose listeners run and its id is gone', async () => {
    const closed = deferred<Session>();
    const hooked = serveTools([echo], {
      onSession: (session) => session.onClose(() => closed.resolve(session)),
    });
    const own = await hooked.listenHttp();
    const transport = new StreamableHTTPClientTransport(new URL(own.url));
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(transport);
    const id = transport.sessionId;
    await transport.terminateSession();
    expect((await closed.promise).id).toBe(id);
    const after = await raw(own, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: { 'Mcp-Session-Id': id ?? '' },
    });
    expect(after.status).toBe(404);
    await client.close();
    await hooked.close();
  });

  test('an idle session ends after the idle timeout', async () => {
    const closed = deferred<string>();
    const hooked = serveTools([echo], {
      onSession: (session) => session.onClose(() => closed.resolve(session.id)),
    });
    const own = await hooked.listenHttp({ idleTimeoutMs: 20 });
    const opened = await raw(own, { body: INITIALIZE_BODY });
    expect(await closed.promise).toBe(opened.headers['mcp-session-id']);
    expect(hooked.sessions).toHaveLength(0);
    await hooked.close();
  });

  test('an idle timeout longer than a timer can hold keeps the session', async () => {
    // Node fires a timer whose delay does not fit 32 bits after 1 ms instead, so the
    // idle clock must never ask for one.
    const overflowing: number[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === 'TimeoutOverflowWarning') overflowing.push(1);
    };
    process.on('warning', onWarning);
    const server = serveTools([echo]);
    const listener = await server.listenHttp({ idleTimeoutMs: 30 * 24 * 60 * 60 * 1000 });
    try {
      const opened = await raw(listener, { body: INITIALIZE_BODY });
      expect(opened.status).toBe(200);
      // A second request re-arms the clock after the first has armed it.
      const listed = await raw(listener, {
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        headers: { 'Mcp-Session-Id': String(opened.headers['mcp-session-id']) },
      });
      expect(listed.status).toBe(200);
      // Warnings are emitted on the next tick.
      await new Promise<void>((resolve) => process.nextTick(resolve));
      expect(overflowing).toEqual([]);
      expect(server.sessions).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
      await server.close();
    }
  });

  test('binding a non-loopback address needs allowed hosts', async () => {
    await expect(serveTools([echo]).listenHttp({ host: '0.0.0.0' })).rejects.toThrow(
      'mcp: http: binding 0.0.0.0 with DNS-rebinding protection needs allowedHosts',
    );
  });
});

describe('Streamable HTTP, resumable', () => {
  test('a 2025-11-25 client gets a priming event with an id and the retry first', async () => {
    const server = serveTools([echo]);
    const listener = await server.listenHttp({ resumable: true, retryIntervalMs: 1500 });
    try {
      const opened = await raw(listener, {
        body: INITIALIZE_BODY.replace('2025-06-18', '2025-11-25'),
      });
      expect(opened.status).toBe(200);
      expect(opened.body).toMatch(/^id: \S+\nretry: 1500\ndata: \n\n/);
    } finally {
      await server.close();
    }
  });
});

describe('Streamable HTTP, stateless', () => {
  test('serves calls without sessions; GET is not allowed; each request is its own session', async () => {
    const sessions: Session[] = [];
    const ended = deferred();
    const server = serveTools([echo], {
      onSession: (session) => {
        sessions.push(session);
        session.onClose(() => {
          if (sessions.length === 2) ended.resolve();
        });
      },
    });
    const listener = await server.listenHttp({ stateless: true });
    const client = new Client({ name: 'c', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(listener.url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeUndefined();
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(firstText(result)).toBe('hi');
      const get = await raw(listener, { method: 'GET', headers: { Accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      expect(sessions.every((s) => s.id === '')).toBe(true);
      expect(sessions.length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
      await server.close();
    }
    await ended.promise;
  });

  test("a 2025-era call stops when its client closes the call's stream", async () => {
    // No session carries a `notifications/cancelled` to the call here (docs/serving.md):
    // closing the stream is how a stateless call is given up.
    const started = deferred();
    const stopped = deferred<string>();
    const slow = newTool({
      name: 'slow',
      description: 'Runs until its call is given up',
      parameters: { type: 'object', properties: {} },
      execute: (_call, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            stopped.resolve(String(ctx.signal.reason));
            resolve({ output: 'stopped' });
          });
          started.resolve();
        }),
    });
    const server = serveTools([slow]);
    const listener = await server.listenHttp({ stateless: true });
    try {
      const req = request({
        host: '127.0.0.1',
        port: listener.port,
        method: 'POST',
        path: '/mcp',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Protocol-Version': '2025-06-18',
        },
      });
      req.on('error', () => undefined);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'slow', arguments: {} },
        }),
      );
      await started.promise;
      req.destroy();
      expect(await stopped.promise).toMatch(/abort/i);
    } finally {
      await server.close();
    }
  });
});
