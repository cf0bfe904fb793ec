/**
 * `serve --config` over stdio to a host that speaks 2026-07-28 alone: its
 * `subscriptions/listen` of a configured server's resource reaches that server as a
 * `resources/subscribe` (its stand-in, a plain script over stdio, writes down what it is
 * sent), a change the server tells comes back to the host stamped with the listen's id,
 * and the cancelled listen unsubscribes upstream.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext } from 'agenttool';
import { connectMcp } from 'agenttool/mcp';
import { CLI, ensureBuilt, killChildren, startAgenttool, tempDir } from './helpers';
import { NOTES_UPSTREAM } from '../support/notes-upstream';
import { modern } from '../mcp/auth/helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

interface Message {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: { uri?: unknown; _meta?: Record<string, unknown> };
  readonly result?: { capabilities?: unknown; isError?: boolean };
}

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`waited in vain for ${what}`);
}

/** A configuration of the notes server, writing to a new journal; both paths. */
function configured(): { config: string; journal: string } {
  const dir = tempDir();
  const journal = join(dir, 'journal.txt');
  writeFileSync(journal, '');
  const config = join(dir, 'servers.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        notes: {
          command: process.execPath,
          args: ['-e', NOTES_UPSTREAM, journal],
          protocol: 'legacy',
        },
      },
    }),
  );
  return { config, journal };
}

function upstreamSaw(journal: string): string[] {
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^\d+ /, ''));
}

it("passes a 2026-07-28 listen of a configured server's resource on to it, and its changes back", async () => {
  const { config, journal } = configured();
  const composed = startAgenttool(['serve', '--config', config]);
  const received: Message[] = [];
  let text = '';
  composed.process.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    const lines = text.split('\n');
    text = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') received.push(JSON.parse(line) as Message);
  });
  const send = (message: object): void => void composed.stdin.write(`${JSON.stringify(message)}\n`);

  send(modern('server/discover', {}, {}, 1));
  const discovered = await until(() => received.find((m) => m.id === 1), 'the discover answer');
  expect(discovered.result?.capabilities).toMatchObject({ resources: { subscribe: true } });

  send(
    modern(
      'subscriptions/listen',
      { notifications: { resourceSubscriptions: ['notes://a'] } },
      {},
      7,
    ),
  );
  await until(
    () =>
      received.find(
        (m) =>
          m.method === 'notifications/subscriptions/acknowledged' &&
          m.params?._meta?.[SUBSCRIPTION_ID] === 7,
      ),
    'the acknowledgement',
  );
  expect(upstreamSaw(journal)).toContain('subscribe notes://a');

  send(modern('tools/call', { name: 'notes__touch', arguments: { uri: 'notes://a' } }, {}, 2));
  const touched = await until(() => received.find((m) => m.id === 2), 'the touch answer');
  expect(touched.result?.isError).toBeFalsy();
  await until(
    () =>
      received.find(
        (m) =>
          m.method === 'notifications/resources/updated' &&
          m.params?.uri === 'notes://a' &&
          m.params._meta?.[SUBSCRIPTION_ID] === 7,
      ),
    'the notice of notes://a',
  );

  send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
  await until(
    () => (upstreamSaw(journal).includes('unsubscribe notes://a') ? true : undefined),
    'the unsubscribe upstream',
  );
  composed.stdin.end();
  expect((await composed.done).code).toBe(0);
}, 60_000);

it('is listened to over stdio by connectMcp in 2026-07-28, which is told of changes and unsubscribes', async () => {
  const { config, journal } = configured();
  const updates: string[] = [];
  const remote = await connectMcp({
    transport: {
      command: process.execPath,
      args: [CLI, 'serve', '--config', config],
      stderr: 'ignore',
    },
    protocol: 'modern',
    onResourceUpdated: (uri) => void updates.push(uri),
  });
  try {
    await remote.subscribeResource('notes://b');
    await until(
      () => (upstreamSaw(journal).includes('subscribe notes://b') ? true : undefined),
      'the subscribe upstream',
    );
    const touch = remote.tools().find((tool) => tool.name.endsWith('notes__touch'));
    if (touch === undefined) throw new Error('the composed server lists no notes__touch');
    const touched = await touch.execute(
      { id: 'c1', args: JSON.stringify({ uri: 'notes://b' }) },
      createContext(),
    );
    expect(touched.output).toBe('done');
    await until(
      () => (updates.includes('notes://b') ? true : undefined),
      'the notice of notes://b',
    );
    await remote.unsubscribeResource('notes://b');
    await until(
      () => (upstreamSaw(journal).includes('unsubscribe notes://b') ? true : undefined),
      'the unsubscribe upstream',
    );
  } finally {
    await remote.close();
  }
}, 60_000);
