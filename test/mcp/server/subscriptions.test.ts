/**
 * 2025-era `resources/subscribe`: who may subscribe (as who may read, and a refusal that
 * reads as an unknown resource), who is told of a change (checked again then), how many
 * URIs and how long a one a session may hold, and none on a stateless endpoint, whose
 * connection ends with its request.
 */
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type McpResource, type McpResourceTemplate, newTool } from 'agenttool';
import {
  DEFAULT_MAX_SUBSCRIPTION_URI_BYTES,
  type McpServerOptions,
  McpToolServer,
} from 'agenttool/mcp';
import { overMemory } from './helpers';
import { INITIALIZE } from '../../support/initialize';
import { watchedResource } from '../../support/watched-resource';
import { until } from '../../support/until';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'x' }) });

/** Whether the guarded resource's guard lets its caller in; a test changes it. */
let guardAllows = true;

const secretItems: McpResourceTemplate = {
  uriTemplate: 'secret-items://{id}',
  name: 'secret-items',
  access: { scopes: ['secret'] },
  read: (vars) => `secret item ${vars.id}`,
};
const items: McpResourceTemplate = {
  uriTemplate: 'items://{id}',
  name: 'items',
  read: (vars) => `item ${vars.id}`,
};
const resources: (McpResource | McpResourceTemplate)[] = [
  { uri: 'notes://public', name: 'public', read: () => 'public text' },
  { uri: 'secret://plan', name: 'plan', access: { scopes: ['secret'] }, read: () => 'plan' },
  secretItems,
  {
    uri: 'guarded://doc',
    name: 'guarded',
    access: { guards: [() => guardAllows] },
    read: () => 'guarded text',
  },
  items,
];

const servers: McpToolServer[] = [];

function serve(options: McpServerOptions = {}): McpToolServer {
  // The in-memory connection's caller holds the basic scope, not the secret one.
  const server = new McpToolServer([echo], {
    resources,
    localAuth: { subject: 'bob', clientId: 'bob', scopes: ['basic'] },
    ...options,
  });
  servers.push(server);
  return server;
}

afterEach(async () => {
  guardAllows = true;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    const { code, message, data } = error as Record<string, unknown>;
    return { code, message, data };
  }
  throw new Error('expected a rejection');
}

describe('access', () => {
  test('a resource the caller may not read is refused as read refuses an unknown one', async () => {
    const { client, close } = await overMemory(serve());
    for (const uri of ['secret://plan', 'secret-items://42']) {
      const read = await rejection(client.readResource({ uri }));
      expect(read).toMatchObject({ code: -32602, data: { uri } });
      // The same answer, so the refusal tells nothing of whether the resource is there.
      expect(await rejection(client.subscribeResource({ uri }))).toEqual(read);
      const unknown = uri.replace('secret', 'nothing');
      const none = await rejection(client.subscribeResource({ uri: unknown }));
      expect(none).toEqual({
        ...read,
        message: String(read.message).replace(uri, unknown),
        data: { uri: unknown },
      });
    }
    await expect(client.subscribeResource({ uri: 'notes://public' })).resolves.toEqual({});
    await close();
  });

  test('a subscriber is told of a change only while it may still read the resource', async () => {
    const server = serve();
    const { client, close } = await overMemory(server);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notice) => {
      updates.push(notice.params.uri);
    });
    await client.subscribeResource({ uri: 'guarded://doc' });
    await server.resourceUpdated('guarded://doc');
    await client.ping(); // the notices before it have arrived
    expect(updates).toEqual(['guarded://doc']);
    guardAllows = false;
    await server.resourceUpdated('guarded://doc');
    await client.ping();
    expect(updates).toEqual(['guarded://doc']);
    guardAllows = true;
    await server.resourceUpdated('guarded://doc');
    await client.ping();
    expect(updates).toEqual(['guarded://doc', 'guarded://doc']);
    await close();
  });
});

describe('limits', () => {
  test('past maxSubscriptionsPerSession a new URI is refused naming the limit', async () => {
    const { client, close } = await overMemory(serve({ maxSubscriptionsPerSession: 3 }));
    for (const id of ['1', '2', '3']) await client.subscribeResource({ uri: `items://${id}` });
    // One already held is no new subscription.
    await expect(client.subscribeResource({ uri: 'items://2' })).resolves.toEqual({});
    expect(await rejection(client.subscribeResource({ uri: 'items://4' }))).toEqual({
      code: -32602,
      message:
        'MCP error -32602: mcp: resources/subscribe: the session holds its limit of 3 subscriptions (maxSubscriptionsPerSession); unsubscribe from one first',
      data: undefined,
    });
    await client.unsubscribeResource({ uri: 'items://1' });
    await expect(client.subscribeResource({ uri: 'items://4' })).resolves.toEqual({});
    await close();
  });

  test('a URI longer than maxSubscriptionUriBytes (8 KiB by default) is refused giving both sizes', async () => {
    const { client, close } = await overMemory(serve());
    const at = `items://${'a'.repeat(DEFAULT_MAX_SUBSCRIPTION_URI_BYTES - 'items://'.length)}`;
    await expect(client.subscribeResource({ uri: at })).resolves.toEqual({});
    const over = `${at}b`;
    expect(await rejection(client.subscribeResource({ uri: over }))).toMatchObject({
      code: -32602,
      message: `MCP error -32602: mcp: resources/subscribe: the URI is 8193 bytes, over the limit of 8192 (maxSubscriptionUriBytes); subscribe to a shorter one`,
    });
    await close();
  });

  test('the limits are whole numbers of at least 1', () => {
    expect(() => serve({ maxSubscriptionsPerSession: 0 })).toThrow(
      'mcp: maxSubscriptionsPerSession must be a whole number, at least 1, got 0',
    );
    expect(() => serve({ maxSubscriptionUriBytes: 1.5 })).toThrow(
      'mcp: maxSubscriptionUriBytes must be a whole number, at least 1, got 1.5',
    );
  });
});

describe('a stateless endpoint', () => {
  async function post(
    fetch: (request: Request) => Promise<Response>,
    body: object,
  ): Promise<Record<string, unknown>> {
    const response = await fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(body),
      }),
    );
    const text = await response.text();
    const data = text
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice(6);
    return JSON.parse(data ?? text) as Record<string, unknown>;
  }

  test('offers no subscriptions and answers resources/subscribe as an unknown method', async () => {
    const handler = serve().handler({ stateless: true });
    const opened = await post(handler.fetch, {
      ...INITIALIZE,
      params: { ...INITIALIZE.params, protocolVersion: '2025-11-25' },
    });
    expect(opened).toMatchObject({
      result: { capabilities: { resources: { listChanged: false } } },
    });
    const capabilities = (opened.result as { capabilities: { resources: object } }).capabilities;
    expect(capabilities.resources).not.toHaveProperty('subscribe');
    const subscribed = await post(handler.fetch, {
      jsonrpc: '2.0',
      id: 2,
      method: 'resources/subscribe',
      params: { uri: 'notes://public' },
    });
    expect(subscribed).toMatchObject({ error: { code: -32601 } });
    // The rest of the resources is served as before.
    const read = await post(handler.fetch, {
      jsonrpc: '2.0',
      id: 3,
      method: 'resources/read',
      params: { uri: 'notes://public' },
    });
    expect(read).toMatchObject({ result: { contents: [{ text: 'public text' }] } });
    await handler.close();
  });
});

describe('a resource that follows its subscribers (follow)', () => {
  test('is followed once for every connection, tells them of changes, and stops after the last has gone', async () => {
    const { watched, events, told } = watchedResource();
    const server = serve({ resources: [watched] });
    const one = await overMemory(server);
    const two = await overMemory(server);
    const updates: string[][] = [[], []];
    for (const [i, { client }] of [one, two].entries()) {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notice) => {
        updates[i]!.push(notice.params.uri);
      });
      await client.subscribeResource({ uri: 'watched://1' });
    }
    expect(events).toEqual(['follow watched://1']);
    told[0]!();
    await until(() => updates.every((u) => u.length === 1), 'both notices');
    expect(updates).toEqual([['watched://1'], ['watched://1']]);
    // One unsubscribes, the other's connection ends: then it is no longer followed.
    await one.client.unsubscribeResource({ uri: 'watched://1' });
    expect(events).toEqual(['follow watched://1']);
    await two.close();
    await until(() => events.length === 2, 'the stop');
    expect(events).toEqual(['follow watched://1', 'stop watched://1']);
    // A change told after the stop reaches nobody, and costs nothing.
    told[0]!();
    await one.client.subscribeResource({ uri: 'watched://2' });
    expect(events).toEqual(['follow watched://1', 'stop watched://1', 'follow watched://2']);
    await one.close();
  });

  test('a follow that fails refuses the subscription with its message; the next one asks again', async () => {
    let full = true;
    const watched: McpResource = {
      uri: 'watched://only',
      name: 'only',
      read: () => 'only',
      follow: async () => {
        if (full) throw new Error('the watcher is full');
        return () => undefined;
      },
    };
    const { client, close } = await overMemory(serve({ resources: [watched] }));
    expect(await rejection(client.subscribeResource({ uri: 'watched://only' }))).toEqual({
      code: -32603,
      message: 'MCP error -32603: mcp: resources/subscribe "watched://only": the watcher is full',
      data: undefined,
    });
    full = false;
    await expect(client.subscribeResource({ uri: 'watched://only' })).resolves.toEqual({});
    await close();
  });
});
