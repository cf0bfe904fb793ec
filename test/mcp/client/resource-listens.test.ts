/**
 * `connectMcp`'s 2026-07-28 resource subscriptions ride on few `subscriptions/listen`
 * streams (up to 50 URIs each), not one per URI: against a server of our own over
 * Streamable HTTP on loopback whose callers may each hold a few streams, many URIs are
 * followed, each update passed on once; a URI the server refuses fails alone; an
 * unsubscribed URI's updates stop at once; a server that takes fewer URIs in one stream
 * gets more streams; and a stream opened again after the server restarted without one
 * of its resources goes on for the others.
 */
import { type McpResource, type McpResourceTemplate, newTool, text } from 'agenttool';
import {
  connectMcp,
  type HttpListener,
  type McpToolServer,
  type RemoteTools,
  serveTools,
} from 'agenttool/mcp';
import { until } from '../../support/until';

const ping = newTool({ name: 'ping', description: 'Pong', execute: () => text('pong') });

/** `items://<id>`, readable by anyone; and `gone://1` when asked for. */
function upstream(options: { gone?: boolean; maxSubscriptionsPerSession?: number } = {}) {
  const template: McpResourceTemplate = {
    uriTemplate: 'items://{id}',
    name: 'items',
    read: (vars) => `item ${vars.id}`,
  };
  const gone: McpResource[] =
    options.gone === true ? [{ uri: 'gone://1', name: 'gone', read: () => 'soon gone' }] : [];
  return serveTools([ping], {
    resources: [template, ...gone],
    ...(options.maxSubscriptionsPerSession === undefined
      ? {}
      : { maxSubscriptionsPerSession: options.maxSubscriptionsPerSession }),
  });
}

const open: { close(): Promise<unknown> }[] = [];

afterEach(async () => {
  for (const one of open.splice(0).reverse()) await one.close();
});

/** A server on loopback whose callers may hold `streams` streams each. */
async function serving(
  server: McpToolServer,
  streams: number,
  port = 0,
): Promise<{ server: McpToolServer; listener: HttpListener }> {
  const listener = await server.listenHttp({ port, maxStreamsPerSubject: streams });
  open.push(server);
  return { server, listener };
}

/** A 2026-07-28 connection keeping each update it is told of. */
async function connect(url: string): Promise<{ remote: RemoteTools; updates: string[] }> {
  const updates: string[] = [];
  const remote = await connectMcp({
    transport: { url },
    protocol: 'modern',
    onResourceUpdated: (uri) => void updates.push(uri),
  });
  open.push(remote);
  return { remote, updates };
}

const items = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `items://${from + i}`);

/** Tells the server each URI changed, and waits until the client heard of `heard`. */
async function changed(
  server: McpToolServer,
  uris: readonly string[],
  updates: string[],
  heard: readonly string[],
): Promise<void> {
  for (const uri of uris) await server.resourceUpdated(uri);
  await until(() => heard.every((uri) => updates.includes(uri)), `updates of ${heard.length} URIs`);
  // What else was sent is in by now.
  await new Promise((resolve) => setTimeout(resolve, 200));
}

it('follows 150 resources within a share of 6 streams, each update passed on once', async () => {
  const { server, listener } = await serving(upstream(), 6);
  const { remote, updates } = await connect(listener.url);
  const uris = items(0, 150);
  for (const uri of uris) await remote.subscribeResource(uri);
  await changed(server, uris, updates, uris);
  expect(updates.length).toBe(150);
  expect(new Set(updates)).toEqual(new Set(uris));
  // Subscribing again to one followed is a no-op.
  await remote.subscribeResource('items://3');
  updates.length = 0;
  await changed(server, ['items://3'], updates, ['items://3']);
  expect(updates).toEqual(['items://3']);
}, 30_000);

it('fails the one URI the server refuses, naming it, and follows those subscribed beside it', async () => {
  const { server, listener } = await serving(upstream(), 6);
  const { remote, updates } = await connect(listener.url);
  const uris = items(0, 60);
  uris.splice(20, 0, 'other://x');
  const settled = await Promise.allSettled(uris.map((uri) => remote.subscribeResource(uri)));
  const failed = settled.flatMap((outcome, i) =>
    outcome.status === 'rejected' ? [[uris[i], (outcome.reason as Error).message]] : [],
  );
  expect(failed).toEqual([
    [
      'other://x',
      'mcp: resources/subscribe "other://x" on server "agenttool": mcp: unknown resource "other://x"',
    ],
  ]);
  const taken = uris.filter((uri) => uri !== 'other://x');
  await changed(server, uris, updates, taken);
  expect(updates.sort()).toEqual([...taken].sort());
}, 30_000);

it("stops passing on an unsubscribed URI's updates at once, and the others' go on", async () => {
  // Three streams changing at once each hold the one before for a moment (so 3 + 3 + 1).
  const { server, listener } = await serving(upstream(), 8);
  const { remote, updates } = await connect(listener.url);
  const uris = items(0, 120);
  await Promise.all(uris.map((uri) => remote.subscribeResource(uri)));
  const dropped = uris.filter((_, i) => i % 3 === 0);
  const kept = uris.filter((_, i) => i % 3 !== 0);
  await Promise.all(dropped.map((uri) => remote.unsubscribeResource(uri)));
  await changed(server, uris, updates, kept);
  expect(updates.sort()).toEqual([...kept].sort());
  // All gone: their streams are closed, and the share holds new ones.
  await Promise.all(kept.map((uri) => remote.unsubscribeResource(uri)));
  updates.length = 0;
  const again = items(500, 120);
  for (const uri of again) await remote.subscribeResource(uri);
  await changed(server, [...uris, ...again], updates, again);
  expect(updates.sort()).toEqual([...again].sort());
}, 30_000);

it('gives a server that takes 3 URIs in a stream streams of 3, within its share', async () => {
  // A stream per URI would pass the share of 6 (one is the connection's list changes).
  const { server, listener } = await serving(upstream({ maxSubscriptionsPerSession: 3 }), 6);
  const { remote, updates } = await connect(listener.url);
  const uris = items(0, 12);
  for (const uri of uris) await remote.subscribeResource(uri);
  await changed(server, uris, updates, uris);
  expect(updates.sort()).toEqual([...uris].sort());
}, 30_000);

it('opens its stream again after the server restarted without one resource, for the others', async () => {
  const warnings: string[] = [];
  const emitted = jest.spyOn(process, 'emitWarning').mockImplementation((warning) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.includes('gone://1')) warnings.push(text);
  });
  let { server, listener } = await serving(upstream({ gone: true }), 6);
  const { remote, updates } = await connect(listener.url);
  const uris = ['gone://1', ...items(0, 9)];
  for (const uri of uris) await remote.subscribeResource(uri);
  await changed(server, uris, updates, uris);
  expect(updates.sort()).toEqual([...uris].sort());
  // The server restarts on the same port, without gone://1: the stream drops with it.
  const port = Number(new URL(listener.url).port);
  await server.close();
  ({ server, listener } = await serving(upstream(), 6, port));
  updates.length = 0;
  // Opened again a second later, refused for gone://1, then apart: the others followed.
  const others = items(0, 9);
  await until(
    () => {
      for (const uri of others) void server.resourceUpdated(uri);
      return others.every((uri) => updates.includes(uri));
    },
    'the updates of the resources still there',
    20_000,
  );
  expect(updates).not.toContain('gone://1');
  // Said once; asked for again later, in case the resource comes back.
  await until(() => warnings.length > 0, 'the warning');
  expect(warnings).toEqual([
    'mcp: resources/subscribe "gone://1" on server "agenttool": the server refuses the subscription now (opening its stream again): mcp: unknown resource "gone://1"; asked again later, every minute at most',
  ]);
  emitted.mockRestore();
}, 30_000);
