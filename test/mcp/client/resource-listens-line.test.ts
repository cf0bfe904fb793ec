/**
 * The grouping of 2026-07-28 resource subscriptions onto `subscriptions/listen` streams,
 * against a line whose streams the test opens, acknowledges and drops: what each open
 * names, which stream closes when, and what an acknowledgement that leaves a URI out
 * does. `resource-listens.test.ts` runs the same against a server of our own over HTTP.
 */
import { type McpSubscription } from '@modelcontextprotocol/client';
import {
  type ListenLine,
  ResourceListens,
  URIS_PER_LISTEN,
} from '../../../src/mcp/client/primitives/resource-listens';
import { until } from '../../support/until';

interface FakeStream extends McpSubscription {
  readonly uris: readonly string[];
  closedLocally: boolean;
  drop(): void;
}

/** A line whose streams honor what `honors` says, each open waiting for `gate` if set. */
function fakeLine(honors: (uri: string) => boolean = () => true) {
  const streams: FakeStream[] = [];
  const warnings: string[] = [];
  const closing = new AbortController();
  const state: { gate: Promise<void> | undefined; failNext: Error | undefined } = {
    gate: undefined,
    failNext: undefined,
  };
  const line: ListenLine = {
    open: async (_where, uris) => {
      if (state.gate !== undefined) await state.gate;
      const failure = state.failNext;
      state.failNext = undefined;
      if (failure !== undefined) throw failure;
      let end!: (reason: 'local' | 'graceful' | 'remote') => void;
      const closed = new Promise<'local' | 'graceful' | 'remote'>((resolve) => (end = resolve));
      const stream: FakeStream = {
        uris: [...uris],
        honoredFilter: { resourceSubscriptions: uris.filter(honors) },
        closedLocally: false,
        close: () => {
          stream.closedLocally = true;
          end('local');
          return Promise.resolve();
        },
        closed,
        drop: () => end('remote'),
      };
      streams.push(stream);
      return stream;
    },
    subscribing: (uri) => `mcp: resources/subscribe "${uri}" on server "fake"`,
    reopening: () => 'mcp: subscriptions/listen on server "fake"',
    closed: closing.signal,
    cancelled: (where) => new Error(`${where}: context canceled`),
    lost: (message) => void warnings.push(message),
  };
  return { line, streams, warnings, state, closing };
}

const open = (streams: readonly FakeStream[]) =>
  streams.filter((s) => !s.closedLocally).map((s) => s.uris);

it('opens each stream anew with one URI more, and closes the one before once it is acknowledged', async () => {
  const { line, streams } = fakeLine();
  const listens = new ResourceListens(line);
  for (const uri of ['a', 'b', 'c']) await listens.subscribe(uri, {});
  expect(streams.map((s) => s.uris)).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
  expect(open(streams)).toEqual([['a', 'b', 'c']]);
  await listens.unsubscribe('b');
  expect(open(streams)).toEqual([['a', 'c']]);
  expect(listens.follows('b')).toBe(false);
  await listens.unsubscribe('a');
  await listens.unsubscribe('c');
  expect(open(streams)).toEqual([]);
});

it(`puts URI number ${URIS_PER_LISTEN + 1} on a second stream`, async () => {
  const { line, streams } = fakeLine();
  const listens = new ResourceListens(line);
  const uris = Array.from({ length: URIS_PER_LISTEN + 1 }, (_, i) => `u${i}`);
  await Promise.all(uris.map((uri) => listens.subscribe(uri, {})));
  // The second stream was opened while the first took its URIs one at a time.
  expect(open(streams)).toEqual([[uris[URIS_PER_LISTEN]], uris.slice(0, URIS_PER_LISTEN)]);
  await listens.close();
  expect(open(streams)).toEqual([]);
});

it('fails a subscribe whose acknowledgement leaves its URI out; the stream goes on for the rest', async () => {
  const { line, streams } = fakeLine((uri) => uri !== 'x');
  const listens = new ResourceListens(line);
  await listens.subscribe('a', {});
  await expect(listens.subscribe('x', {})).rejects.toThrow(
    'mcp: resources/subscribe "x" on server "fake": the server did not take the subscription (its acknowledgement leaves the URI out)',
  );
  expect(listens.follows('x')).toBe(false);
  await listens.subscribe('b', {});
  expect(open(streams)).toEqual([['a', 'b']]);
});

it('never sends a subscribe its signal aborted while it waited its turn', async () => {
  const { line, streams, state } = fakeLine();
  const listens = new ResourceListens(line);
  let release!: () => void;
  state.gate = new Promise((resolve) => (release = resolve));
  const first = listens.subscribe('a', {});
  const abort = new AbortController();
  const second = listens.subscribe('b', { signal: abort.signal });
  abort.abort();
  await expect(second).rejects.toThrow(
    'mcp: resources/subscribe "b" on server "fake": context canceled',
  );
  release();
  await first;
  expect(streams.map((s) => s.uris)).toEqual([['a']]);
  expect(listens.follows('b')).toBe(false);
});

it('opens a dropped stream again, a URI its acknowledgement then leaves out dropped with a warning', async () => {
  let honorB = true;
  const { line, streams, warnings } = fakeLine((uri) => uri !== 'b' || honorB);
  const listens = new ResourceListens(line);
  await listens.subscribe('a', {});
  await listens.subscribe('b', {});
  honorB = false;
  streams[1]!.drop();
  // A second later.
  await until(() => streams.length === 3, 'the stream opened again');
  expect(streams[2]!.uris).toEqual(['a', 'b']);
  expect(warnings).toEqual([
    'mcp: resources/subscribe "b" on server "fake": the server no longer takes the subscription (opening its stream again)',
  ]);
  expect(listens.follows('a')).toBe(true);
  expect(listens.follows('b')).toBe(false);
  await listens.close();
});

/** Holds every open until the returned function is called. */
function gated(state: { gate: Promise<void> | undefined }): () => void {
  let release!: () => void;
  state.gate = new Promise((resolve) => (release = resolve));
  return () => {
    state.gate = undefined;
    release();
  };
}

it('lets a subscribe cancelled alone go, the others waiting for the same URI still subscribed', async () => {
  const { line, streams, state } = fakeLine();
  const listens = new ResourceListens(line);
  const release = gated(state);
  const first = new AbortController();
  const cancelled = listens.subscribe('a', { signal: first.signal });
  const kept = listens.subscribe('a', {});
  first.abort();
  await expect(cancelled).rejects.toThrow('context canceled');
  release();
  await kept;
  expect(listens.follows('a')).toBe(true);
  expect(open(streams)).toEqual([['a']]);
  // Every one cancelled while its open was on its way: given up once it is open.
  const only = new AbortController();
  const release2 = gated(state);
  const gone = listens.subscribe('b', { signal: only.signal });
  await new Promise((resolve) => setTimeout(resolve, 10));
  only.abort();
  await expect(gone).rejects.toThrow('context canceled');
  release2();
  // Opened with a and b, then anew with a alone.
  await until(() => streams.length === 3 && open(streams).length === 1, 'b let go');
  expect(streams.map((s) => s.uris)).toEqual([['a'], ['a', 'b'], ['a']]);
  expect(open(streams)).toEqual([['a']]);
  expect(listens.follows('b')).toBe(false);
});

it('still sends a subscribe queued behind an open that failed', async () => {
  const { line, streams, state } = fakeLine();
  const listens = new ResourceListens(line);
  await listens.subscribe('a', {});
  await listens.subscribe('b', {});
  const release = gated(state);
  state.failNext = new Error('the line is busy');
  const leaving = listens.unsubscribe('b');
  // The open without b is on its way (held) when c comes.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const adding = listens.subscribe('c', {});
  release();
  await leaving;
  await adding;
  // The narrowing failed; the next open names what is wanted, b no longer among them.
  expect(open(streams)).toEqual([['a', 'c']]);
  expect(listens.follows('b')).toBe(false);
});

it('does not name a URI twice when it is subscribed to again before its stream was narrowed', async () => {
  const { line, streams, state } = fakeLine();
  const listens = new ResourceListens(line);
  await listens.subscribe('a', {});
  await listens.subscribe('b', {});
  const release = gated(state);
  const leaving = listens.unsubscribe('b');
  const again = listens.subscribe('b', {});
  release();
  await Promise.all([leaving, again]);
  await until(() => streams.every((s) => new Set(s.uris).size === s.uris.length), 'no twice');
  expect(streams.every((s) => new Set(s.uris).size === s.uris.length)).toBe(true);
  expect(listens.follows('b')).toBe(true);
  expect(open(streams).at(-1)).toEqual(expect.arrayContaining(['a', 'b']));
});

it('fails every subscribe at once once the connection is closing, and those queued when it closes', async () => {
  const { line, state, closing } = fakeLine();
  const listens = new ResourceListens(line);
  gated(state);
  const first = listens.subscribe('a', {});
  const queued = listens.subscribe('b', {});
  closing.abort();
  await expect(queued).rejects.toThrow(
    'mcp: resources/subscribe "b" on server "fake": mcp: connection closed',
  );
  await expect(listens.subscribe('c', {})).rejects.toThrow(
    'mcp: resources/subscribe "c" on server "fake": mcp: connection closed',
  );
  expect(listens.follows('c')).toBe(false);
  void first.catch(() => undefined);
});
