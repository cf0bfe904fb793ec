/**
 * A running call whose request carries a progress token keeps its client waiting:
 * once it has sent no progress for `progressKeepaliveMs`, progress goes out with no text
 * and higher numbers, so a host that restarts its request timeout on progress (the SDK
 * client's `resetTimeoutOnProgress`) does not give up on a quiet call, or on one whose
 * text is past the budget. Regression: past 64 KiB of output, or for a quiet command,
 * nothing was sent and hosts cancelled long builds at their timeout.
 *
 * Each call below outlasts its client's timeout many times over: it ends once the
 * client has seen {@link BEATS} keepalives, or fails with the client's timeout.
 */
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import {
  Client,
  InMemoryTransport,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { newTool, ProgressInfo, Tool, toolFromInstance, type ToolContext } from 'agenttool';
import { McpToolServer, type McpServerOptions } from 'agenttool/mcp';
import { INITIALIZE } from '../../support/initialize';
import { deferred } from './helpers';
import { PipeClientTransport } from './manual-client';

/** The server's keepalive interval in these tests. */
const KEEPALIVE_MS = 20;
/** The client's request timeout, restarted by each progress notification. */
const CLIENT_TIMEOUT_MS = 1000;
/** Keepalives a call waits for before it returns: 60 × 20 ms outlasts the client's timeout. */
const BEATS = 60;

type Progress = { progress: number; total?: number | undefined; message?: string | undefined };

/** Collects a call's progress; `beats` resolves once `count` have come after the first `after`. */
function progressLog(after: number, count = BEATS) {
  const seen: Progress[] = [];
  const beats = deferred();
  return {
    seen,
    beats: beats.promise,
    onprogress: (progress: Progress) => {
      seen.push(progress);
      if (seen.length === after + count) beats.resolve();
    },
  };
}

const servers: McpToolServer[] = [];
const clients: Client[] = [];

function serve(tool: Tool, options: McpServerOptions = {}): McpToolServer {
  const server = new McpToolServer([tool], { progressKeepaliveMs: KEEPALIVE_MS, ...options });
  servers.push(server);
  return server;
}

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function client(era: 'legacy' | 'modern'): Client {
  const made = new Client(
    { name: 'host', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  clients.push(made);
  return made;
}

/** A 2025-era client over the in-memory pair. */
async function legacyInMemory(server: McpToolServer): Promise<Client> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const c = client('legacy');
  await c.connect(clientEnd);
  return c;
}

/** A 2026-07-28 client over the server's HTTP handler in process (a streamed answer). */
async function modernOverHttp(server: McpToolServer): Promise<Client> {
  const handler = server.handler();
  const c = client('modern');
  await c.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return c;
}

/** A 2026-07-28 client over a stdio pipe pair, in process. */
async function modernOverStdio(server: McpToolServer): Promise<Client> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  await server.serveStdio({ stdin, stdout });
  const c = client('modern');
  await c.connect(new PipeClientTransport(stdin, stdout));
  return c;
}

const waiting = { timeout: CLIENT_TIMEOUT_MS, resetTimeoutOnProgress: true } as const;

/** Progress values strictly increase, as MCP requires. */
function expectIncreasing(seen: readonly Progress[]): void {
  for (let i = 1; i < seen.length; i++) {
    expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  }
}

@Tool({ name: 'copy', description: 'Copies ten files; the fourth takes long' })
class Copy {
  constructor(private readonly fourthCopied: Promise<void>) {}
  async execute(_args: object, ctx: ToolContext): Promise<string> {
    ctx.progress(new ProgressInfo(3, 10, 'copying the fourth file'));
    await this.fourthCopied;
    return 'copied';
  }
}

describe.each([
  ['2025 era, in memory', legacyInMemory],
  ['2026-07-28, over HTTP (a streamed answer)', modernOverHttp],
  ['2026-07-28, over stdio', modernOverStdio],
])('%s', (_how, connect) => {
  test("a decorated tool's own numbers are kept, nudged on, with no text, past the client's timeout", async () => {
    const log = progressLog(1);
    const c = await connect(serve(toolFromInstance(new Copy(log.beats))));
    const result = await c.callTool(
      { name: 'copy', arguments: {} },
      {
        ...waiting,
        onprogress: log.onprogress,
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'copied' }]);
    expect(log.seen[0]).toEqual({ progress: 3, total: 10, message: 'copying the fourth file' });
    const beats = log.seen.slice(1);
    expect(beats.length).toBeGreaterThanOrEqual(BEATS);
    for (const beat of beats) {
      expect(beat).toEqual({ progress: expect.any(Number) as number, total: 10 });
      // Where the tool left it, to any display: the numbers only have to increase.
      expect(beat.progress).toBeLessThan(3.001);
    }
    expectIncreasing(log.seen);
  });

  test('a quiet tool that reports nothing is counted 1, 2, 3, …', async () => {
    const log = progressLog(0);
    const quiet = newTool({
      name: 'quiet',
      description: 'Works without a word',
      execute: async () => {
        await log.beats;
        return { output: 'done' };
      },
    });
    const c = await connect(serve(quiet));
    const result = await c.callTool(
      { name: 'quiet', arguments: {} },
      {
        ...waiting,
        onprogress: log.onprogress,
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(log.seen.slice(0, 3)).toEqual([{ progress: 1 }, { progress: 2 }, { progress: 3 }]);
    expectIncreasing(log.seen);
  });
});

test('past the text budget, a flood of output sends beats only, one an interval', async () => {
  const log = progressLog(2);
  let flooded = 0;
  const chatty = newTool({
    name: 'chatty',
    description: 'Prints past the budget, then keeps printing',
    execute: async (_call, ctx) => {
      ctx.progress('a'.repeat(1000));
      ctx.progress('b'.repeat(1000));
      let done = false;
      void log.beats.then(() => (done = true));
      while (!done) {
        ctx.progress('tick\n');
        flooded++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { output: 'done' };
    },
  });
  const c = await modernOverHttp(serve(chatty, { progressBudgetBytes: 1500 }));
  const result = await c.callTool(
    { name: 'chatty', arguments: {} },
    {
      ...waiting,
      onprogress: log.onprogress,
    },
  );
  expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
  expect(log.seen[0]).toEqual({ progress: 1, message: 'a'.repeat(1000) });
  expect(log.seen[1]).toEqual({ progress: 2, message: `${'b'.repeat(500)}\n[output truncated]` });
  // The flood's ticks went nowhere: what came after the budget was beats, without text.
  for (const beat of log.seen.slice(2)) expect(beat).toEqual({ progress: expect.any(Number) });
  expect(flooded).toBeGreaterThan(10 * log.seen.length);
  expectIncreasing(log.seen);
});

test.each([
  ['by the request that answered it', true],
  // The SDK's client sends a progress token only with a request that has onprogress.
  ['by the request that answered it, when the first asked for no progress', false],
])('2026-07-28: a call that asked a question is kept alive %s', async (_name, firstFollows) => {
  const log = progressLog(0);
  const asks = newTool({
    name: 'deploy',
    description: 'Asks, then deploys for long',
    execute: async (_call, ctx) => {
      const answer = await ctx.ask({
        message: 'deploy?',
        schema: { type: 'object', properties: { go: { type: 'boolean' } } },
      });
      await log.beats;
      return { output: answer.action };
    },
  });
  const c = await modernOverHttp(serve(asks));
  const call = (params: Record<string, unknown>, follows: boolean) =>
    c.request(
      { method: 'tools/call', params: { name: 'deploy', arguments: {}, ...params } },
      follows
        ? { allowInputRequired: true, ...waiting, onprogress: log.onprogress }
        : { allowInputRequired: true },
    );
  const first = await call({}, firstFollows);
  expect(first.resultType).toBe('input_required');
  const second = await call(
    {
      inputResponses: { elicit_1: { action: 'accept', content: { go: true } } },
      requestState: first.requestState,
    },
    true,
  );
  expect(second.content).toEqual([{ type: 'text', text: 'accept' }]);
  expect(log.seen.length).toBeGreaterThanOrEqual(BEATS);
  expectIncreasing(log.seen);
});

describe('what goes over the wire (2025 era, raw JSON-RPC)', () => {
  /** A raw client over the in-memory pair: every message it gets, and a way to send. */
  async function raw(server: McpToolServer) {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    const answers = new Map<number, ReturnType<typeof deferred<JSONRPCMessage>>>();
    const answer = (id: number) => {
      let waiter = answers.get(id);
      if (waiter === undefined) answers.set(id, (waiter = deferred<JSONRPCMessage>()));
      return waiter;
    };
    clientEnd.onmessage = (message) => {
      received.push(message);
      if ('id' in message && !('method' in message)) answer(Number(message.id)).resolve(message);
    };
    await server.connect(serverEnd);
    await clientEnd.start();
    const send = async (message: Record<string, unknown>) =>
      clientEnd.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
    await send(INITIALIZE);
    await answer(1).promise;
    await send({ method: 'notifications/initialized' });
    const progress = () =>
      received.filter((m) => 'method' in m && m.method === 'notifications/progress');
    return { send, answer: (id: number) => answer(id).promise, progress };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('a call whose request carries no progress token is sent no progress', async () => {
    const quiet = newTool({
      name: 'quiet',
      description: 'Works without a word for ten intervals',
      execute: async () => {
        await sleep(10 * KEEPALIVE_MS);
        return { output: 'done' };
      },
    });
    const wire = await raw(serve(quiet));
    await wire.send({ id: 2, method: 'tools/call', params: { name: 'quiet', arguments: {} } });
    await wire.answer(2);
    expect(wire.progress()).toEqual([]);
  });

  test('a cancelled call is sent no more, though its tool runs on', async () => {
    const release = deferred();
    const stubborn = newTool({
      name: 'stubborn',
      description: 'Ignores its signal',
      execute: async () => {
        await release.promise;
        return { output: 'done' };
      },
    });
    const wire = await raw(serve(stubborn));
    await wire.send({
      id: 2,
      method: 'tools/call',
      params: { name: 'stubborn', arguments: {}, _meta: { progressToken: 'p' } },
    });
    try {
      while (wire.progress().length === 0) await sleep(KEEPALIVE_MS);
      await wire.send({ method: 'notifications/cancelled', params: { requestId: 2 } });
      // Messages are handled in order: once the ping is answered, the cancel was seen.
      await wire.send({ id: 3, method: 'ping' });
      await wire.answer(3);
      const seen = wire.progress().length;
      await sleep(10 * KEEPALIVE_MS);
      expect(wire.progress()).toHaveLength(seen);
    } finally {
      release.resolve();
    }
  });
});

test('progressKeepaliveMs is a whole number of milliseconds, 0 for none', () => {
  const quiet = newTool({ name: 'quiet', execute: () => ({ output: '' }) });
  expect(() => new McpToolServer([quiet], { progressKeepaliveMs: -1 })).toThrow(
    'mcp: progressKeepaliveMs must be a whole number of milliseconds from 0 (no keepalive) to 2147483647, got -1; the default is 15000',
  );
  expect(() => new McpToolServer([quiet], { progressKeepaliveMs: 2 ** 31 })).toThrow(
    'progressKeepaliveMs must be',
  );
  expect(() => new McpToolServer([quiet], { progressKeepaliveMs: 0 })).not.toThrow();
});
