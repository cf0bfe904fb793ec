/**
 * A composed server passes its clients' resource subscriptions on to the server whose
 * resource it is: 2025-era clients (the SDK's own `Client`, over Streamable HTTP on
 * loopback, each with its bearer token) subscribe through an app that imports
 * `McpServersModule`, whose one server is a real process over stdio (a plain script
 * that writes down each `resources/subscribe` and `resources/unsubscribe` it is sent,
 * and says a resource changed when its `touch` tool is called through the composition).
 * One URI is subscribed to once upstream however many clients follow it, and
 * unsubscribed from once the last has left; a caller the module guard no longer lets
 * read the resource is told nothing; updates still come after the server restarts; a
 * flood of updates of URIs nobody follows reaches nobody.
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type AccessRequest } from 'agenttool';
import { McpServersModule, Module, ToolApp } from 'agenttool/di';
import { type HttpListener, type McpToolServer, serveTools } from 'agenttool/mcp';
import { NOTES_UPSTREAM as UPSTREAM } from '../../support/notes-upstream';

/** Whether the module guard lets bob read the servers' resources; a test changes it. */
let bobMayRead = true;
const warnings: string[] = [];
let dir: string;
let journal: string;
let app: ToolApp;
let served: McpToolServer;
let listener: HttpListener;
const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resource-subscriptions-'));
  journal = join(dir, 'journal.txt');
  writeFileSync(journal, '');
  const servers = McpServersModule.from(
    {
      mcpServers: {
        notes: { command: process.execPath, args: ['-e', UPSTREAM, journal], protocol: 'legacy' },
      },
    },
    { onWarning: (m) => void warnings.push(m), retry: { initialDelayMs: 50 } },
  );
  @Module({
    imports: [servers],
    guards: [(request: AccessRequest) => request.auth?.subject !== 'bob' || bobMayRead],
  })
  class ComposedModule {}
  app = await ToolApp.create(ComposedModule);
  served = serveTools(app);
  listener = await served.listenHttp({
    port: 0,
    auth: {
      verifyToken: (token) => ({ subject: token, clientId: token, scopes: [] }),
      authorizationServers: ['https://auth.example.test'],
    },
  });
}, 60_000);

afterEach(async () => {
  bobMayRead = true;
  // Each session ends (DELETE), and what it subscribed to with it.
  await Promise.all(
    clients.splice(0).map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }),
  );
});

afterAll(async () => {
  await served?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A 2025-era client of the composed server, as `who`, keeping each update it is sent. */
async function connect(who: string): Promise<{
  client: Client;
  transport: StreamableHTTPClientTransport;
  updates: string[];
}> {
  const client = new Client({ name: who, version: '1' });
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notice) => {
    updates.push(notice.params.uri);
  });
  const transport = new StreamableHTTPClientTransport(new URL(listener.url), {
    requestInit: { headers: { Authorization: `Bearer ${who}` } },
  });
  await client.connect(transport);
  clients.push({ client, transport });
  return { client, transport, updates };
}

/** The lines the upstream wrote, without their process id: `subscribe notes://a`. */
function upstreamSaw(): string[] {
  return lines().map((line) => line.replace(/^\d+ /, ''));
}

function lines(): string[] {
  return readFileSync(journal, 'utf8').split('\n').filter(Boolean);
}

/** The upstream says the resource at `uri` changed (its tool, called through the composition). */
async function touch(client: Client, uri: string): Promise<void> {
  const result = await client.callTool({ name: 'notes__touch', arguments: { uri } });
  expect(result.isError).toBeFalsy();
}

async function until(done: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets what is under way settle: notices in flight arrive, or would have. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 200));

function count(line: string): number {
  return upstreamSaw().filter((seen) => seen === line).length;
}

it('subscribes upstream, and passes the update of the URI subscribed to on to the client', async () => {
  const ada = await connect('ada');
  await expect(ada.client.subscribeResource({ uri: 'notes://a' })).resolves.toEqual({});
  expect(count('subscribe notes://a')).toBe(1);
  await touch(ada.client, 'notes://a');
  await until(() => ada.updates.length > 0, 'the update of notes://a');
  expect(ada.updates).toEqual(['notes://a']);
  // A URI of a template of the server is followed the same way.
  await ada.client.subscribeResource({ uri: 'items://42' });
  expect(count('subscribe items://42')).toBe(1);
  await touch(ada.client, 'items://42');
  await until(() => ada.updates.length > 1, 'the update of items://42');
  expect(ada.updates).toEqual(['notes://a', 'items://42']);
  await ada.client.unsubscribeResource({ uri: 'notes://a' });
  await ada.client.unsubscribeResource({ uri: 'items://42' });
  await until(() => count('unsubscribe items://42') === 1, 'the upstream unsubscribe');
  expect(count('unsubscribe notes://a')).toBe(1);
});

it('makes one upstream subscription for two clients, and unsubscribes once both have left', async () => {
  const ada = await connect('ada');
  const cy = await connect('cy');
  await ada.client.subscribeResource({ uri: 'notes://b' });
  await cy.client.subscribeResource({ uri: 'notes://b' });
  expect(count('subscribe notes://b')).toBe(1);
  await touch(ada.client, 'notes://b');
  await until(() => ada.updates.length > 0 && cy.updates.length > 0, 'both updates');
  // One leaves by unsubscribing: the other still follows it, so the server is not told.
  await ada.client.unsubscribeResource({ uri: 'notes://b' });
  await touch(cy.client, 'notes://b');
  await until(() => cy.updates.length > 1, 'the second update');
  await settle();
  expect(ada.updates).toEqual(['notes://b']);
  expect(cy.updates).toEqual(['notes://b', 'notes://b']);
  expect(count('unsubscribe notes://b')).toBe(0);
  // The other leaves by ending its session: the server is unsubscribed.
  await cy.transport.terminateSession();
  await until(() => count('unsubscribe notes://b') === 1, 'the upstream unsubscribe');
  expect(count('subscribe notes://b')).toBe(1);
});

it('tells a caller the guard no longer lets read the resource nothing, and the others still', async () => {
  const ada = await connect('ada');
  const bob = await connect('bob');
  await ada.client.subscribeResource({ uri: 'notes://a' });
  await bob.client.subscribeResource({ uri: 'notes://a' });
  bobMayRead = false;
  await touch(ada.client, 'notes://a');
  await until(() => ada.updates.length > 0, "ada's update");
  await settle();
  expect(ada.updates).toEqual(['notes://a']);
  expect(bob.updates).toEqual([]);
  // Nor can bob subscribe to another of them: it reads as a resource that does not exist.
  await expect(bob.client.subscribeResource({ uri: 'notes://b' })).rejects.toMatchObject({
    code: -32602,
  });
  bobMayRead = true;
  await touch(ada.client, 'notes://a');
  await until(() => bob.updates.length > 0, "bob's update");
  expect(bob.updates).toEqual(['notes://a']);
});

it("answers a subscription the server refuses (a URI it does not have) with the server's refusal", async () => {
  const ada = await connect('ada');
  const refused = await ada.client.subscribeResource({ uri: 'items://gone' }).then(
    () => undefined,
    (error: unknown) => error as { code: number; message: string; data?: unknown },
  );
  expect(refused).toMatchObject({
    code: -32602,
    message:
      'mcp server "notes": resources/subscribe "items://gone": it refused: Resource items://gone not found',
    data: { uri: 'items://gone' },
  });
  // Refused, so not held: asked again, the server is asked again.
  await expect(ada.client.subscribeResource({ uri: 'items://gone' })).rejects.toMatchObject({
    code: -32602,
  });
  // A server's long refusal reaches the client cut, saying so.
  const wordy = await ada.client.subscribeResource({ uri: 'items://wordy' }).then(
    () => '',
    (error: unknown) => (error as Error).message,
  );
  expect(wordy).toContain(`it refused: ${'no '.repeat(333)}n... (5000 more characters)`);
  expect(wordy.length).toBeLessThan(1200);
});

it('drops a flood of updates of URIs nobody follows, and passes on the one followed', async () => {
  const ada = await connect('ada');
  await ada.client.subscribeResource({ uri: 'notes://a' });
  const result = await ada.client.callTool({ name: 'notes__flood', arguments: { count: 20_000 } });
  expect(result.isError).toBeFalsy();
  await touch(ada.client, 'notes://a');
  await until(() => ada.updates.length > 0, 'the update of notes://a');
  await settle();
  expect(ada.updates).toEqual(['notes://a']);
  expect(warnings.filter((w) => w.includes('unfollowed'))).toEqual([]);
});

it('subscribes again after the server restarts, and updates still arrive', async () => {
  const ada = await connect('ada');
  await ada.client.subscribeResource({ uri: 'notes://b' });
  const before = lines().filter((line) => line.endsWith(' start'));
  const pid = Number(before.at(-1)!.split(' ')[0]);
  process.kill(pid, 'SIGKILL');
  await until(() => restarted(before.length), 'the server to start again', 15_000);
  const fresh = lines()
    .filter((line) => line.endsWith(' start'))
    .at(-1)!
    .split(' ')[0];
  await until(
    () => lines().includes(`${fresh} subscribe notes://b`),
    'the subscription to be made again',
    15_000,
  );
  // Its tools and resources come back too; the update comes from the new process.
  await until(() => warnings.some((w) => w.includes('connected again')), 'the tools to come back');
  await until(() => app.resources.length > 0, 'the resources to come back');
  await touch(ada.client, 'notes://b');
  await until(() => ada.updates.length > 0, 'the update after the restart');
  expect(ada.updates).toEqual(['notes://b']);
}, 30_000);

function restarted(starts: number): boolean {
  return lines().filter((line) => line.endsWith(' start')).length > starts;
}
