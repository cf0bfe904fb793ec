/**
 * One caller cannot take what another needs: sessions, listening streams and calls
 * waiting for answers are counted per caller (an authenticated subject, or without
 * authorization a client address, as `trustProxy` reads `X-Forwarded-For`), and a
 * caller past its share is refused with 429, `Retry-After` and a message naming the
 * limit, in both eras, while another caller still gets in.
 */
import { createContext, newTool, outputText } from 'agenttool';
import {
  connectMcp,
  type HttpListener,
  jwtVerifier,
  McpToolServer,
  type McpServerOptions,
  type RemoteTools,
  serveTools,
} from 'agenttool/mcp';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../../fixtures/oauth/jwt-authorization-server';
import { type Answer, bearer, INITIALIZE, modern, post, send } from '../auth/helpers';

const echo = newTool({
  name: 'echo',
  description: 'Echoes',
  execute: () => ({ output: 'echo' }),
});

const asks = newTool({
  name: 'asks',
  description: 'Asks before it answers',
  execute: async (_call, ctx) => ({
    output: `answered ${(await ctx.ask({ message: 'Go?' })).action}`,
  }),
});

/** `X-Forwarded-For` naming a client, as a proxy in front writes it. */
const from = (address: string) => ({ 'x-forwarded-for': address });

/**
 * Opens a 2026-07-28 `subscriptions/listen` stream at `url` (with `headers`), its abort
 * kept in `streams` for the test to end it.
 */
function listenStream(
  url: string,
  streams: AbortController[],
  headers: Record<string, string> = {},
): Promise<Response> {
  const stop = new AbortController();
  streams.push(stop);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      ...headers,
    },
    body: JSON.stringify(
      modern('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ),
    signal: stop.signal,
  });
}

async function call(remote: RemoteTools, name = 'echo'): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name)!;
  const c = { id: 'call_1', args: '{}' };
  return outputText((await tool.execute(c, createContext({ call: c }))).output);
}

function expectOverShare(
  answer: Answer,
  who: string,
  share: number,
  what: string,
  option: string,
): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('retry-after')).toBe('5');
  expect((answer.message?.error as { message: string }).message).toMatch(
    new RegExp(
      `^Too Many Requests: the ${who} holds its share of ${share} ${what} \\(${option}\\); `,
    ),
  );
}

describe('without authorization, callers are counted by client address', () => {
  let server: McpToolServer;
  let listener: HttpListener;
  const open: RemoteTools[] = [];

  beforeEach(async () => {
    // Its list may change, so that clients may listen for changes (streams are counted).
    server = new McpToolServer([echo, asks], { maxParkedCalls: 20, listChanged: true });
    // maxSessions 20 and maxStreams 20: a caller's default share is 2 of each.
    listener = await server.listenHttp({ maxSessions: 20, maxStreams: 20, trustProxy: true });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((remote) => remote.close()));
    await server.close();
  });

  const initialize = (address: string) => post(listener.url, INITIALIZE, from(address));

  test('2025 era: past its share of sessions a client is refused 429; another still opens one', async () => {
    expect((await initialize('10.0.0.1')).status).toBe(200);
    const second = await initialize('10.0.0.1');
    expect(second.status).toBe(200);
    expectOverShare(
      await initialize('10.0.0.1'),
      'client address 10.0.0.1',
      2,
      'sessions',
      'maxSessionsPerSubject',
    );
    expect((await initialize('10.0.0.2')).status).toBe(200);
    // Ending one of its sessions gives the flooding client room again.
    const ended = await send(listener.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': second.headers.get('mcp-session-id')!, ...from('10.0.0.1') },
    });
    expect(ended.status).toBe(200);
    expect((await initialize('10.0.0.1')).status).toBe(200);
  });

  test('2026-07-28: past its share of sessions a client gets 429; another still gets a session', async () => {
    const connect = async (address: string) => {
      const remote = await connectMcp({
        transport: { url: listener.url, headers: from(address) },
        protocol: 'modern',
      });
      open.push(remote);
      return remote;
    };
    const first = await connect('10.0.0.1');
    const second = await connect('10.0.0.1');
    expect(await call(first)).toBe('echo');
    expect(await call(second)).toBe('echo');
    const third = await connect('10.0.0.1');
    await expect(call(third)).rejects.toThrow(
      'Too Many Requests: the client address 10.0.0.1 holds its share of 2 sessions (maxSessionsPerSubject)',
    );
    expect(await call(await connect('10.0.0.2'))).toBe('echo');
    expect(server.sessions).toHaveLength(3);
    // Closing a client ends its session at once: the third one gets in.
    await first.close();
    expect(await call(third)).toBe('echo');
  });

  test('an IPv6 client counts by its /64: another address of the same network shares its share', async () => {
    expect((await initialize('2001:db8:1:2::a')).status).toBe(200);
    expect((await initialize('2001:db8:1:2:ffff::b')).status).toBe(200);
    expectOverShare(
      await initialize('2001:db8:1:2::c'),
      'client address 2001:db8:1:2::/64',
      2,
      'sessions',
      'maxSessionsPerSubject',
    );
    expect((await initialize('2001:db8:1:3::a')).status).toBe(200);
  });

  test('2026-07-28: past its share of listening streams a client gets 429; another still listens', async () => {
    const streams: AbortController[] = [];
    const listen = async (address: string) => {
      const stop = new AbortController();
      const body = modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
      const response = await fetch(listener.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
          ...from(address),
        },
        body: JSON.stringify(body),
        signal: stop.signal,
      });
      streams.push(stop);
      return response;
    };
    try {
      expect((await listen('10.0.0.1')).status).toBe(200);
      expect((await listen('10.0.0.1')).status).toBe(200);
      const refused = await listen('10.0.0.1');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        'Too Many Requests: the client address 10.0.0.1 holds its share of 2 open streams (maxStreamsPerSubject); close one of its streams first',
      );
      expect((await listen('10.0.0.2')).status).toBe(200);
    } finally {
      for (const stream of streams) stream.abort();
    }
  });

  test('past maxStreams every client gets 503 for a new stream, whatever its share', async () => {
    const server2 = new McpToolServer([echo], { listChanged: true });
    const own = await server2.listenHttp({
      maxStreams: 2,
      maxStreamsPerSubject: 2,
      trustProxy: true,
    });
    const streams: AbortController[] = [];
    const listen = (address: string) => listenStream(own.url, streams, from(address));
    try {
      expect((await listen('10.0.0.1')).status).toBe(200);
      expect((await listen('10.0.0.2')).status).toBe(200);
      const refused = await listen('10.0.0.3');
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        'Service unavailable: the server holds its limit of 2 open streams (maxStreams); try again later',
      );
    } finally {
      for (const stream of streams) stream.abort();
      await server2.close();
    }
  });

  test('holds more streams than the SDK holds by default (1024) when maxStreams says so', async () => {
    const server2 = new McpToolServer([echo], { listChanged: true });
    // Each stream holds a connection of the one client address: its share of connections
    // (a tenth of maxConnections, 410, by default) must hold them too.
    const own = await server2.listenHttp({
      maxStreams: 1100,
      maxStreamsPerSubject: 1100,
      maxConnectionsPerAddress: 1100,
    });
    const streams: AbortController[] = [];
    const listen = () => listenStream(own.url, streams);
    /** The first event of a stream: its acknowledgement, or an error in its place. */
    const firstEvent = async (response: Response): Promise<string> => {
      const reader = response.body!.getReader();
      const { value } = await reader.read();
      return new TextDecoder().decode(value);
    };
    try {
      const opened: Response[] = [];
      for (let i = 0; i < 1030; i++) opened.push(await listen());
      expect(opened.filter((r) => r.status !== 200)).toEqual([]);
      const last = await firstEvent(opened[1029]!);
      expect(last).not.toContain('"error"');
      expect(last).toContain('jsonrpc');
    } finally {
      for (const stream of streams) stream.abort();
      await server2.close();
    }
  }, 60_000);

  test("2025 era: a session's GET stream counts against its client's share of streams", async () => {
    const server2 = new McpToolServer([echo]);
    const own = await server2.listenHttp({
      maxSessions: 20,
      maxSessionsPerSubject: 5,
      maxStreams: 20,
      trustProxy: true,
    });
    const streams: AbortController[] = [];
    try {
      const get = async (address: string) => {
        const opened = await post(own.url, INITIALIZE, from(address));
        const stop = new AbortController();
        streams.push(stop);
        return fetch(own.url, {
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': opened.headers.get('mcp-session-id')!,
            'mcp-protocol-version': '2025-11-25',
            ...from(address),
          },
          signal: stop.signal,
        });
      };
      expect((await get('10.0.0.1')).status).toBe(200);
      expect((await get('10.0.0.1')).status).toBe(200);
      expect((await get('10.0.0.1')).status).toBe(429);
      expect((await get('10.0.0.2')).status).toBe(200);
    } finally {
      for (const stream of streams) stream.abort();
      await server2.close();
    }
  });

  test('without trustProxy, X-Forwarded-For is not believed: every request counts as the peer', async () => {
    const server2 = new McpToolServer([echo]);
    const own = await server2.listenHttp({ maxSessions: 20 });
    try {
      expect((await post(own.url, INITIALIZE, from('10.0.0.1'))).status).toBe(200);
      expect((await post(own.url, INITIALIZE, from('10.0.0.2'))).status).toBe(200);
      expectOverShare(
        await post(own.url, INITIALIZE, from('10.0.0.3')),
        'client address 127.0.0.1',
        2,
        'sessions',
        'maxSessionsPerSubject',
      );
    } finally {
      await server2.close();
    }
  });
});

describe('calls waiting for answers (2026-07-28)', () => {
  const elicitation = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

  async function serving(options: McpServerOptions) {
    const server = new McpToolServer([asks, echo], options);
    const listener = await server.listenHttp({ trustProxy: true });
    const ask = (address: string) =>
      post(
        listener.url,
        modern('tools/call', { name: 'asks', arguments: {} }, elicitation),
        from(address),
      );
    return { server, listener, ask };
  }

  test('a caller with its share parked gets 429 for a new call; answering frees it; another caller is not held up', async () => {
    const { server, listener, ask } = await serving({ maxParkedCallsPerSubject: 1 });
    try {
      const parked = await ask('10.0.0.1');
      const state = (parked.message?.result as { requestState: string }).requestState;
      expectOverShare(
        await ask('10.0.0.1'),
        'client address 10.0.0.1',
        1,
        'calls waiting for answers',
        'maxParkedCallsPerSubject',
      );
      expect((await ask('10.0.0.2')).message?.result).toMatchObject({
        resultType: 'input_required',
      });
      const answered = await post(
        listener.url,
        modern(
          'tools/call',
          {
            name: 'asks',
            arguments: {},
            requestState: state,
            inputResponses: { elicit_1: { action: 'decline' } },
          },
          elicitation,
        ),
        from('10.0.0.1'),
      );
      expect(answered.message?.result).toMatchObject({ content: [{ text: 'answered decline' }] });
      expect((await ask('10.0.0.1')).message?.result).toMatchObject({
        resultType: 'input_required',
      });
    } finally {
      await server.close();
    }
  });

  test('a parked call counts once for each 64 KiB of arguments it holds; the first of a caller is always taken', async () => {
    const { server, listener } = await serving({ maxParkedCallsPerSubject: 4 });
    const askWith = (address: string, bytes: number) =>
      post(
        listener.url,
        modern('tools/call', { name: 'asks', arguments: { note: 'x'.repeat(bytes) } }, elicitation),
        from(address),
      );
    const text = (answer: Answer) =>
      (answer.message?.result as { content?: { text: string }[] }).content?.[0]?.text;
    try {
      // A first call of 600 KB (ten parts) parks though it counts past the share; then a
      // new call of that caller is refused as past its share.
      expect((await askWith('10.0.0.1', 600_000)).message?.result).toMatchObject({
        resultType: 'input_required',
      });
      expectOverShare(
        await askWith('10.0.0.1', 10),
        'client address 10.0.0.1',
        4,
        'calls waiting for answers',
        'maxParkedCallsPerSubject',
      );
      // Another caller parks one of 100 KB (two parts); one of 200 KB more (four) would
      // pass its share of four: its question cannot go back, and the tool's ask fails.
      expect((await askWith('10.0.0.2', 100_000)).message?.result).toMatchObject({
        resultType: 'input_required',
      });
      expect(text(await askWith('10.0.0.2', 200_000))).toBe(
        'mcpserver: the caller holds its share of 4 calls waiting for answers (maxParkedCallsPerSubject); answer them, or let them go, first; the question cannot go back to the client now',
      );
    } finally {
      await server.close();
    }
  });

  test('past maxParkedCalls every caller gets 503 for a new call', async () => {
    const { server, ask } = await serving({ maxParkedCalls: 2 });
    try {
      await ask('10.0.0.1');
      await ask('10.0.0.2');
      const refused = await ask('10.0.0.3');
      expect(refused.status).toBe(503);
      expect((refused.message?.error as { message: string }).message).toBe(
        'Service unavailable: the server holds its limit of 2 calls waiting for answers (maxParkedCalls); answer them, or let them go, first',
      );
    } finally {
      await server.close();
    }
  });

  test('a call our client gives up while the server waits for its answers frees the share at once', async () => {
    const { server, listener } = await serving({ maxParkedCallsPerSubject: 1 });
    let opened!: () => void;
    const asked = new Promise<void>((resolve) => (opened = resolve));
    const remote = await connectMcp({
      transport: { url: listener.url, headers: from('10.0.0.1') },
      protocol: 'modern',
      elicitation: true,
    });
    try {
      const interrupt = new AbortController();
      const c = { id: 'call_1', args: '{}' };
      const tool = remote.tools().find((t) => t.name === 'asks')!;
      const pending = Promise.resolve(
        tool.execute(
          c,
          createContext({
            call: c,
            signal: interrupt.signal,
            elicitor: () => {
              opened();
              return new Promise(() => undefined); // the user never answers
            },
          }),
        ),
      );
      pending.catch(() => undefined);
      await asked;
      interrupt.abort(new Error('Esc'));
      await expect(pending).rejects.toThrow('context canceled');
      // The server hears the call given up at once, not after its abandon timeout (30
      // minutes): a new call of this client is refused only until then.
      let result: string | undefined;
      for (let i = 0; i < 100 && result === undefined; i++) {
        result = await call(remote).catch(async (error: unknown) => {
          if (!String(error).includes('Too Many Requests')) throw error;
          await new Promise((resolve) => setTimeout(resolve, 20));
          return undefined;
        });
      }
      expect(result).toBe('echo');
    } finally {
      await remote.close();
      await server.close();
    }
  });
});

describe('with authorization, callers are counted by subject, in both eras', () => {
  let issuer: JwtAuthorizationServer;
  let server: McpToolServer;
  let listener: HttpListener;
  const open: RemoteTools[] = [];

  beforeAll(async () => {
    issuer = await startJwtAuthorizationServer({});
    server = serveTools([echo]);
    listener = await server.listenHttp({
      maxSessions: 10, // a subject's share: 1
      auth: {
        verifyToken: jwtVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }),
        authorizationServers: [issuer.issuer],
      },
    });
  });

  afterAll(async () => {
    await Promise.all(open.splice(0).map((remote) => remote.close()));
    await server.close();
    await issuer.close();
  });

  const as = (subject: string) => bearer(issuer.mint({ sub: subject, aud: listener.url }));

  test.each(['legacy', 'modern'] as const)(
    '%s: one subject floods, the other still gets in',
    async (protocol) => {
      const connect = async (subject: string) => {
        const remote = await connectMcp({
          transport: { url: listener.url, headers: as(subject) },
          protocol,
        });
        open.push(remote);
        return remote;
      };
      const flood = `flood-${protocol}`;
      expect(await call(await connect(flood))).toBe('echo');
      const refused =
        protocol === 'legacy' ? connect(flood) : connect(flood).then((remote) => call(remote));
      await expect(refused).rejects.toThrow(
        `Too Many Requests: the subject "${flood}" holds its share of 1 sessions (maxSessionsPerSubject)`,
      );
      expect(await call(await connect(`other-${protocol}`))).toBe('echo');
    },
  );
});
