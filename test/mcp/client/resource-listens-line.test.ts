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
  const state: { gate: Promise<void> | undefined } = { gate: undefined };
  const line: ListenLine = {
    open: async (_where, uris) => {
      if (state.gate !== undefined) await state.gate;
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
