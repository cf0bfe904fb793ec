/**
 * The events of resumable 2025-era sessions in Redis (scale-out), against a real
 * redis-server on 127.0.0.1, held to the in-memory store's bounds: a session keeps its
 * last 1000 events and 1 MiB of them (the newest always), so a tool sending large
 * answers or notifications cannot make Redis hold 1000 of them per stream; and a client
 * resuming from an event that was dropped gets what it gets from the in-memory store
 * (nothing: the event is unknown), not the events after it with a silent gap.
 */
import { type EventStore, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { newTool } from 'agenttool';
import { type HttpListener, McpToolServer } from 'agenttool/mcp';
import { SESSION_EVENT_BYTES } from '../../src/mcp/server/sessions/event-store';
import { INITIALIZE } from '../mcp/auth/helpers';
import { startRedis, stopAll, TEST_STATE_KEY } from './cluster';

/** A tool answering `kib` KiB of text. */
const big = newTool({
  name: 'big',
  description: 'Answers kib KiB of text',
  parameters: { type: 'object', properties: { kib: { type: 'integer' } }, required: ['kib'] },
  execute: (call) => ({
    output: 'x'.repeat((JSON.parse(call.args) as { kib: number }).kib * 1024),
  }),
});

/** Each store a test opened, disposed after it. */
type Store = EventStore & { dispose?(): Promise<void> };

let inMemory: McpToolServer;
let scaled: McpToolServer;
let inMemoryHttp: HttpListener;
let scaledHttp: HttpListener;
let inspect: Redis;
const opened: Store[] = [];

beforeAll(async () => {
  const redis = await startRedis();
  inMemory = new McpToolServer([big]);
  scaled = new McpToolServer([big], {
    scaleOut: { requestStateKey: TEST_STATE_KEY, redisUrl: redis.url, instanceId: 'a' },
  });
  [inMemoryHttp, scaledHttp] = await Promise.all([
    inMemory.listenHttp({ resumable: true }),
    scaled.listenHttp({ resumable: true }),
  ]);
  inspect = new Redis(redis.url);
}, 60_000);

afterEach(async () => {
  await Promise.all(opened.splice(0).map(async (store) => store.dispose?.()));
});

afterAll(async () => {
  inspect?.disconnect();
  await Promise.allSettled([inMemory?.close(), scaled?.close()]);
  stopAll();
});

/** A session's event store on each server: in memory, and in Redis. */
async function stores(session: string): Promise<{ memory: Store; redis: Store }> {
  const memory = await inMemory.eventStoreFor(session, 60_000);
  const redis = await scaled.eventStoreFor(session, 60_000);
  opened.push(memory, redis);
  return { memory, redis };
}

/** A JSON-RPC answer `id` of about `bytes` bytes as JSON. */
const answer = (id: number, bytes: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: 'x'.repeat(bytes) }] },
});

/**
 * What a client resuming from `eventId` gets of `store`, as the SDK asks it: nothing
 * when the event is unknown (the SDK answers 400), else the stream and the ids of the
 * messages replayed.
 */
async function resumed(
  store: Store,
  eventId: string,
): Promise<'unknown' | { stream: string; sent: unknown[] }> {
  if ((await store.getStreamIdForEventId?.(eventId)) === undefined) return 'unknown';
  const sent: unknown[] = [];
  const stream = await store.replayEventsAfter(eventId, {
    send: (_id, message) => {
      sent.push((message as { id?: unknown }).id);
      return Promise.resolve();
    },
  });
  return { stream, sent };
}

/** What Redis holds under the session's keys: their memory, and their messages' bytes. */
async function held(
  session: string,
): Promise<{ keys: string[]; memory: number; messageBytes: number; ttls: number[] }> {
  const keys = (await inspect.keys(`agenttool:events:${session}*`)).sort();
  let memory = 0;
  let messageBytes = 0;
  const ttls: number[] = [];
  for (const key of keys) {
    memory += (await inspect.memory('USAGE', key, 'SAMPLES', 0)) ?? 0;
    ttls.push(await inspect.ttl(key));
    if ((await inspect.type(key)) !== 'stream') continue;
    for (const [, fields] of await inspect.xrange(key, '-', '+')) {
      for (let i = 0; i < fields.length; i += 2) {
        if (fields[i] === 'm') messageBytes += Buffer.byteLength(fields[i + 1] ?? '');
      }
    }
  }
  return { keys, memory, messageBytes, ttls };
}

test('past 1 MiB of a session’s events the oldest go from Redis as from memory, over all its streams; Redis holds no more', async () => {
  const { memory, redis } = await stores('bytes');
  const ids: { memory: string; redis: string }[] = [];
  // 30 answers of 100 KiB, on two streams: 3 MiB, three times the bound.
  for (let i = 1; i <= 30; i++) {
    const stream = i % 2 === 0 ? 'even' : 'odd';
    const message = answer(i, 100 * 1024);
    ids.push({
      memory: await memory.storeEvent(stream, message),
      redis: await redis.storeEvent(stream, message),
    });
  }
  const inRedis = await held('bytes');
  expect(inRedis.messageBytes).toBeLessThanOrEqual(SESSION_EVENT_BYTES);
  // Allocator rounding and the stream's nodes aside; 3 MiB without the bound.
  expect(inRedis.memory).toBeLessThan(SESSION_EVENT_BYTES * 1.25);
  // Every key still expires with the session's idle time.
  expect(inRedis.ttls.every((ttl) => ttl > 0 && ttl <= 120)).toBe(true);

  const kept = await Promise.all(ids.map(async (id) => resumed(redis, id.redis)));
  const keptInMemory = await Promise.all(ids.map(async (id) => resumed(memory, id.memory)));
  expect(kept).toEqual(keptInMemory);
  // The first events are gone, the last ten (1 MiB) kept, replaying their stream only.
  expect(kept[0]).toBe('unknown');
  expect(kept[19]).toBe('unknown');
  expect(kept[20]).toEqual({ stream: 'odd', sent: [23, 25, 27, 29] });
  expect(kept[29]).toEqual({ stream: 'even', sent: [] });

  await redis.dispose?.();
  expect((await held('bytes')).keys).toEqual([]);
});

test('past 1000 events of a session the oldest go from Redis as from memory', async () => {
  const { memory, redis } = await stores('count');
  const ids: { memory: string; redis: string }[] = [];
  for (let i = 1; i <= 1002; i++) {
    const stream = i <= 2 ? 'first' : 'rest';
    ids.push({
      memory: await memory.storeEvent(stream, answer(i, 1)),
      redis: await redis.storeEvent(stream, answer(i, 1)),
    });
  }
  for (const at of [0, 1, 2, 1001]) {
    expect(await resumed(redis, ids[at]!.redis)).toEqual(await resumed(memory, ids[at]!.memory));
  }
  expect(await resumed(redis, ids[1]!.redis)).toBe('unknown');
  expect(await resumed(redis, ids[2]!.redis)).toEqual({
    stream: 'rest',
    sent: Array.from({ length: 999 }, (_, i) => i + 4),
  });
  const inRedis = await held('count');
  expect(inRedis.ttls.every((ttl) => ttl > 0 && ttl <= 120)).toBe(true);
});

test('an event larger than the bound is kept in Redis while it is the newest, as in memory', async () => {
  const { memory, redis } = await stores('one-big');
  const ids: { memory: string; redis: string }[] = [];
  for (const [i, bytes] of [
    [1, 10],
    [2, 2 * SESSION_EVENT_BYTES],
    [3, 10],
  ] as const) {
    ids.push({
      memory: await memory.storeEvent('s', answer(i, bytes)),
      redis: await redis.storeEvent('s', answer(i, bytes)),
    });
    const now = await Promise.all(ids.map(async (id) => resumed(redis, id.redis)));
    expect(now).toEqual(await Promise.all(ids.map(async (id) => resumed(memory, id.memory))));
  }
  expect(await resumed(redis, ids[1]!.redis)).toBe('unknown');
  expect(await resumed(redis, ids[2]!.redis)).toEqual({ stream: 's', sent: [] });
  expect((await held('one-big')).messageBytes).toBeLessThan(100);
});

test('a Redis that lost the script or the byte count stores and bounds the events still', async () => {
  const { redis } = await stores('lost');
  const ids = [await redis.storeEvent('s', answer(1, 300 * 1024))];
  // Redis restarted or flushed its scripts: the script is sent whole again.
  await inspect.script('FLUSH');
  ids.push(await redis.storeEvent('s', answer(2, 300 * 1024)));
  ids.push(await redis.storeEvent('s', answer(3, 300 * 1024)));
  expect(ids.every((id) => /\|\d+-\d+$/.test(id))).toBe(true);
  // The count was evicted: it is counted again, and the fourth answer drops the first.
  await inspect.del('agenttool:events:lost:bytes');
  ids.push(await redis.storeEvent('s', answer(4, 300 * 1024)));
  expect(await resumed(redis, ids[0]!)).toBe('unknown');
  expect(await resumed(redis, ids[1]!)).toEqual({ stream: 's', sent: [3, 4] });
  expect((await held('lost')).messageBytes).toBeLessThanOrEqual(SESSION_EVENT_BYTES);
});

/** A 2025-era session of `listener`, opened with raw requests. */
async function legacySession(listener: HttpListener) {
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const opening = await fetch(listener.url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify(INITIALIZE),
  });
  expect(opening.status).toBe(200);
  await opening.text();
  const headers = {
    ...base,
    'mcp-session-id': opening.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-11-25',
  };
  const initialized = await fetch(listener.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return {
    /** Calls `big` for `kib` KiB; the ids of its stream's events. */
    async call(id: number, kib: number): Promise<string[]> {
      const response = await fetch(listener.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'big', arguments: { kib } },
        }),
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const text = await response.text();
      return [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!);
    },
    /** Resumes with `Last-Event-ID`: the status, and the ids of the messages replayed. */
    async resume(lastEventId: string): Promise<{ status: number; body: string; ids: unknown[] }> {
      const response = await fetch(listener.url, {
        headers: { ...headers, 'last-event-id': lastEventId },
      });
      const body = await response.text();
      const ids = [...body.matchAll(/^data: (\{.*\})$/gm)].map(
        (match) => (JSON.parse(match[1]!) as { id?: unknown }).id,
      );
      return { status: response.status, body: ids.length > 0 ? '' : body, ids };
    },
  };
}

test('over HTTP, a client resuming past the events dropped gets from Redis what it gets from memory', async () => {
  const resumes = async (listener: HttpListener) => {
    const session = await legacySession(listener);
    // Four answers of 400 KiB, each on a stream of its own: the first two are dropped.
    const streams: string[][] = [];
    for (let id = 2; id <= 5; id++) streams.push(await session.call(id, 400));
    return {
      first: await session.resume(streams[0]![0]!),
      firstAnswer: await session.resume(streams[0]!.at(-1)!),
      last: await session.resume(streams[3]![0]!),
    };
  };
  const fromRedis = await resumes(scaledHttp);
  expect(fromRedis).toEqual(await resumes(inMemoryHttp));
  expect(fromRedis.first.status).toBe(400);
  expect(fromRedis.last).toEqual({ status: 200, body: '', ids: [5] });
});
