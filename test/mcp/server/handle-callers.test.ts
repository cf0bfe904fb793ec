/**
 * Handles (SEP-2567) served over HTTP to 2026-07-28 callers without authorization: each
 * client address has its own most of handles (`maxPerCaller`), so one anonymous client
 * minting many handles ends its own idle ones, never another client's.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import { Inject, Injectable, Module, ToolApp } from 'agenttool/di';
import { type HttpListener, type McpToolServer, serveTools } from 'agenttool/mcp';
import { modern, post } from '../auth/helpers';

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
      handle: { argument: 'counter_id', holds: 'counter', maxPerCaller: 2 },
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
