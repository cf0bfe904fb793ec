/**
 * Handles (SEP-2567) served over HTTP to 2026-07-28 callers without authorization: each
 * client address has its own most of handles (`maxPerCaller`), so one anonymous client
 * minting many handles ends its own idle ones, never another client's. 2025-era
 * sessions' own instances count among the open ones (`maxOpen`) too.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import { Inject, Injectable, Module, ToolApp } from 'agenttool/di';
import { type HttpListener, type McpToolServer, serveTools } from 'agenttool/mcp';
import { INITIALIZE, modern, post, send } from '../auth/helpers';

@Injectable()
class Counter {
  count = 0;
}

class AddArgs {}

@Tool({ name: 'add', description: 'Adds one to the counter' })
class Add {
  constructor(@Inject(Counter) private readonly counter: Counter) {}
  execute(_args: AddArgs): string {
    this.counter.count += 1;
    return `at ${this.counter.count}`;
  }
}

@Module({
  tools: [Add],
  providers: [
    {
      provide: Counter,
      useClass: Counter,
      scope: 'session',
      handle: { argument: 'counter_id', holds: 'counter', maxPerCaller: 2, maxOpen: 4 },
    },
  ],
})
class CounterModule {}

let app: ToolApp;
let server: McpToolServer;
let listener: HttpListener;

beforeEach(async () => {
  app = await ToolApp.create(CounterModule);
  server = serveTools(app);
  listener = await server.listenHttp({ trustProxy: true });
});

afterEach(async () => {
  await server.close();
  await app.close();
});

/** Calls `add` as the client at `address` (as a proxy in front says), with `args`. */
async function add(address: string, args: Record<string, unknown> = {}) {
  const answer = await post(listener.url, modern('tools/call', { name: 'add', arguments: args }), {
    'x-forwarded-for': address,
  });
  expect(answer.status).toBe(200);
  const result = answer.message?.result as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: { counter_id?: string };
  };
  return {
    error: result.isError === true,
    text: result.content.map((part) => part.text).join(''),
    id: result.structuredContent?.counter_id ?? '',
  };
}

describe('handles of anonymous callers over HTTP', () => {
  it("count against each client address's own most: one client's new handles never end another's", async () => {
    const others = await add('10.0.0.2');
    expect(others.id).not.toBe('');
    const first = await add('10.0.0.1');
    await add('10.0.0.1');
    // Past its most (2): the client's own handle unused longest ends.
    await add('10.0.0.1');
    expect(await add('10.0.0.1', { counter_id: first.id })).toMatchObject({
      error: true,
      text: expect.stringContaining('names no open counter'),
    });
    // The other client's handle is still there, its state with it.
    expect(await add('10.0.0.2', { counter_id: others.id })).toMatchObject({
      error: false,
      text: expect.stringMatching(/^at 2\b/),
    });
  });

  it('count two clients behind one address as one caller, as the fair shares do', async () => {
    const first = await add('10.0.0.3');
    await add('10.0.0.3');
    await add('10.0.0.3');
    expect((await add('10.0.0.3', { counter_id: first.id })).error).toBe(true);
  });
});

interface Session2025 {
  add(): Promise<{ error: boolean; text: string }>;
  end(): Promise<void>;
}

/** A 2025-era session opened by the client at `address`. */
async function session2025(address: string): Promise<Session2025> {
  const opened = await post(listener.url, INITIALIZE, { 'x-forwarded-for': address });
  expect(opened.status).toBe(200);
  const id = opened.headers.get('mcp-session-id') ?? '';
  expect(id).not.toBe('');
  const headers = {
    'x-forwarded-for': address,
    'mcp-session-id': id,
    'mcp-protocol-version': '2025-11-25',
  };
  const initialized = await post(
    listener.url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    headers,
  );
  expect(initialized.status).toBe(202);
  return {
    add: async () => {
      const answer = await post(
        listener.url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: {} } },
        headers,
      );
      const result = answer.message?.result as { isError?: boolean; content: { text: string }[] };
      return { error: result.isError === true, text: result.content[0]?.text ?? '' };
    },
    end: async () => {
      const ended = await send(listener.url, { method: 'DELETE', headers });
      expect(ended.status).toBe(200);
    },
  };
}

describe("2025-era sessions' own instances", () => {
  it('count among the open ones: past maxOpen a new session is refused until one ends', async () => {
    const sessions = await Promise.all(
      ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5'].map(session2025),
    );
    const [first, second, third, fourth, fifth] = sessions as [
      Session2025,
      Session2025,
      Session2025,
      Session2025,
      Session2025,
    ];
    expect(await first.add()).toEqual({ error: false, text: 'at 1' });
    expect(await first.add()).toEqual({ error: false, text: 'at 2' });
    expect(await second.add()).toEqual({ error: false, text: 'at 1' });
    expect(await third.add()).toEqual({ error: false, text: 'at 1' });
    expect(await fourth.add()).toEqual({ error: false, text: 'at 1' });
    expect(await fifth.add()).toEqual({
      error: true,
      text: expect.stringContaining(
        'the server holds its most counters (4, all callers together), and none could be taken back',
      ),
    });
    // Nor may a handle be minted past it.
    expect(await add('10.0.0.6')).toMatchObject({
      error: true,
      text: expect.stringContaining('the server holds its most counters (4'),
    });
    await second.end();
    expect(await fifth.add()).toEqual({ error: false, text: 'at 1' });
    expect(await first.add()).toEqual({ error: false, text: 'at 3' });
  });

  it("count in their address's most: past it a session's first call is refused, saying when there is room", async () => {
    const sessions = await Promise.all(['10.0.0.7', '10.0.0.7', '10.0.0.7'].map(session2025));
    const [first, second, third] = sessions as [Session2025, Session2025, Session2025];
    expect(await first.add()).toEqual({ error: false, text: 'at 1' });
    expect(await second.add()).toEqual({ error: false, text: 'at 1' });
    expect(await third.add()).toEqual({
      error: true,
      text: expect.stringContaining(
        'this client address already holds 2 counters, its most (2): all of them for its sessions. A session keeps its counter until the session ends (its client closes it, or it goes unused), and there is room again then',
      ),
    });
    await first.end();
    expect(await third.add()).toEqual({ error: false, text: 'at 1' });
  });

  it("count against each one's client address: a new one takes back the idle handle of an address holding two more", async () => {
    const first = await session2025('10.0.0.1');
    const second = await session2025('10.0.0.2');
    expect(await first.add()).toEqual({ error: false, text: 'at 1' });
    expect(await second.add()).toEqual({ error: false, text: 'at 1' });
    const older = await add('10.0.0.9');
    await add('10.0.0.9');
    // At the most (4): the new session's address holds none, 10.0.0.9 two.
    const third = await session2025('10.0.0.3');
    expect(await third.add()).toEqual({ error: false, text: 'at 1' });
    expect(await add('10.0.0.9', { counter_id: older.id })).toMatchObject({
      error: true,
      text: expect.stringContaining('it was closed to make room for another caller'),
    });
  });
});
