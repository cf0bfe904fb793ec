/**
 * The caller of a forwarded call, without authorization: two instances sharing a Redis
 * (in this process, on 127.0.0.1), each client on an address of its own (127.0.0.x),
 * and 2026-07-28 calls carrying a session handle of instance a that reach instance b,
 * which forwards them to a. On a, a forwarded call counts against its client's own share
 * of calls in flight, not against one share of b's address; a header of the forwarding
 * instance is believed only when it carries the deployment's signature, so a client that
 * writes it itself is counted by its own address.
 */
import { request } from 'node:http';
import { newTool, type Result } from 'agenttool';
import { McpToolServer, SESSION_META_KEY, SESSIONS_EXTENSION } from 'agenttool/mcp';
import { type Answer, modern } from '../mcp/auth/helpers';
import { ForwardedCallers } from '../../src/mcp/server/scale/forwarded-caller';
import { startRedis, stopAll, TEST_STATE_KEY } from './cluster';

/** The headers a forwarding instance adds to what it forwards. */
const FORWARDED_BY = 'x-agenttool-forwarded-by';
const FORWARDED_CALLER = 'x-agenttool-forwarded-caller';

/** Slow calls, ended by the test; how many started. */
const open = new Set<() => void>();
let started = 0;
const slow = newTool({
  name: 'slow',
  description: 'Runs until the test ends it',
  execute: (_call, ctx) =>
    new Promise<Result>((resolve, reject) => {
      const done = (): void => {
        open.delete(done);
        resolve({ output: 'done' });
      };
      open.add(done);
      ctx.signal.addEventListener('abort', () => {
        open.delete(done);
        reject(new Error('stopped'));
      });
      started++;
    }),
});
const hello = newTool({
  name: 'hello',
  description: 'Answers at once',
  execute: () => ({ output: 'hello' }),
});

async function startedReach(count: number): Promise<void> {
  for (let i = 0; started < count; i++) {
    if (i > 400) throw new Error(`${started} calls started, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** POSTs `body` to `url` from the local address `from` (a 2026-07-28 request). */
function postFrom(
  from: string,
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const text = JSON.stringify(body);
  const params = body.params as { name?: string };
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(text),
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': String(body.method),
          ...(params.name === undefined ? {} : { 'mcp-name': params.name }),
          ...headers,
        },
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () => {
          const data = answer.split('\n').find((line) => line.startsWith('data: '));
          let message: Record<string, unknown> | undefined;
          try {
            message = JSON.parse(data === undefined ? answer : data.slice(6)) as Record<
              string,
              unknown
            >;
          } catch {
            message = undefined;
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: responseHeaders,
            text: answer,
            message,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

const withSessions = {
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [SESSIONS_EXTENSION]: {} } },
};

/** A session of instance `url` for the client `from`: its handle. */
async function handleOf(from: string, url: string): Promise<string> {
  const answer = await postFrom(
    from,
    url,
    modern('tools/call', { name: 'hello', arguments: {} }, withSessions),
  );
  const result = answer.message?.result as { _meta?: Record<string, unknown> } | undefined;
  const handle = result?._meta?.[SESSION_META_KEY];
  if (typeof handle !== 'string') throw new Error(`no handle: ${answer.text}`);
  return handle;
}

/** A call of `slow` in the session `handle`, from `from`, to `url`. */
const slowIn = (from: string, url: string, handle?: string, headers?: Record<string, string>) =>
  postFrom(
    from,
    url,
    modern(
      'tools/call',
      { name: 'slow', arguments: {} },
      handle === undefined ? {} : { ...withSessions, [SESSION_META_KEY]: handle },
    ),
    headers,
  );

/** A refusal of `who` past its share of one call in flight. */
function expectRefused(answer: Answer, who: string): void {
  expect(answer.status).toBe(429);
  expect((answer.message?.error as { message: string }).message).toBe(
    `Too Many Requests: the client address ${who} holds its share of 1 calls in flight (maxCallsPerSubject); wait for one of them to end, or cancel one, first`,
  );
}

let a: McpToolServer;
let b: McpToolServer;
let aUrl: string;
let bUrl: string;

beforeAll(async () => {
  const redis = await startRedis();
  const instance = async (id: string) => {
    const server = new McpToolServer([slow, hello], {
      scaleOut: { requestStateKey: TEST_STATE_KEY, redisUrl: redis.url, instanceId: id },
    });
    // No authorization, no trustProxy: callers are told apart by their addresses.
    const listener = await server.listenHttp({ maxCallsPerSubject: 1 });
    return { server, url: listener.url };
  };
  const [first, second] = await Promise.all([instance('a'), instance('b')]);
  ({ server: a, url: aUrl } = first);
  ({ server: b, url: bUrl } = second);
}, 60_000);

afterEach(async () => {
  for (const end of [...open]) end();
  // The calls' answers, and their shares given back.
  await new Promise((resolve) => setTimeout(resolve, 50));
});

afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close()]);
  stopAll();
});

test("a forwarded call counts against its client's share on the instance that runs it, not against one share of the forwarding instance's address", async () => {
  const ada = await handleOf('127.0.0.2', aUrl);
  const bob = await handleOf('127.0.0.3', aUrl);
  expect(ada).toMatch(/^a\./);
  const before = started;

  // Each client's call reaches b, which forwards it to a, where the session is.
  const adaCall = slowIn('127.0.0.2', bUrl, ada);
  await startedReach(before + 1);
  const bobCall = slowIn('127.0.0.3', bUrl, bob);
  await Promise.race([
    startedReach(before + 2),
    bobCall.then((answer) => {
      throw new Error(`bob's forwarded call was answered: ${answer.status} ${answer.text}`);
    }),
  ]);

  // Ada holds her one call, forwarded or not: her next one on a is refused, in her name.
  expectRefused(await slowIn('127.0.0.2', aUrl), '127.0.0.2');
  for (const end of [...open]) end();
  expect((await adaCall).status).toBe(200);
  expect((await bobCall).status).toBe(200);
});

test("a client that writes the forwarding instance's headers itself is counted by its own address: unsigned, signed with another key, altered or stale", async () => {
  const before = started;
  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  const genuine = new ForwardedCallers(TEST_STATE_KEY, 'b');
  const forgeries: Record<string, string> = {
    'made up': `b.${Math.floor(Date.now() / 1000)}.${b64('10.9.9.9')}.${b64('x'.repeat(32))}`,
    'signed with another key': new ForwardedCallers('f'.repeat(64), 'b').sign('10.9.9.9'),
    altered: genuine.sign('10.9.9.8').replace(b64('10.9.9.8'), b64('10.9.9.9')),
    'two minutes old': genuine.sign('10.9.9.9', Date.now() - 120_000),
  };
  const as = (value: string) => ({ [FORWARDED_BY]: 'b', [FORWARDED_CALLER]: value });
  // The client holds its one call.
  const first = slowIn('127.0.0.4', aUrl);
  await startedReach(before + 1);
  for (const [what, value] of Object.entries(forgeries)) {
    const answer = await Promise.race([
      slowIn('127.0.0.4', aUrl, undefined, as(value)),
      startedReach(before + 2).then(() => {
        throw new Error(`the call with a header ${what} was let in, as another client's`);
      }),
    ]);
    expectRefused(answer, '127.0.0.4');
  }
  // The instances' own word is believed: the header as a peer signs it, now.
  const believed = slowIn('127.0.0.4', aUrl, undefined, as(genuine.sign('10.9.9.9')));
  await startedReach(before + 2);
  for (const end of [...open]) end();
  expect((await first).status).toBe(200);
  expect((await believed).status).toBe(200);
});
