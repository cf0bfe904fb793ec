/**
 * A request its client cancels is not answered (the receiver SHOULD NOT send a response
 * to it), so the server ends the SSE response stream of a cancelled 2025-era call once
 * the call has settled: the SDK ends a POST's stream only after answering each of its
 * requests, and left this one open until the client let it go (the SDK's own client
 * reads on after a cancel), holding a socket on both sides and the server's close for
 * its whole grace. The clients here keep reading, as that one does. Other streams are
 * left alone: another call in flight, another call of the same batch. In the 2026-07-28
 * era the client cancels a call by closing its stream, so no stream is left to end.
 */
import { newTool, type Result } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';
import { INITIALIZE, modern } from '../auth/helpers';

/** The server's `closeGraceMs`, and how long a test waits for what should come at once. */
const GRACE = 3000;

const LEGACY = '2025-11-25';

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** One call of `slow`: started, ended (its result, or its signal aborted), and its end. */
interface SlowCall {
  readonly started: Deferred;
  readonly ended: Deferred;
  finish?: () => void;
}

/** A tool whose call `n` runs until the test finishes it or its signal aborts. */
class SlowCalls {
  readonly #calls = new Map<number, SlowCall>();

  readonly tool = newTool({
    name: 'slow',
    description: 'Runs until the test finishes it',
    parameters: {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    },
    execute: (call, ctx) =>
      new Promise<Result>((resolve, reject) => {
        const n = (JSON.parse(call.args) as { n: number }).n;
        const entry = this.of(n);
        entry.finish = () => {
          entry.ended.resolve();
          resolve({ output: `done ${n}` });
        };
        ctx.signal.addEventListener('abort', () => {
          entry.ended.resolve();
          reject(new Error('stopped'));
        });
        entry.started.resolve();
      }),
  });

  of(n: number): SlowCall {
    let entry = this.#calls.get(n);
    if (entry === undefined) {
      entry = { started: deferred(), ended: deferred() };
      this.#calls.set(n, entry);
    }
    return entry;
  }

  finishAll(): void {
    for (const entry of this.#calls.values()) entry.finish?.();
  }
}

/** An SSE response read to its end, as a client that does not let it go reads it. */
class Reading {
  #text = '';
  #done = false;
  readonly #waiters: (() => void)[] = [];
  /** Resolves when the body ends (the server ended it), or fails to read. */
  readonly ended: Promise<void>;

  constructor(readonly response: Response) {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    this.ended = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          this.#text += decoder.decode(value, { stream: true });
          this.#wake();
        }
      } finally {
        this.#done = true;
        this.#wake();
      }
    })();
  }

  /** The JSON-RPC messages read so far (the `data:` lines). */
  messages(): Record<string, unknown>[] {
    return this.#text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  }

  /** The ids of the SSE events read so far. */
  eventIds(): string[] {
    return this.#text
      .split('\n')
      .filter((line) => line.startsWith('id: '))
      .map((line) => line.slice(4));
  }

  /** Resolves once the answer to `id` has been read. */
  async answerOf(id: number): Promise<Record<string, unknown>> {
    for (;;) {
      const answer = this.messages().find((message) => message.id === id);
      if (answer !== undefined) return answer;
      if (this.#done) throw new Error(`the stream ended without the answer to ${id}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

/** Timers the tests race, cleared after each. */
const timers = new Set<NodeJS.Timeout>();

/** Resolves with 'timer' after `ms`. */
function timer(ms: number): Promise<'timer'> {
  return new Promise((resolve) => {
    const handle = setTimeout(() => resolve('timer'), ms);
    timers.add(handle);
  });
}

/** 'ended' when `reading` ends before a timer of the grace fires, set now. */
function endsFirst(reading: Reading): Promise<'ended' | 'timer'> {
  return Promise.race([reading.ended.then(() => 'ended' as const), timer(GRACE)]);
}

const sse = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A 2025-era session opened with raw requests. */
async function legacySession(url: string) {
  const opened = await fetch(url, {
    method: 'POST',
    headers: sse,
    body: JSON.stringify(INITIALIZE),
  });
  expect(opened.status).toBe(200);
  await opened.text();
  const headers = {
    ...sse,
    'mcp-session-id': opened.headers.get('mcp-session-id')!,
    'mcp-protocol-version': LEGACY,
  };
  const post = (body: unknown) =>
    fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(initialized.status).toBe(202);
  const callOf = (n: number) => ({
    jsonrpc: '2.0',
    id: n,
    method: 'tools/call',
    params: { name: 'slow', arguments: { n } },
  });
  return {
    headers,
    /** POSTs calls of `slow` (a batch when there are several) and reads their stream. */
    async call(...ns: number[]): Promise<Reading> {
      const response = await post(ns.length === 1 ? callOf(ns[0]!) : ns.map(callOf));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      return new Reading(response);
    },
    /** `notifications/cancelled` for the call `n`, as the SDK's client sends it. */
    async cancel(n: number): Promise<void> {
      const response = await post({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: n, reason: 'the user gave up' },
      });
      expect(response.status).toBe(202);
      await response.text();
    },
  };
}

let slow: SlowCalls;
let server: McpToolServer;

beforeEach(() => {
  slow = new SlowCalls();
  server = new McpToolServer([slow.tool], { closeGraceMs: GRACE });
});

afterEach(async () => {
  slow.finishAll();
  await server.close();
  for (const handle of timers) clearTimeout(handle);
  timers.clear();
});

describe.each([
  ['plain', false],
  ['resumable', true],
])('2025 era (%s): a cancelled call', (_mode, resumable) => {
  test('has its stream ended once it has settled, with no answer on it; another call in flight keeps its stream', async () => {
    const listener = await server.listenHttp({ resumable });
    const session = await legacySession(listener.url);
    const first = await session.call(1);
    const second = await session.call(2);
    await Promise.all([slow.of(1).started.promise, slow.of(2).started.promise]);

    await session.cancel(1);
    await slow.of(1).ended.promise;
    expect(await endsFirst(first)).toBe('ended');
    // A cancelled request is not answered.
    expect(first.messages()).toEqual([]);

    // The other call's stream is still there: its answer comes on it, and then it ends.
    slow.of(2).finish!();
    expect(await second.answerOf(2)).toMatchObject({
      result: { content: [{ type: 'text', text: 'done 2' }] },
    });
    expect(await endsFirst(second)).toBe('ended');
  });

  test("no longer holds up the server's close: it resolves before a timer of its grace set first", async () => {
    const listener = await server.listenHttp({ resumable });
    const session = await legacySession(listener.url);
    const first = await session.call(1);
    await slow.of(1).started.promise;
    await session.cancel(1);
    await slow.of(1).ended.promise;

    const grace = timer(GRACE);
    const closed = server.close().then(() => 'closed' as const);
    expect(await Promise.race([closed, grace])).toBe('closed');
    await first.ended;
    expect(first.messages()).toEqual([]);
  });

  test.each(['before', 'after'])(
    'in a batch, has the stream ended when the other call of the batch is answered (answered %s the cancelled one settles)',
    async (order) => {
      const listener = await server.listenHttp({ resumable });
      const session = await legacySession(listener.url);
      const batch = await session.call(1, 2);
      await Promise.all([slow.of(1).started.promise, slow.of(2).started.promise]);
      if (order === 'before') {
        slow.of(2).finish!();
        await batch.answerOf(2);
        await session.cancel(1);
      } else {
        await session.cancel(1);
        await slow.of(1).ended.promise;
        slow.of(2).finish!();
      }
      expect(await endsFirst(batch)).toBe('ended');
      expect(batch.messages()).toEqual([
        expect.objectContaining({ id: 2, result: expect.objectContaining({}) }),
      ]);
    },
  );
});

test('2025 era (resumable): resuming the stream of a call cancelled after its client let the stream go ends at once, as nothing more is due on it', async () => {
  const listener = await server.listenHttp({ resumable: true });
  const session = await legacySession(listener.url);
  const drop = new AbortController();
  const response = await fetch(listener.url, {
    method: 'POST',
    headers: session.headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow', arguments: { n: 1 } },
    }),
    signal: drop.signal,
  });
  // The priming event names the stream; the client lets it go, and the call goes on.
  const priming = new TextDecoder().decode((await response.body!.getReader().read()).value);
  const lastEventId = /^id: (.+)$/m.exec(priming)![1]!;
  drop.abort();
  await slow.of(1).started.promise;
  await session.cancel(1);
  await slow.of(1).ended.promise;

  const resumed = await fetch(listener.url, {
    headers: { ...session.headers, 'last-event-id': lastEventId },
  });
  expect(resumed.status).toBe(200);
  const reading = new Reading(resumed);
  expect(await endsFirst(reading)).toBe('ended');
  expect(reading.messages()).toEqual([]);
});

test('2026-07-28: the client cancels a call by closing its stream, which stops the call; the close then resolves before a timer of its grace set first', async () => {
  const listener = await server.listenHttp();
  const drop = new AbortController();
  const calling = fetch(listener.url, {
    method: 'POST',
    headers: {
      ...sse,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'slow',
    },
    body: JSON.stringify(modern('tools/call', { name: 'slow', arguments: { n: 1 } })),
    signal: drop.signal,
  }).catch(() => undefined);
  await slow.of(1).started.promise;
  drop.abort();
  await calling;
  await slow.of(1).ended.promise;

  const grace = timer(GRACE);
  const closed = server.close().then(() => 'closed' as const);
  expect(await Promise.race([closed, grace])).toBe('closed');
});
