/**
 * One caller cannot run more than its share of tool calls at once (`maxCallsPerSubject`),
 * whether or not it still holds the connections of their requests: a 2025-era call that
 * goes on after its client dropped the connection (`resumable`), a call in a JSON-RPC
 * batch, a 2026-07-28 call running or waiting for its client's answers. Past its share a
 * new call is refused (429 naming the limit, or the same words as a JSON-RPC error inside
 * a batch); the share comes back when a call ends, however it ends; other callers are not
 * affected.
 */
import { newTool, type Result, type Tool } from 'agenttool';
import { type HttpListener, McpToolServer } from 'agenttool/mcp';
import { type Answer, INITIALIZE, modern, post, send } from '../auth/helpers';
import { TaskClient } from '../tasks/helpers';

/** `X-Forwarded-For` naming a client, as a proxy in front writes it. */
const from = (address: string) => ({ 'x-forwarded-for': address });
/** A call of the slow tool from `address`, as the proxy in front names it. */
const callSlow = (url: string, address: string) =>
  post(url, modern('tools/call', { name: 'slow', arguments: {} }), from(address));

const SHARE = 2;

/** What a refusal past the share of `who` says. */
const refusalOf = (who: string) =>
  `Too Many Requests: the ${who} holds its share of ${SHARE} calls in flight (maxCallsPerSubject); wait for one of them to end, or cancel one, first`;

/** A tool whose calls run until the test ends them or their signal aborts. */
class SlowCalls {
  readonly #open = new Set<() => void>();
  #started = 0;
  #ended = 0;
  readonly #waiters: { kind: 'started' | 'ended'; count: number; resolve: () => void }[] = [];
  readonly tool: Tool;

  constructor(name = 'slow', taskSupport: 'never' | 'required' = 'never') {
    this.tool = newTool({
      name,
      description: 'Runs until the test ends it',
      taskSupport,
      execute: (_call, ctx) =>
        new Promise<Result>((resolve, reject) => {
          let over = false;
          const end = (outcome: () => void) => (): void => {
            if (over) return;
            over = true;
            this.#open.delete(done);
            this.#ended++;
            outcome();
            this.#wake();
          };
          const done = end(() => resolve({ output: 'done' }));
          this.#open.add(done);
          ctx.signal.addEventListener(
            'abort',
            end(() => reject(new Error('stopped'))),
          );
          this.#started++;
          this.#wake();
        }),
    });
  }

  /** Resolves once `count` calls have started (or ended) in all, and what follows has run. */
  async until(kind: 'started' | 'ended', count: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#waiters.push({ kind, count, resolve });
      this.#wake();
    });
    // What the end of a call sets off (its answer, its share given back) runs first.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Ends every running call with its result. */
  endAll(): void {
    for (const end of [...this.#open]) end();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) {
      const reached = waiter.kind === 'started' ? this.#started : this.#ended;
      if (reached < waiter.count) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/** The JSON-RPC messages of an answer: its JSON body, or its SSE stream's `data:` lines. */
function messagesOf(answer: Answer): Record<string, unknown>[] {
  if (answer.headers.get('content-type')?.startsWith('text/event-stream') !== true) {
    return [JSON.parse(answer.text) as Record<string, unknown>];
  }
  return answer.text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** The result of a call that ended with `done`. */
function expectDone(answer: Answer): void {
  expect(messagesOf(answer).at(-1)?.result).toMatchObject({ content: [{ text: 'done' }] });
}

function expectRefused(answer: Answer, who: string): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('retry-after')).toBe('5');
  expect((answer.message?.error as { message: string }).message).toBe(refusalOf(who));
}

const LEGACY = '2025-11-25';

/** A 2025-era session of the client `address` at `url`: its calls and its end. */
async function legacySession(url: string, address: string) {
  const opened = await post(url, INITIALIZE, from(address));
  expect(opened.status).toBe(200);
  const id = opened.headers.get('mcp-session-id')!;
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': LEGACY, ...from(address) };
  const initialized = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    headers,
  );
  expect(initialized.status).toBe(202);
  let next = 10;
  const dropped: AbortController[] = [];
  return {
    headers,
    /** A call of `name` answered whole. */
    call: (name: string, id = next++) =>
      post(
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
        headers,
      ),
    /**
     * Starts a call of `slow` and drops its connection once its stream has begun: the
     * call goes on, holding no connection of its client.
     */
    async detached(): Promise<void> {
      const stop = new AbortController();
      dropped.push(stop);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: next++,
          method: 'tools/call',
          params: { name: 'slow', arguments: {} },
        }),
        signal: stop.signal,
      });
      expect(response.status).toBe(200);
      // The priming event of a resumable stream: the call is under way.
      await response.body!.getReader().read();
      stop.abort();
    },
    /** Cancels the call `id` (`notifications/cancelled`). */
    cancel: (id: number) =>
      post(
        url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } },
        headers,
      ),
    end: () => send(url, { method: 'DELETE', headers }),
  };
}

describe('2025 era: calls in flight per caller', () => {
  let slow: SlowCalls;
  let server: McpToolServer;
  let listener: HttpListener;

  beforeEach(async () => {
    slow = new SlowCalls();
    server = new McpToolServer([slow.tool]);
    listener = await server.listenHttp({
      resumable: true,
      trustProxy: true,
      maxCallsPerSubject: SHARE,
    });
  });

  afterEach(async () => {
    slow.endAll();
    await server.close();
  });

  test('calls that go on after their connections dropped hold the share: the next is refused 429, another client is not; once they end the client calls again', async () => {
    const flood = await legacySession(listener.url, '10.0.0.1');
    await flood.detached();
    await flood.detached();
    await slow.until('started', 2);
    // Neither on the session that holds them, nor on a new one of the same client.
    expectRefused(await flood.call('slow'), 'client address 10.0.0.1');
    const again = await legacySession(listener.url, '10.0.0.1');
    expectRefused(await again.call('slow'), 'client address 10.0.0.1');

    const other = await legacySession(listener.url, '10.0.0.2');
    const running = other.call('slow');
    await slow.until('started', 3);

    slow.endAll();
    await slow.until('ended', 3);
    expectDone(await running);
    // Each ended call gave its share back once: the client holds its whole share again.
    await again.detached();
    await again.detached();
    await slow.until('started', 5);
    expectRefused(await again.call('slow'), 'client address 10.0.0.1');
  });

  test('a cancelled call gives its share back', async () => {
    const flood = await legacySession(listener.url, '10.0.0.1');
    // A cancelled request is not answered: its client lets its stream go.
    const stop = new AbortController();
    void fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...flood.headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 101,
        method: 'tools/call',
        params: { name: 'slow', arguments: {} },
      }),
      signal: stop.signal,
    }).catch(() => undefined);
    const second = flood.call('slow', 102);
    await slow.until('started', 2);
    expectRefused(await flood.call('slow'), 'client address 10.0.0.1');
    expect((await flood.cancel(101)).status).toBe(202);
    await slow.until('ended', 1);
    stop.abort();
    const third = flood.call('slow', 103);
    await slow.until('started', 3);
    slow.endAll();
    expectDone(await second);
    expectDone(await third);
  });

  test("the end of a session gives its calls' shares back", async () => {
    const flood = await legacySession(listener.url, '10.0.0.1');
    await flood.detached();
    await flood.detached();
    await slow.until('started', 2);
    expectRefused(await flood.call('slow'), 'client address 10.0.0.1');
    expect((await flood.end()).status).toBe(200);
    await slow.until('ended', 2);
    // Given back once each: the client holds its whole share again, and no more.
    const again = await legacySession(listener.url, '10.0.0.1');
    await again.detached();
    await again.detached();
    await slow.until('started', 4);
    expectRefused(await again.call('slow'), 'client address 10.0.0.1');
  });

  test('the calls of one batch past the share are refused one by one, with the words of the 429', async () => {
    const flood = await legacySession(listener.url, '10.0.0.1');
    const batch = [1, 2, 3].map((id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow', arguments: {} },
    }));
    const response = fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...flood.headers,
      },
      body: JSON.stringify(batch),
    });
    await slow.until('started', 2);
    slow.endAll();
    const text = await (await response).text();
    const messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { id: number; error?: unknown });
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    expect(messages.filter((m) => m.error !== undefined)).toEqual([
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32000, message: refusalOf('client address 10.0.0.1') },
      },
    ]);
  });
});

describe('2026-07-28: calls in flight per caller', () => {
  const elicitation = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
  const asks = newTool({
    name: 'asks',
    description: 'Asks before it answers',
    execute: async (_call, ctx) => ({
      output: `answered ${(await ctx.ask({ message: 'Go?' })).action}`,
    }),
  });
  let slow: SlowCalls;
  let server: McpToolServer;
  let listener: HttpListener;

  beforeEach(async () => {
    slow = new SlowCalls();
    server = new McpToolServer([slow.tool, asks]);
    listener = await server.listenHttp({ trustProxy: true, maxCallsPerSubject: SHARE });
  });

  afterEach(async () => {
    slow.endAll();
    await server.close();
  });

  const ask = (address: string) =>
    post(
      listener.url,
      modern('tools/call', { name: 'asks', arguments: {} }, elicitation),
      from(address),
    );

  test('calls waiting for their answers hold the share; answering one gives it back', async () => {
    const first = await ask('10.0.0.1');
    await ask('10.0.0.1');
    expect(first.message?.result).toMatchObject({ resultType: 'input_required' });
    expectRefused(await ask('10.0.0.1'), 'client address 10.0.0.1');
    expect((await ask('10.0.0.2')).message?.result).toMatchObject({
      resultType: 'input_required',
    });
    const state = (first.message?.result as { requestState: string }).requestState;
    // Answers are no new call: taken while the caller holds its share.
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
    // Given back once: two are held again.
    expectRefused(await ask('10.0.0.1'), 'client address 10.0.0.1');
  });

  test('running calls hold the share until their requests go: a dropped one gives it back', async () => {
    const stops: AbortController[] = [];
    const start = (address: string) => {
      const stop = new AbortController();
      stops.push(stop);
      const body = modern('tools/call', { name: 'slow', arguments: {} });
      return fetch(listener.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'slow',
          ...from(address),
        },
        body: JSON.stringify(body),
        signal: stop.signal,
      }).catch(() => undefined);
    };
    void start('10.0.0.1');
    void start('10.0.0.1');
    await slow.until('started', 2);
    expectRefused(await callSlow(listener.url, '10.0.0.1'), 'client address 10.0.0.1');
    void start('10.0.0.2');
    await slow.until('started', 3);
    stops[0]!.abort();
    await slow.until('ended', 1);
    void start('10.0.0.1');
    await slow.until('started', 4);
    // Given back once: two are held again.
    expectRefused(await callSlow(listener.url, '10.0.0.1'), 'client address 10.0.0.1');
    for (const stop of stops) stop.abort();
  });

  test('tasks do not count: they are bounded by tasks.maxTasksPerSubject; the calls that make them count until they are made', async () => {
    const jobs = new SlowCalls('job', 'required');
    const own = new McpToolServer([slow.tool, jobs.tool]);
    const url = (await own.listenHttp({ trustProxy: true, maxCallsPerSubject: SHARE })).url;
    const client = new TaskClient(url, { headers: from('10.0.0.1') });
    const call = () => callSlow(url, '10.0.0.1');
    try {
      for (let i = 0; i < SHARE + 1; i++) {
        expect(await client.call('job')).toMatchObject({ resultType: 'task' });
      }
      await jobs.until('started', SHARE + 1);
      const running = [call(), call()];
      await slow.until('started', 2);
      expectRefused(await call(), 'client address 10.0.0.1');
      slow.endAll();
      for (const answer of await Promise.all(running)) expectDone(answer);
    } finally {
      jobs.endAll();
      await own.close();
    }
  });

  test('a call that becomes a task once its first questions are answered gives its share back then', async () => {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const plan = newTool({
      name: 'plan',
      description: 'Asks first, then works on as a task',
      taskSupport: { mode: 'required', questionsFirst: true },
      execute: async (_call, ctx) => {
        await ctx.ask({ message: 'Go?' });
        await finished;
        return { output: 'planned' };
      },
    });
    const own = new McpToolServer([slow.tool, plan]);
    const url = (await own.listenHttp({ trustProxy: true, maxCallsPerSubject: SHARE })).url;
    const client = new TaskClient(url, { headers: from('10.0.0.1') });
    const call = () => callSlow(url, '10.0.0.1');
    try {
      const asked = await client.call('plan');
      expect(asked.resultType).toBe('input_required');
      const made = await client.result('tools/call', {
        name: 'plan',
        arguments: {},
        requestState: asked.requestState,
        inputResponses: { elicit_1: { action: 'decline' } },
      });
      expect(made.resultType).toBe('task');
      // Its tool runs on as a task: the caller's whole share is free for calls.
      const running = [call(), call()];
      await slow.until('started', 2);
      expectRefused(await call(), 'client address 10.0.0.1');
      slow.endAll();
      for (const answer of await Promise.all(running)) expectDone(answer);
    } finally {
      finish();
      await own.close();
    }
  });
});

describe('with authorization, calls in flight are counted by subject', () => {
  test('one subject holds its share; another subject still calls', async () => {
    const slow = new SlowCalls();
    const server = new McpToolServer([slow.tool]);
    const listener = await server.listenHttp({
      maxCallsPerSubject: SHARE,
      auth: {
        authorizationServers: ['http://127.0.0.1:9/'],
        verifyToken: (token) => ({ subject: token, clientId: 'app', scopes: [] }),
      },
    });
    const as = (subject: string) => ({ authorization: `Bearer ${subject}` });
    const call = (subject: string) =>
      post(listener.url, modern('tools/call', { name: 'slow', arguments: {} }), as(subject));
    try {
      const running = [call('ada'), call('ada')];
      await slow.until('started', 2);
      expectRefused(await call('ada'), 'subject "ada"');
      running.push(call('bob'));
      await slow.until('started', 3);
      slow.endAll();
      for (const answer of await Promise.all(running)) {
        expectDone(answer);
      }
    } finally {
      slow.endAll();
      await server.close();
    }
  });
});

describe('maxCallsPerSubject', () => {
  test.each([0, -1, 1.5, Number.NaN, '10'])('%p is refused, naming the option', async (value) => {
    const server = new McpToolServer([]);
    try {
      await expect(server.listenHttp({ maxCallsPerSubject: value as number })).rejects.toThrow(
        `mcp: maxCallsPerSubject must be a whole number, at least 1, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      );
      expect(() => server.handler({ maxCallsPerSubject: value as number })).toThrow(
        'mcp: maxCallsPerSubject must be a whole number',
      );
    } finally {
      await server.close();
    }
  });
});

describe('maxCalls: the calls in flight of all callers together', () => {
  /** What a refusal past the endpoint's limit of `limit` calls says. */
  const overLimitOf = (limit: number) =>
    `Service unavailable: the server holds its limit of ${limit} calls in flight (maxCalls); try again later`;

  function expectOverLimit(answer: Answer, limit: number): void {
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect((answer.message?.error as { message: string }).message).toBe(overLimitOf(limit));
  }

  let slow: SlowCalls;
  let server: McpToolServer;

  beforeEach(() => {
    slow = new SlowCalls();
    server = new McpToolServer([slow.tool]);
  });

  afterEach(async () => {
    slow.endAll();
    await server.close();
  });

  test('callers under their shares are refused 503 once the others hold the limit, in both eras; each ended call gives its place back once', async () => {
    const { url } = await server.listenHttp({
      resumable: true,
      trustProxy: true,
      maxCalls: 3,
      maxCallsPerSubject: SHARE,
    });
    const first = await legacySession(url, '10.0.0.1');
    const second = await legacySession(url, '10.0.0.2');
    await first.detached();
    await first.detached();
    await second.detached();
    await slow.until('started', 3);
    // The second client holds one call of its share of two, the third none.
    expectOverLimit(await second.call('slow'), 3);
    const third = await legacySession(url, '10.0.0.3');
    expectOverLimit(await third.call('slow'), 3);
    expectOverLimit(await callSlow(url, '10.0.0.4'), 3);

    slow.endAll();
    await slow.until('ended', 3);
    // Given back once each: three calls run again, of any callers, and no fourth.
    await third.detached();
    await second.detached();
    await first.detached();
    await slow.until('started', 6);
    const fourth = await legacySession(url, '10.0.0.5');
    expectOverLimit(await fourth.call('slow'), 3);
  });

  test('the calls of one batch past the limit are refused one by one, with the words of the 503', async () => {
    const { url } = await server.listenHttp({
      trustProxy: true,
      maxCalls: 2,
      maxCallsPerSubject: 3,
    });
    const session = await legacySession(url, '10.0.0.1');
    const response = fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...session.headers,
      },
      body: JSON.stringify(
        [1, 2, 3].map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'slow', arguments: {} },
        })),
      ),
    });
    await slow.until('started', 2);
    slow.endAll();
    const messages = (await (await response).text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { id: number; error?: unknown });
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    expect(messages.filter((m) => m.error !== undefined)).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32000, message: overLimitOf(2) } },
    ]);
  });

  test("one caller's share is a tenth of maxCalls by default", async () => {
    const { url } = await server.listenHttp({ trustProxy: true, maxCalls: 10 * SHARE });
    const call = () => callSlow(url, '10.0.0.1');
    const running = [call(), call()];
    await slow.until('started', 2);
    expectRefused(await call(), 'client address 10.0.0.1');
    slow.endAll();
    for (const answer of await Promise.all(running)) expectDone(answer);
  });

  test.each([0, -1, 1.5, Number.NaN, '10'])('%p is refused, naming the option', async (value) => {
    await expect(server.listenHttp({ maxCalls: value as number })).rejects.toThrow(
      `mcp: maxCalls must be a whole number, at least 1, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
    expect(() => server.handler({ maxCalls: value as number })).toThrow(
      'mcp: maxCalls must be a whole number',
    );
  });
});

describe('prompts/get and resources/read count among the calls in flight', () => {
  /** The reads and gets under way, held until the test lets them go. */
  let started = 0;
  let reached: { count: number; resolve: () => void } | undefined;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const held = async (): Promise<void> => {
    started++;
    if (reached !== undefined && started >= reached.count) reached.resolve();
    await gate;
  };
  const startedAll = (count: number) =>
    started >= count
      ? Promise.resolve()
      : new Promise<void>((resolve) => (reached = { count, resolve }));

  let server: McpToolServer;
  let listener: HttpListener;

  beforeEach(async () => {
    started = 0;
    reached = undefined;
    gate = new Promise<void>((resolve) => (release = resolve));
    server = new McpToolServer([new SlowCalls().tool], {
      resources: [
        {
          uriTemplate: 'items://{id}',
          name: 'items',
          read: async (vars: Readonly<Record<string, string>>) => {
            if (vars.id === 'slow') await held();
            return `item ${vars.id}`;
          },
        },
      ],
      prompts: [
        {
          name: 'slow',
          get: async () => {
            await held();
            return 'prompt';
          },
        },
      ],
    });
    listener = await server.listenHttp({ trustProxy: true, maxCallsPerSubject: SHARE });
  });

  afterEach(async () => {
    release();
    await server.close();
  });

  const read = (address: string, id: string, headers: Record<string, string> = {}) =>
    post(listener.url, modern('resources/read', { uri: `items://${id}` }), {
      'mcp-name': `items://${id}`,
      ...from(address),
      ...headers,
    });

  test('2026-07-28: reads and gets past the share are refused 429; another client still reads; the share comes back', async () => {
    const running = [
      read('10.0.0.1', 'slow'),
      post(listener.url, modern('prompts/get', { name: 'slow' }), from('10.0.0.1')),
    ];
    await startedAll(2);
    expectRefused(await read('10.0.0.1', 'fast'), 'client address 10.0.0.1');
    expectRefused(
      await post(listener.url, modern('prompts/get', { name: 'slow' }), from('10.0.0.1')),
      'client address 10.0.0.1',
    );
    expectRefused(await callSlow(listener.url, '10.0.0.1'), 'client address 10.0.0.1');
    const other = await read('10.0.0.2', 'fast');
    expect(other.message?.result).toMatchObject({ contents: [{ text: 'item fast' }] });
    release();
    const [slowRead, slowGet] = await Promise.all(running);
    expect(slowRead!.message?.result).toMatchObject({ contents: [{ text: 'item slow' }] });
    expect(slowGet!.message?.result).toMatchObject({ messages: [{ content: { text: 'prompt' } }] });
    const again = await read('10.0.0.1', 'fast');
    expect(again.message?.result).toMatchObject({ contents: [{ text: 'item fast' }] });
  });

  test('2025 era: reads past the share are refused 429', async () => {
    const session = await legacySession(listener.url, '10.0.0.3');
    const legacyRead = (id: string, n: number) =>
      post(
        listener.url,
        { jsonrpc: '2.0', id: n, method: 'resources/read', params: { uri: `items://${id}` } },
        session.headers,
      );
    const running = [legacyRead('slow', 1), legacyRead('slow', 2)];
    await startedAll(2);
    expectRefused(await legacyRead('fast', 3), 'client address 10.0.0.3');
    release();
    for (const answer of await Promise.all(running)) {
      expect(answer.message?.result).toMatchObject({ contents: [{ text: 'item slow' }] });
    }
    const again = await legacyRead('fast', 4);
    expect(again.message?.result).toMatchObject({ contents: [{ text: 'item fast' }] });
  });
});
