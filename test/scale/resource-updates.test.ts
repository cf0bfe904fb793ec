/**
 * Resource changes across instances that scale out (two instances sharing a Redis, in
 * this process, on 127.0.0.1): a change the application tells one instance
 * (`resourceUpdated`) reaches the subscribers of the other, in both eras, each told only
 * while its caller may read the resource; a change a resource's `follow` tells is the
 * following instance's own (each instance follows for its own subscribers), so it is
 * told once, not again through the other.
 */
import { type McpResourceTemplate, newTool } from 'agenttool';
import { connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';
import { watchedResource } from '../support/watched-resource';
import { startRedis, stopAll, TEST_STATE_KEY } from './cluster';
import { until } from '../support/until';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'x' }) });

const items: McpResourceTemplate = {
  uriTemplate: 'items://{id}',
  name: 'items',
  read: (vars) => `item ${vars.id}`,
};

/** Whether b's callers may read `hidden://...`; a test changes it. */
let hiddenReadable = true;
const hidden: McpResourceTemplate = {
  uriTemplate: 'hidden://{id}',
  name: 'hidden',
  access: { guards: [() => hiddenReadable] },
  read: (vars) => `hidden ${vars.id}`,
};

let a: McpToolServer;
let b: McpToolServer;
let bUrl: string;
let watched: ReturnType<typeof watchedResource>;
const remotes: RemoteTools[] = [];

beforeAll(async () => {
  const redis = await startRedis();
  watched = watchedResource();
  const instance = async (id: string) => {
    const server = new McpToolServer([echo], {
      resources: [items, hidden, watched.watched],
      scaleOut: { requestStateKey: TEST_STATE_KEY, redisUrl: redis.url, instanceId: id },
    });
    const listener = await server.listenHttp({});
    return { server, url: listener.url };
  };
  const [first, second] = await Promise.all([instance('a'), instance('b')]);
  a = first.server;
  ({ server: b, url: bUrl } = second);
}, 60_000);

afterEach(async () => {
  hiddenReadable = true;
  await Promise.all(remotes.splice(0).map((remote) => remote.close()));
});

afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close()]);
  stopAll();
});

/** A client of instance b in `protocol`, keeping each update it is told. */
async function clientOfB(protocol: 'legacy' | 'modern'): Promise<{
  remote: RemoteTools;
  updates: string[];
}> {
  const updates: string[] = [];
  const remote = await connectMcp({
    transport: { url: bUrl },
    protocol,
    onResourceUpdated: (uri) => void updates.push(uri),
  });
  remotes.push(remote);
  return { remote, updates };
}

/** Lets what is under way settle: notices in flight arrive, or would have. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

test.each(['legacy', 'modern'] as const)(
  "a change told to instance a reaches b's %s subscriber, once",
  async (protocol) => {
    const { remote, updates } = await clientOfB(protocol);
    await remote.subscribeResource('items://1');
    await a.resourceUpdated('items://2'); // subscribed to by no one
    await a.resourceUpdated('items://1');
    await until(() => updates.length > 0, 'the notice through Redis');
    await settle();
    expect(updates).toEqual(['items://1']);
  },
);

test('an instance checks its own callers: b tells no caller who may not read the resource', async () => {
  const { remote, updates } = await clientOfB('legacy');
  await remote.subscribeResource('hidden://1');
  await remote.subscribeResource('items://3');
  hiddenReadable = false;
  await a.resourceUpdated('hidden://1');
  await a.resourceUpdated('items://3');
  await until(() => updates.length > 0, 'the notice of items://3');
  await settle();
  expect(updates).toEqual(['items://3']);
});

test("a follow's change is told by the instance that follows, once", async () => {
  const { remote, updates } = await clientOfB('legacy');
  await remote.subscribeResource('watched://1');
  // b follows for its subscriber; a has none, and follows nothing.
  expect(watched.events).toEqual(['follow watched://1']);
  watched.told[0]!();
  await until(() => updates.length > 0, 'the notice');
  await settle();
  expect(updates).toEqual(['watched://1']);
});
