/**
 * Several `agenttool serve --http --redis` instances behind HAProxy, sharing Redis (all
 * from Debian's packages, started here on loopback ports): calls of both protocol eras
 * through our client and the SDK's, a question answered on another instance than the
 * one running its call, tools/list_changed across instances, a stream resumed after a
 * dropped connection, an instance draining on SIGTERM, and one killed mid-run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Client,
  type FetchLike,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { createContext, outputText } from 'agenttool';
import { connectMcp, type RemoteTools, SESSION_META_KEY, SESSIONS_EXTENSION } from 'agenttool/mcp';
import { ensureBuilt, FIXTURES } from '../cli/helpers';
import {
  type Balancer,
  type Instance,
  rawCall,
  routedFetch,
  startBalancer,
  startInstance,
  startRedis,
  stopAll,
  textOf,
} from './cluster';

const SCALE_APP = join(FIXTURES, 'scale-app.module.js');
const NO_LONGER_WAITING =
  'mcpserver: tool "ask": the call these answers belong to is no longer waiting for them; call the tool again';

let redis: { url: string };
let a: Instance;
let b: Instance;
let c: Instance;
let lb: Balancer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  ensureBuilt();
  redis = await startRedis();
  const start = (name: string): Promise<Instance> =>
    startInstance(SCALE_APP, name, redis.url, ['--drain-grace', '20000']);
  [a, b, c] = await Promise.all([start('a'), start('b'), start('c')]);
  lb = await startBalancer([a, b, c]);
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  stopAll();
});

type Era = 'modern' | 'legacy';

async function ours(url: string, protocol: Era, fetch?: FetchLike): Promise<RemoteTools> {
  const remote = await connectMcp({
    transport: { url, ...(fetch === undefined ? {} : { fetch }) },
    protocol,
    elicitation: true,
  });
  closers.push(() => remote.close());
  return remote;
}

async function sdk(
  url: string,
  protocol: Era,
  options: { fetch?: FetchLike; sessions?: boolean } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'sdk', version: '1' },
    {
      capabilities: {
        elicitation: { form: {} },
        ...(options.sessions === true ? { extensions: { [SESSIONS_EXTENSION]: {} } } : {}),
      },
      versionNegotiation: { mode: protocol === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      options.fetch === undefined ? {} : { fetch: options.fetch },
    ),
  );
  closers.push(() => client.close());
  return client;
}

async function call(
  remote: RemoteTools,
  name: string,
  args: object = {},
  color = 'green',
): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const c = { id: 'c', args: JSON.stringify(args) };
  const ctx = createContext({
    call: c,
    elicitor: () => ({ action: 'accept', content: { color } }),
  });
  return outputText((await tool.execute(c, ctx)).output);
}

async function sdkCall(
  client: Client,
  name: string,
  args: object = {},
  timeout?: number,
): Promise<string> {
  return textOf(
    await client.callTool(
      { name, arguments: { ...args } },
      timeout === undefined ? {} : { timeout },
    ),
  );
}

describe('2026-07-28 clients', () => {
  test('plain calls spread across the instances behind the balancer, and each succeeds', async () => {
    const client = await sdk(lb.url, 'modern');
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(await sdkCall(client, 'whoami'));
    expect(new Set(answers)).toEqual(new Set(['a', 'b', 'c']));
  });

  test('a call carrying a session handle is served by the instance holding that session', async () => {
    const client = await sdk(a.url, 'modern', {
      sessions: true,
      fetch: routedFetch([a.url, b.url, b.url, c.url]),
    });
    const first = await rawCall(client, { name: 'visits', arguments: {} });
    const handle = (first._meta as Record<string, unknown>)[SESSION_META_KEY];
    expect(handle).toMatch(/^a\.[0-9a-f]{32}$/);
    const answers = [textOf(first)];
    for (let i = 0; i < 3; i++) {
      const next = await rawCall(client, {
        name: 'visits',
        arguments: {},
        _meta: { [SESSION_META_KEY]: handle },
      });
      answers.push(textOf(next));
    }
    expect(answers).toEqual(['visit 1 on a', 'visit 2 on a', 'visit 3 on a', 'visit 4 on a']);
    // Our client carries its handle on every call: one session, whichever instance receives.
    const remote = await ours(lb.url, 'modern');
    const visits: string[] = [];
    for (let i = 0; i < 4; i++) visits.push(await call(remote, 'visits'));
    const owner = visits[0]!.split(' on ')[1];
    expect(visits).toEqual([1, 2, 3, 4].map((n) => `visit ${n} on ${owner}`));
  });

  test('a call carrying a state handle as an argument is served by the instance that minted it', async () => {
    // A plain client: no session extension, the handle travels as an ordinary argument.
    const client = await sdk(a.url, 'modern', {
      fetch: routedFetch([a.url, b.url, c.url, b.url]),
    });
    const first = await rawCall(client, { name: 'tally', arguments: {} });
    const handle = (first.structuredContent as Record<string, unknown>)['tally_id'];
    expect(handle).toMatch(/^a\.tally_[\w-]+$/);
    const answers = [textOf(first).split('\n')[0]];
    for (let i = 0; i < 3; i++) {
      answers.push(
        textOf(await rawCall(client, { name: 'tally', arguments: { tally_id: handle } })),
      );
    }
    expect(answers).toEqual(['tally 1 on a', 'tally 2 on a', 'tally 3 on a', 'tally 4 on a']);
  });

  test('answers that reach another instance go to the one running the call; a forged state is refused (-32602), a replayed one reaches no call', async () => {
    // The question is asked on a; the answers are sent to b.
    const client = await sdk(a.url, 'modern', { fetch: routedFetch([a.url, b.url]) });
    const first = await rawCall(client, { name: 'ask', arguments: {} });
    expect(first.resultType).toBe('input_required');
    const state = first.requestState as string;
    expect(state).toMatch(/^v1\./);
    const answers = { elicit_1: { action: 'accept', content: { color: 'blue' } } };
    const second = await rawCall(client, {
      name: 'ask',
      arguments: {},
      inputResponses: answers,
      requestState: state,
    });
    expect(textOf(second)).toBe('accept blue on a');
    // Replayed, through b again: the run is spent.
    const replayed = await rawCall(client, {
      name: 'ask',
      arguments: {},
      inputResponses: answers,
      requestState: state,
    });
    expect(replayed).toMatchObject({ isError: true });
    expect(textOf(replayed)).toBe(NO_LONGER_WAITING);
    // Forged: a bare random state, and the signed one altered by a character. The
    // 2026-07-28 revision refuses state that fails its integrity check: -32602.
    // (The character changed is one the MAC's bits fill whole, and always another one.)
    const altered = state.slice(0, -2) + (state.at(-2) === 'A' ? 'B' : 'A') + state.slice(-1);
    for (const forged of ['0123456789abcdef0123456789abcdef', altered]) {
      const refused = rawCall(client, {
        name: 'ask',
        arguments: {},
        inputResponses: answers,
        requestState: forged,
      });
      await expect(refused).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^Invalid requestState: it fails its integrity check/),
      });
    }
    // Our client through the balancer: asked and answered wherever the requests land.
    const remote = await ours(lb.url, 'modern');
    expect(await call(remote, 'ask', {}, 'green')).toMatch(/^accept green on [abc]$/);
  });
});

describe('2025-era clients', () => {
  test('a session sticks to its instance behind the balancer', async () => {
    const remote = await ours(lb.url, 'legacy');
    const visits: string[] = [];
    for (let i = 0; i < 4; i++) visits.push(await call(remote, 'visits'));
    const owner = visits[0]!.split(' on ')[1];
    expect(visits).toEqual([1, 2, 3, 4].map((n) => `visit ${n} on ${owner}`));
    const client = await sdk(lb.url, 'legacy');
    const sdkVisits: string[] = [];
    for (let i = 0; i < 4; i++) sdkVisits.push(await sdkCall(client, 'visits'));
    const sdkOwner = sdkVisits[0]!.split(' on ')[1];
    expect(sdkVisits).toEqual([1, 2, 3, 4].map((n) => `visit ${n} on ${sdkOwner}`));
    // A question is asked on the session's stream, and answered on it.
    expect(await call(remote, 'ask', {}, 'red')).toBe(`accept red on ${owner}`);
  });

  test.each(['ours', 'sdk'] as const)(
    'a stream dropped mid-call is resumed with Last-Event-ID from Redis (%s client)',
    async (which) => {
      const drop = droppingFetch('step 2');
      const progress: string[] = [];
      let answer: string;
      if (which === 'ours') {
        const remote = await ours(lb.url, 'legacy', drop.fetch);
        const tool = remote.tools().find((t) => t.name === 'steps')!;
        const c = {
          id: 'c',
          args: JSON.stringify({ n: 5, ms: 150 }),
          onUpdate: (update: { output: unknown }) =>
            progress.push(outputText(update.output as string)),
        };
        answer = outputText((await tool.execute(c, createContext({ call: c }))).output);
      } else {
        const client = await sdk(lb.url, 'legacy', { fetch: drop.fetch });
        const result = await client.callTool(
          { name: 'steps', arguments: { n: 5, ms: 150 } },
          { onprogress: (p) => progress.push(p.message ?? '') },
        );
        answer = textOf(result);
      }
      expect(drop.dropped).toBe(1);
      expect(drop.resumedWith).toMatch(/\|\d+-\d+$/);
      expect(answer).toMatch(/^5 steps on [abc]$/);
      expect(progress).toEqual(['step 1', 'step 2', 'step 3', 'step 4', 'step 5']);
      // The events are in Redis, under the session.
      const inspect = new Redis(redis.url);
      try {
        expect((await inspect.keys('agenttool:events:*')).length).toBeGreaterThan(0);
      } finally {
        inspect.disconnect();
      }
    },
  );
});

/**
 * A fetch that drops the first `steps` call's streamed answer once `after` went by (as a
 * lost connection would), and notes the Last-Event-ID the client resumes with.
 */
function droppingFetch(after: string): { fetch: FetchLike; dropped: number; resumedWith?: string } {
  const state: { fetch: FetchLike; dropped: number; resumedWith?: string } = {
    dropped: 0,
    fetch: async (url, init) => {
      const resume = new Headers(init?.headers).get('last-event-id');
      if (resume !== null) state.resumedWith = resume;
      const body = typeof init?.body === 'string' ? init.body : '';
      const cut = new AbortController();
      const signal = init?.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
      const response = await fetch(url, { ...init, signal });
      const sse = response.headers.get('content-type')?.includes('text/event-stream') === true;
      if (state.dropped > 0 || !body.includes('"steps"') || !sse || response.body === null) {
        return response;
      }
      state.dropped++;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let seen = '';
      const dropping = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await reader.read();
          if (next.done) return controller.close();
          seen += decoder.decode(next.value, { stream: true });
          if (seen.includes(after)) {
            cut.abort();
            controller.error(new TypeError('terminated: the connection dropped'));
            return;
          }
          controller.enqueue(next.value);
        },
      });
      return new Response(dropping, { status: response.status, headers: response.headers });
    },
  };
  return state;
}

describe('tools/list_changed', () => {
  test('raised on one instance, it reaches the clients of another, in both eras', async () => {
    const seen: string[] = [];
    const waits: Promise<void>[] = [];
    const told = (label: string): (() => void) => {
      let resolve!: () => void;
      waits.push(new Promise<void>((r) => (resolve = r)));
      return () => {
        seen.push(label);
        resolve();
      };
    };
    const legacy = await sdk(b.url, 'legacy');
    legacy.setNotificationHandler('notifications/tools/list_changed', told('sdk legacy'));
    const modern = await sdk(b.url, 'modern');
    modern.setNotificationHandler('notifications/tools/list_changed', told('sdk modern'));
    const subscription = await modern.listen({ toolsListChanged: true });
    closers.push(() => subscription.close());
    // Our clients re-list when told: their next tools/list request is the sign.
    for (const era of ['legacy', 'modern'] as const) {
      const relisted = told(`ours ${era}`);
      let armed = false;
      await ours(b.url, era, (url, init) => {
        if (armed && typeof init?.body === 'string' && init.body.includes('"tools/list"'))
          relisted();
        return fetch(url, init);
      });
      armed = true;
    }
    const onA = await sdk(a.url, 'modern');
    expect(await sdkCall(onA, 'toggle')).toBe('extra added on a');
    await Promise.all(waits);
    expect(seen.sort()).toEqual(['ours legacy', 'ours modern', 'sdk legacy', 'sdk modern']);
    expect(await sdkCall(onA, 'toggle')).toBe('extra removed on a');
  });
});

describe('an instance leaving', () => {
  test('on SIGTERM it drains: health fails, the balancer sends new work elsewhere, the call in flight finishes, then it exits', async () => {
    const onC = await sdk(c.url, 'modern');
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const inFlight = onC
      .callTool({ name: 'steps', arguments: { n: 8, ms: 150 } }, { onprogress: () => running() })
      .then(textOf);
    await started;
    c.running.process.kill('SIGTERM');
    await c.running.waitForStderr(/agenttool: draining/);
    // Health fails at once, and new work is refused with 503, for the balancer to retry.
    const health = await fetch(`http://127.0.0.1:${c.port}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'draining' });
    const refused = await fetch(c.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'late', version: '1' },
        },
      }),
    });
    expect(refused.status).toBe(503);
    // Meanwhile every call through the balancer succeeds.
    const client = await sdk(lb.url, 'modern');
    const answers: string[] = [];
    while ((await lb.states())['c'] !== 'DOWN') answers.push(await sdkCall(client, 'whoami'));
    for (let i = 0; i < 4; i++) answers.push(await sdkCall(client, 'whoami'));
    expect(answers.every((who) => ['a', 'b', 'c'].includes(who))).toBe(true);
    expect(answers.slice(-4).every((who) => who === 'a' || who === 'b')).toBe(true);
    expect(await inFlight).toBe('8 steps on c');
    const ran = await c.running.done;
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('agenttool: stopped\n');
  });

  test('killed mid-run (SIGKILL), every call gets exactly one answer or one clear error, and none runs twice', async () => {
    const outcomes: { text: string; answer?: string; error?: string }[] = [];
    let counter = 0;
    let killed = false;
    const note = async (label: string, send: (text: string) => Promise<string>): Promise<void> => {
      const text = `${label}-${++counter}`;
      try {
        outcomes.push({ text, answer: await send(text) });
      } catch (error) {
        outcomes.push({ text, error: error instanceof Error ? error.message : String(error) });
      }
      // A third of the way in, with every client's calls in flight, instance a dies.
      if (outcomes.length === 16 && !killed) {
        killed = true;
        a.running.process.kill('SIGKILL');
      }
    };
    const oursLegacy = await ours(lb.url, 'legacy');
    const oursModern = await ours(lb.url, 'modern');
    let sdkLegacy = await sdk(lb.url, 'legacy');
    const sdkModern = await sdk(lb.url, 'modern');
    // Twelve calls each, and at least four begun after the kill: a client whose calls ran
    // ahead of the others' may have made its twelve before the kill came.
    const worker = async (
      label: string,
      send: (text: string) => Promise<string>,
    ): Promise<void> => {
      let afterKill = 0;
      for (let i = 0; i < 12 || afterKill < 4; i++) {
        const begunAfterKill = killed;
        await note(label, send);
        if (begunAfterKill) afterKill++;
      }
    };
    await Promise.all([
      worker('ours-legacy', (text) => call(oursLegacy, 'note', { text })),
      worker('ours-modern', (text) => call(oursModern, 'note', { text })),
      worker('sdk-legacy', async (text) => {
        try {
          // The SDK's client waits for a resumable stream it cannot resume until its
          // request times out.
          return await sdkCall(sdkLegacy, 'note', { text }, 5000);
        } catch (error) {
          // The SDK's client does not open a new session by itself: its user does, on 404.
          if (error instanceof SdkHttpError && error.status === 404) {
            sdkLegacy = await sdk(lb.url, 'legacy');
          }
          throw error;
        }
      }),
      worker('sdk-modern', (text) => sdkCall(sdkModern, 'note', { text }, 5000)),
    ]);
    expect(killed).toBe(true);
    expect(outcomes.length).toBeGreaterThanOrEqual(48);
    // One clear error at most per call, saying what happened.
    for (const outcome of outcomes.filter((o) => o.error !== undefined)) {
      expect(outcome.error).toMatch(
        /connection lost|Session not found|terminated|fetch failed|socket|ECONNRESET|failed before it answered|502 Bad Gateway|Request timed out/,
      );
    }
    const answered = outcomes.filter((o) => o.answer !== undefined);
    // Each answer is the note's own, from one instance.
    for (const o of answered) expect(o.answer).toMatch(new RegExp(`^noted ${o.text} on [ab]$`));
    // The last calls of every client went through, on the instance left.
    for (const label of ['ours-legacy', 'ours-modern', 'sdk-legacy', 'sdk-modern']) {
      const last = outcomes.filter((o) => o.text.startsWith(label)).at(-1);
      expect(last?.answer).toMatch(/ on b$/);
    }
    // Records: durable before the call returned, and no note was run twice.
    const recorded = [a, b].flatMap((inst) =>
      readFileSync(inst.records, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"scale:note"'))
        .map((line) => {
          const data = (JSON.parse(line) as { data: { text: string; instance: string } }).data;
          return `${data.text} on ${data.instance}`;
        }),
    );
    expect(new Set(recorded).size).toBe(recorded.length);
    const texts = recorded.map((r) => r.split(' on ')[0]);
    expect(new Set(texts).size).toBe(texts.length);
    for (const o of answered) expect(recorded).toContain(o.answer!.replace(/^noted /, ''));
  });
});
