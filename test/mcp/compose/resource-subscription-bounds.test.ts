/**
 * Resource subscriptions through `McpServers` served with `serveTools`, to servers of
 * our own over Streamable HTTP on loopback: one spoken to in 2026-07-28 is followed on a
 * `subscriptions/listen` stream and its updates passed on; one that offers no
 * `resources.subscribe` (a stateless 2025-era endpoint) takes a client's subscription
 * without passing it on, and says so once; the composition holds at most
 * `maxResourceSubscriptions` URIs, each counted once however many clients follow it;
 * and a 2025-era server that restarts in place (the composition's session lost with it,
 * a new one opened) is subscribed to again.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type McpResourceTemplate, newTool, text } from 'agenttool';
import { type HttpListener, McpServers, type McpToolServer, serveTools } from 'agenttool/mcp';
import { until } from '../../support/until';

const ping = newTool({ name: 'ping', description: 'Pong', execute: () => text('pong') });

/** A template whose URIs every caller may read: `legacy://<id>`, or `modern://<id>`. */
function items(scheme: string): McpResourceTemplate {
  return {
    uriTemplate: `${scheme}://{id}`,
    name: `${scheme}-items`,
    read: (vars) => `${scheme} item ${vars.id}`,
  };
}

/** A server of ours serving the template of `scheme`. */
function upstream(scheme: string): McpToolServer {
  return serveTools([ping], { resources: [items(scheme)] });
}

const warnings: string[] = [];
let legacyUpstream: McpToolServer;
let legacyListener: HttpListener;
let modernUpstream: McpToolServer;
let modernListener: HttpListener;
let plainUpstream: McpToolServer;
let servers: McpServers;
let composed: McpToolServer;
let listener: HttpListener;
const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];

beforeAll(async () => {
  legacyUpstream = upstream('legacy');
  legacyListener = await legacyUpstream.listenHttp({ port: 0 });
  modernUpstream = upstream('modern');
  modernListener = await modernUpstream.listenHttp({ port: 0 });
  plainUpstream = upstream('plain');
  const plainListener = await plainUpstream.listenHttp({ port: 0, stateless: true });
  servers = await McpServers.start(
    {
      mcpServers: {
        old: { url: legacyListener.url, protocol: 'legacy' },
        new: { url: modernListener.url, protocol: 'modern' },
        plain: { url: plainListener.url, protocol: 'legacy' },
      },
    },
    { onWarning: (m) => void warnings.push(m), maxResourceSubscriptions: 2 },
  );
  composed = serveTools(servers);
  listener = await composed.listenHttp({ port: 0 });
}, 60_000);

afterEach(async () => {
  // Each session ends (DELETE), and what it subscribed to with it.
  await Promise.all(
    clients.splice(0).map(async ({ client, transport }) => {
      await transport.terminateSession();
      await client.close();
    }),
  );
});

afterAll(async () => {
  await composed?.close();
  await servers?.close();
  await legacyUpstream?.close();
  await modernUpstream?.close();
  await plainUpstream?.close();
});

/** A 2025-era client of the composed server, keeping each update it is sent. */
async function connect(): Promise<{ client: Client; updates: string[] }> {
  const client = new Client({ name: 'test', version: '1' });
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notice) => {
    updates.push(notice.params.uri);
  });
  const transport = new StreamableHTTPClientTransport(new URL(listener.url));
  await client.connect(transport);
  clients.push({ client, transport });
  return { client, updates };
}

it("passes on a 2026-07-28 server's updates, followed on a subscriptions/listen stream", async () => {
  const { client, updates } = await connect();
  await expect(client.subscribeResource({ uri: 'modern://1' })).resolves.toEqual({});
  await until(() => {
    void modernUpstream.resourceUpdated('modern://1');
    return updates.length > 0;
  }, "the 2026-07-28 server's update");
  expect(new Set(updates)).toEqual(new Set(['modern://1']));
  // The server restarts on the same port; its streams ended with it, and are opened again.
  const port = Number(new URL(modernListener.url).port);
  await modernUpstream.close();
  // What the old server sent is in by now.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = updates.length;
  modernUpstream = upstream('modern');
  modernListener = await modernUpstream.listenHttp({ port });
  await until(
    () => {
      void modernUpstream.resourceUpdated('modern://1');
      return updates.length > before;
    },
    'an update from the restarted server',
    20_000,
  );
  await client.unsubscribeResource({ uri: 'modern://1' });
}, 30_000);

it('takes a subscription to a resource of a server without subscriptions, passes nothing on, and says so once', async () => {
  const { client } = await connect();
  await expect(client.subscribeResource({ uri: 'plain://1' })).resolves.toEqual({});
  await expect(client.subscribeResource({ uri: 'plain://2' })).resolves.toEqual({});
  const said = warnings.filter((w) => w.includes('no resource subscriptions'));
  expect(said).toEqual([
    'mcp server "plain": it offers no resource subscriptions: its clients\' subscriptions to its resources are taken, but its updates are not passed on',
  ]);
  // Still counted against the bound: each is a URI the composition follows.
  await client.unsubscribeResource({ uri: 'plain://1' });
  await client.unsubscribeResource({ uri: 'plain://2' });
});

it('holds at most maxResourceSubscriptions URIs, each counted once, and refuses one more naming the limit', async () => {
  const first = await connect();
  const second = await connect();
  await first.client.subscribeResource({ uri: 'legacy://1' });
  await first.client.subscribeResource({ uri: 'legacy://2' });
  // A URI followed already is no new subscription upstream.
  await expect(second.client.subscribeResource({ uri: 'legacy://2' })).resolves.toEqual({});
  await expect(second.client.subscribeResource({ uri: 'legacy://3' })).rejects.toMatchObject({
    code: -32602,
    message:
      'mcp server "old": resources/subscribe "legacy://3": the servers are subscribed to their limit of 2 resources (maxResourceSubscriptions); try again once clients unsubscribe from some',
  });
  await first.client.unsubscribeResource({ uri: 'legacy://1' });
  await expect(second.client.subscribeResource({ uri: 'legacy://3' })).resolves.toEqual({});
  await first.client.unsubscribeResource({ uri: 'legacy://2' });
  await second.client.unsubscribeResource({ uri: 'legacy://2' });
  await second.client.unsubscribeResource({ uri: 'legacy://3' });
});

it('subscribes again to a 2025-era server over HTTP that restarted in place, and passes its updates on', async () => {
  const { client, updates } = await connect();
  await client.subscribeResource({ uri: 'legacy://7' });
  await legacyUpstream.resourceUpdated('legacy://7');
  await until(() => updates.length === 1, 'the first update');
  // The server restarts on the same port: it knows neither the session nor its subscriptions.
  const port = Number(new URL(legacyListener.url).port);
  await legacyUpstream.close();
  legacyUpstream = upstream('legacy');
  legacyListener = await legacyUpstream.listenHttp({ port });
  // Told again until the composition, in its new session, has subscribed again.
  await until(
    () => {
      void legacyUpstream.resourceUpdated('legacy://7');
      return updates.length > 1;
    },
    'an update from the restarted server',
    20_000,
  );
  expect(new Set(updates)).toEqual(new Set(['legacy://7']));
}, 30_000);
