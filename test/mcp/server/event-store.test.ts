/**
 * A resumable 2025-era session's events (`resumable: true`): kept by count and by
 * bytes, so that results read long ago do not stay by the thousand; what is kept is
 * replayed after the event a client last saw, on its stream only.
 */
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { SessionEventStore } from '../../../src/mcp/server/sessions/event-store';

const result = (id: number, bytes: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: 'x'.repeat(bytes) }] },
});

async function replayed(store: SessionEventStore, after: string): Promise<[string, unknown[]]> {
  const sent: unknown[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: (_id, message) => {
      sent.push((message as { id: number }).id);
      return Promise.resolve();
    },
  });
  return [stream, sent];
}

test('past its bytes the oldest events go; the rest replay as before', async () => {
  const store = new SessionEventStore(1000, 1000);
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) ids.push(await store.storeEvent('s1', result(i, 300)));
  // About 360 bytes each: the last two fit in 1000, and the third before them does not.
  expect(await store.getStreamIdForEventId(ids[2]!)).toBeUndefined();
  expect(await store.getStreamIdForEventId(ids[3]!)).toBe('s1');
  expect(await replayed(store, ids[3]!)).toEqual(['s1', [5]]);
  // An event no longer kept resumes nothing.
  expect(await replayed(store, ids[0]!)).toEqual(['', []]);
});

test('an event larger than the bytes is kept while it is the newest', async () => {
  const store = new SessionEventStore(1000, 1000);
  const first = await store.storeEvent('s1', result(1, 10));
  const big = await store.storeEvent('s1', result(2, 5000));
  expect(await store.getStreamIdForEventId(first)).toBeUndefined();
  expect(await store.getStreamIdForEventId(big)).toBe('s1');
  const next = await store.storeEvent('s1', result(3, 10));
  expect(await store.getStreamIdForEventId(big)).toBeUndefined();
  expect(await store.getStreamIdForEventId(next)).toBe('s1');
});

test('past its count the oldest events go, and a stream replays only its own', async () => {
  const store = new SessionEventStore(3);
  const a = await store.storeEvent('a', result(1, 1));
  const b = await store.storeEvent('b', result(2, 1));
  await store.storeEvent('a', result(3, 1));
  await store.storeEvent('b', result(4, 1));
  expect(await store.getStreamIdForEventId(a)).toBeUndefined();
  expect(await replayed(store, b)).toEqual(['b', [4]]);
});
