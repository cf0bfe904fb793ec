/**
 * 2026-07-28 resource subscriptions over stdio, as a host writes them (JSON lines of
 * `subscriptions/listen` with `resourceSubscriptions`), with what the HTTP endpoint
 * guarantees: offered when the server has resources; each URI checked as a read is (one
 * the caller may not read refused as an unknown resource); a change told to the listens
 * of its URI only, stamped with their ids; a resource's `follow` held while a listen is
 * open and stopped when it is cancelled or the connection ends.
 */
import { PassThrough } from 'node:stream';
import { type McpResource, newTool } from 'agenttool';
import { type McpToolServer, serveTools, type StdioConnection } from 'agenttool/mcp';
import { modern } from '../auth/helpers';
import { watchedResource } from '../../support/watched-resource';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'x' }) });

interface Message {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** One stdio connection to `server`, its output read as lines. */
class Wire {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly #received: Message[] = [];
  #text = '';
  connection!: StdioConnection;

  static async open(server: McpToolServer): Promise<Wire> {
    const wire = new Wire();
    wire.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      wire.#text += chunk;
      for (let end = wire.#text.indexOf('\n'); end >= 0; end = wire.#text.indexOf('\n')) {
        const line = wire.#text.slice(0, end);
        wire.#text = wire.#text.slice(end + 1);
        if (line.trim() !== '') wire.#received.push(JSON.parse(line) as Message);
      }
    });
    wire.connection = await server.serveStdio({ stdin: wire.stdin, stdout: wire.stdout });
    return wire;
  }

  send(message: object): void {
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** The first message not taken yet that `matches`, taken (waits for it, boundedly). */
  async take(matches: (message: Message) => boolean, what: string): Promise<Message> {
    for (let i = 0; i < 500; i++) {
      const at = this.#received.findIndex(matches);
      if (at >= 0) return this.#received.splice(at, 1)[0]!;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`waited in vain for ${what}; received ${JSON.stringify(this.#received)}`);
  }

  /** The messages received and not taken. */
  get left(): readonly Message[] {
    return this.#received;
  }
}

const listen = (uris: string[], id: number): object =>
  modern('subscriptions/listen', { notifications: { resourceSubscriptions: uris } }, {}, id);

const updated = (uri: string, id: number) => (message: Message) =>
  message.method === 'notifications/resources/updated' &&
  message.params?.uri === uri &&
  message.params._meta?.[SUBSCRIPTION_ID] === id;

const acknowledged = (id: number) => (message: Message) =>
  message.method === 'notifications/subscriptions/acknowledged' &&
  message.params?._meta?.[SUBSCRIPTION_ID] === id;

const servers: McpToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function served(resources: McpResource[], more: Parameters<typeof serveTools>[1] = {}) {
  const { watched, events, told } = watchedResource();
  const server = serveTools([echo], { resources: [...resources, watched], ...more });
  servers.push(server);
  return { server, events, told };
}

const notes: McpResource = { uri: 'notes://public', name: 'public', read: () => 'public text' };
const secret: McpResource = {
  uri: 'secret://plan',
  name: 'plan',
  access: { scopes: ['secret'] },
  read: () => 'plan',
};

test('offers subscriptions, holds what a listen follows and tells it of its changes only', async () => {
  const { server, events, told } = served([notes]);
  const wire = await Wire.open(server);
  wire.send(modern('server/discover', {}, {}, 1));
  const discovered = await wire.take((m) => m.id === 1, 'the discover answer');
  expect(discovered.result?.capabilities).toMatchObject({ resources: { subscribe: true } });

  wire.send(listen(['notes://public', 'watched://1'], 7));
  const ack = await wire.take(acknowledged(7), 'the acknowledgement');
  expect(ack.params?.notifications).toMatchObject({
    resourceSubscriptions: ['notes://public', 'watched://1'],
  });
  expect(events).toEqual(['follow watched://1']);

  await server.resourceUpdated('notes://other'); // listened to by no one
  await server.resourceUpdated('notes://public');
  await wire.take(updated('notes://public', 7), 'the notice of notes://public');
  told[0]!();
  await wire.take(updated('watched://1', 7), 'the notice of watched://1');

  // A second listen of the same URI: one follow, a notice for each listen.
  wire.send(listen(['watched://1'], 8));
  await wire.take(acknowledged(8), 'the second acknowledgement');
  expect(events).toEqual(['follow watched://1']);
  told[0]!();
  await wire.take(updated('watched://1', 7), 'the first listen told');
  await wire.take(updated('watched://1', 8), 'the second listen told');

  // The first is cancelled: followed still for the second; then the second is too.
  wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await server.resourceUpdated('notes://public');
  expect(events).toEqual(['follow watched://1']);
  wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } });
  for (let i = 0; i < 100 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  expect(events).toEqual(['follow watched://1', 'stop watched://1']);
  told[0]!();
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(wire.left.filter((m) => m.method === 'notifications/resources/updated')).toEqual([]);
});

test('refuses a URI the caller may not read as an unknown one, holding nothing', async () => {
  const { server, events } = served([notes, secret]);
  const wire = await Wire.open(server);
  wire.send(listen(['watched://3', 'secret://plan'], 4));
  const refused = await wire.take((m) => m.id === 4, 'the refusal');
  expect(refused.error).toEqual({
    code: -32602,
    message: 'mcp: unknown resource "secret://plan"',
    data: { uri: 'secret://plan' },
  });
  wire.send(listen(['nothing://here'], 5));
  expect((await wire.take((m) => m.id === 5, 'the second refusal')).error?.message).toBe(
    'mcp: unknown resource "nothing://here"',
  );
  // Checked before anything was followed.
  expect(events).toEqual([]);
});

test('refuses a listen over maxSubscriptionsPerSession, naming the limit', async () => {
  const { server } = served([notes], { maxSubscriptionsPerSession: 1 });
  const wire = await Wire.open(server);
  wire.send(listen(['notes://public', 'watched://1'], 3));
  expect((await wire.take((m) => m.id === 3, 'the refusal')).error?.message).toBe(
    'mcp: subscriptions/listen: resourceSubscriptions names 2 URIs, over the limit of 1 (maxSubscriptionsPerSession); listen to fewer',
  );
});

test('stops what a listen followed when the connection ends', async () => {
  const { server, events } = served([notes]);
  const wire = await Wire.open(server);
  wire.send(listen(['watched://2'], 9));
  await wire.take(acknowledged(9), 'the acknowledgement');
  expect(events).toEqual(['follow watched://2']);
  wire.stdin.end();
  await wire.connection.closed;
  for (let i = 0; i < 100 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  expect(events).toEqual(['follow watched://2', 'stop watched://2']);
});

test('a listen cancelled while it is checked holds nothing once it settles', async () => {
  const { server, events } = served([notes]);
  const wire = await Wire.open(server);
  // Both in one write: the cancel is read while the listen's URIs are being checked.
  wire.stdin.write(
    `${JSON.stringify(listen(['watched://5'], 6))}\n${JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 6 },
    })}\n`,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(events.filter((e) => e === 'follow watched://5').length).toBe(
    events.filter((e) => e === 'stop watched://5').length,
  );
  expect(wire.left.filter(acknowledged(6))).toEqual([]);
});

test('a server without resources offers none, and holds nothing for a listen', async () => {
  const server = serveTools([echo]);
  servers.push(server);
  const wire = await Wire.open(server);
  wire.send(modern('server/discover', {}, {}, 1));
  const discovered = await wire.take((m) => m.id === 1, 'the discover answer');
  expect(discovered.result?.capabilities).not.toHaveProperty('resources');
  wire.send(listen(['notes://public'], 2));
  expect((await wire.take((m) => m.id === 2, 'the refusal')).error?.message).toBe(
    'mcp: unknown resource "notes://public"',
  );
});
