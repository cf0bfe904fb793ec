/**
 * 2026-07-28 resource subscriptions (`subscriptions/listen` with `resourceSubscriptions`)
 * over HTTP on 127.0.0.1, with the guarantees of the 2025-era `resources/subscribe`:
 * offered when the server has resources; each URI checked as a read is (one the caller
 * may not read is refused as an unknown resource), within the bounds; a change told
 * only while the caller may still read the resource; a resource's `follow` held while
 * the stream is open and stopped when it ends.
 */
import { type McpResource, type McpResourceTemplate, newTool } from 'agenttool';
import { connectMcp, type McpServerOptions, type McpToolServer, serveTools } from 'agenttool/mcp';
import { modern } from '../auth/helpers';
import { watchedResource } from '../../support/watched-resource';
import { until } from '../../support/until';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'x' }) });

const items: McpResourceTemplate = {
  uriTemplate: 'items://{id}',
  name: 'items',
  read: (vars) => `item ${vars.id}`,
};

/** Whether the guarded resource's guard lets its caller in; a test changes it. */
let guardAllows = true;

const resources: (McpResource | McpResourceTemplate)[] = [
  { uri: 'notes://public', name: 'public', read: () => 'public text' },
  // The callers here hold no scope: this one is theirs to neither read nor follow.
  { uri: 'secret://plan', name: 'plan', access: { scopes: ['secret'] }, read: () => 'plan' },
  {
    uri: 'guarded://doc',
    name: 'guarded',
    access: { guards: [() => guardAllows] },
    read: () => 'guarded text',
  },
  items,
];

const servers: McpToolServer[] = [];

async function listening(options: McpServerOptions = {}): Promise<{
  server: McpToolServer;
  url: string;
}> {
  const server = serveTools([echo], { resources, ...options });
  servers.push(server);
  const { url } = await server.listenHttp({});
  return { server, url };
}

afterEach(async () => {
  guardAllows = true;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** One raw `subscriptions/listen` stream, its messages read one at a time. */
class Listen {
  readonly #stop = new AbortController();
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #text = '';
  response!: Response;

  static async open(url: string, uris: string[], id = 7): Promise<Listen> {
    const listen = new Listen();
    listen.response = await fetch(url, {
      method: 'POST',
      signal: listen.#stop.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify(
        modern('subscriptions/listen', { notifications: { resourceSubscriptions: uris } }, {}, id),
      ),
    });
    return listen;
  }

  /** The answer of a listen refused at once: its JSON-RPC error. */
  async error(): Promise<{ code: number; message: string; data?: unknown }> {
    expect(this.response.headers.get('content-type')).toContain('application/json');
    const body = (await this.response.json()) as {
      error: { code: number; message: string; data?: unknown };
    };
    return body.error;
  }

  /** The next message on the stream (undefined once it ended). */
  async next(): Promise<{ method?: string; params?: Record<string, unknown> } | undefined> {
    this.#reader ??= this.response.body!.getReader();
    for (;;) {
      const end = this.#text.indexOf('\n\n');
      if (end >= 0) {
        const frame = this.#text.slice(0, end);
        this.#text = this.#text.slice(end + 2);
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (data !== undefined) return JSON.parse(data.slice(6)) as never;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#text += new TextDecoder().decode(value);
    }
  }

  close(): void {
    this.#stop.abort();
  }
}

describe('a 2026-07-28 client', () => {
  test('is offered subscriptions and told of a change to what it listens to, through connectMcp', async () => {
    const { server, url } = await listening();
    const updated: string[] = [];
    const remote = await connectMcp({
      transport: { url },
      protocol: 'modern',
      onResourceUpdated: (uri) => void updated.push(uri),
    });
    try {
      await remote.subscribeResource('notes://public');
      await remote.subscribeResource('items://7');
      await server.resourceUpdated('items://8'); // not listened to
      await server.resourceUpdated('items://7');
      await server.resourceUpdated('notes://public');
      await until(() => updated.length === 2, 'both notices');
      expect(updated.sort()).toEqual(['items://7', 'notes://public']);
    } finally {
      await remote.close();
    }
  });

  test('a server without resources offers no subscriptions', async () => {
    const server = serveTools([echo]);
    servers.push(server);
    const { url } = await server.listenHttp({});
    const remote = await connectMcp({ transport: { url }, protocol: 'modern' });
    try {
      await expect(remote.subscribeResource('notes://public')).rejects.toThrow(
        /does not offer resource subscriptions/,
      );
    } finally {
      await remote.close();
    }
  });
});

describe('access', () => {
  test('a URI the caller may not read is refused at listen as an unknown one, whole', async () => {
    const { url } = await listening();
    const secret = await Listen.open(url, ['notes://public', 'secret://plan']);
    const unknown = await Listen.open(url, ['notes://public', 'nothing://here']);
    const refused = await secret.error();
    expect(refused).toEqual({
      code: -32602,
      message: 'mcp: unknown resource "secret://plan"',
      data: { uri: 'secret://plan' },
    });
    // The same answer as for a resource nobody serves: it tells nothing of the secret.
    const none = await unknown.error();
    expect(none).toEqual({
      code: -32602,
      message: 'mcp: unknown resource "nothing://here"',
      data: { uri: 'nothing://here' },
    });
  });

  test('a listener is told of a change only while it may still read the resource', async () => {
    const { server, url } = await listening();
    const listen = await Listen.open(url, ['guarded://doc', 'notes://public']);
    expect((await listen.next())?.method).toBe('notifications/subscriptions/acknowledged');
    await server.resourceUpdated('guarded://doc');
    expect((await listen.next())?.params).toMatchObject({ uri: 'guarded://doc' });
    // Its access is revoked: the next change to it is not told, the public one is.
    guardAllows = false;
    await server.resourceUpdated('guarded://doc');
    await server.resourceUpdated('notes://public');
    expect((await listen.next())?.params).toMatchObject({ uri: 'notes://public' });
    listen.close();
  });
});

describe('limits', () => {
  test('a listen naming more URIs than maxSubscriptionsPerSession is refused naming the limit', async () => {
    const { url } = await listening({ maxSubscriptionsPerSession: 2 });
    const refused = await (await Listen.open(url, ['items://1', 'items://2', 'items://3'])).error();
    expect(refused.code).toBe(-32602);
    expect(refused.message).toBe(
      'mcp: subscriptions/listen: resourceSubscriptions names 3 URIs, over the limit of 2 (maxSubscriptionsPerSession); listen to fewer',
    );
    // A URI named twice counts once.
    const within = await Listen.open(url, ['items://1', 'items://2', 'items://1']);
    expect((await within.next())?.method).toBe('notifications/subscriptions/acknowledged');
    within.close();
  });

  test("a caller's streams and sessions hold at most maxSubscriptionsPerSubject URIs together", async () => {
    // Every request here comes from one address: one caller.
    const { url } = await listening({ maxSubscriptionsPerSubject: 3 });
    const first = await Listen.open(url, ['items://1', 'items://2']);
    expect((await first.next())?.method).toBe('notifications/subscriptions/acknowledged');
    const refused = await (await Listen.open(url, ['items://3', 'items://4'], 8)).error();
    expect(refused.code).toBe(-32602);
    expect(refused.message).toBe(
      'mcp: subscriptions/listen: the caller holds 2 subscriptions over its sessions and streams, and 2 more would pass its limit of 3 (maxSubscriptionsPerSubject); unsubscribe from some first',
    );
    // A 2025-era session of the same caller counts with its streams.
    const legacy = await connectMcp({ transport: { url }, protocol: 'legacy' });
    try {
      await legacy.subscribeResource('items://9');
      await expect(legacy.subscribeResource('items://10')).rejects.toThrow(
        'mcp: resources/subscribe: the caller holds 3 subscriptions over its sessions and streams, and 1 more would pass its limit of 3 (maxSubscriptionsPerSubject); unsubscribe from some first',
      );
      // A stream that ends gives its URIs back (once the server has seen it end).
      first.close();
      let taken = false;
      for (let i = 0; i < 250 && !taken; i++) {
        taken = await legacy.subscribeResource('items://10').then(
          () => true,
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return false;
          },
        );
      }
      expect(taken).toBe(true);
    } finally {
      await legacy.close();
    }
  });

  test('a URI longer than maxSubscriptionUriBytes is refused giving both sizes', async () => {
    const { url } = await listening({ maxSubscriptionUriBytes: 16 });
    const refused = await (await Listen.open(url, ['items://1', 'items://0123456789'])).error();
    expect(refused.code).toBe(-32602);
    expect(refused.message).toBe(
      'mcp: subscriptions/listen: a URI is 18 bytes, over the limit of 16 (maxSubscriptionUriBytes); listen to a shorter one',
    );
  });
});

describe('a resource that follows its subscribers (follow)', () => {
  test('is followed while a stream listens to it, tells it of changes, and is stopped when it closes', async () => {
    const { watched, events, told } = watchedResource();
    const { url, server } = await listening({ resources: [watched] });
    const one = await Listen.open(url, ['watched://1']);
    const two = await Listen.open(url, ['watched://1'], 8);
    expect((await one.next())?.method).toBe('notifications/subscriptions/acknowledged');
    expect((await two.next())?.method).toBe('notifications/subscriptions/acknowledged');
    expect(events).toEqual(['follow watched://1']);
    told[0]!();
    expect((await one.next())?.params).toMatchObject({ uri: 'watched://1' });
    expect((await two.next())?.params).toMatchObject({ uri: 'watched://1' });
    // The client closes one stream: still followed for the other, stopped after it.
    one.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['follow watched://1']);
    two.close();
    await until(() => events.length === 2, 'the stop');
    expect(events).toEqual(['follow watched://1', 'stop watched://1']);
    // The server closing ends a stream: what it followed is stopped too.
    const three = await Listen.open(url, ['watched://2']);
    expect((await three.next())?.method).toBe('notifications/subscriptions/acknowledged');
    expect(events).toContain('follow watched://2');
    await server.close();
    await until(() => events.includes('stop watched://2'), 'the stop at close');
  });

  test('a follow that fails refuses the listen with its message, holding nothing', async () => {
    const events: string[] = [];
    const watched: McpResource[] = [
      {
        uri: 'watched://fine',
        name: 'fine',
        read: () => 'fine',
        follow: () => {
          events.push('follow fine');
          return () => void events.push('stop fine');
        },
      },
      {
        uri: 'watched://broken',
        name: 'broken',
        read: () => 'broken',
        follow: () => Promise.reject(new Error('the upstream is full')),
      },
    ];
    const { url } = await listening({ resources: watched });
    const refused = await (await Listen.open(url, ['watched://fine', 'watched://broken'])).error();
    expect(refused).toEqual({
      code: -32603,
      message: 'mcp: subscriptions/listen "watched://broken": the upstream is full',
    });
    await until(() => events.length === 2, 'the stop');
    expect(events).toEqual(['follow fine', 'stop fine']);
  });
});
