// What a served message leaves for the old generation. The SDK tells a message's kind by
// trying zod schemas in turn (a result, an error, then a request), and a zod 4
// `safeParse` that fails keeps the value it failed on alive through young collections
// until the next full one (its result object gets a V8 map of its own, in the old
// generation). Our server tells requests and notifications first, so serving them moves
// next to nothing to the old generation. The child process measures the old space's
// growth over many pings and notifications, once for our server and once for the SDK's
// plain `Server` (which shows that the measure sees the retention at all: should an SDK
// or zod release stop retaining, that line fails, and RequestFirstServer can go).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';

const SCRIPT = `
const v8 = require('node:v8');
const { InMemoryTransport, Server } = require('@modelcontextprotocol/server');
const { newTool } = require(${JSON.stringify(join(ROOT, 'dist/pkg/index.js'))});
const { serveTools } = require(${JSON.stringify(join(ROOT, 'dist/pkg/mcp.js'))});
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
async function perMessage(connect) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  const waiting = new Map();
  clientSide.onmessage = (m) => { const done = waiting.get(m.id); if (done) { waiting.delete(m.id); done(m); } };
  await clientSide.start();
  let id = 0;
  const request = (method, params) => new Promise((resolve) => {
    const i = ++id;
    waiting.set(i, resolve);
    void clientSide.send({ jsonrpc: '2.0', id: i, method, params });
  });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const round = async (n) => {
    for (let i = 0; i < n; i++) {
      const answer = await request('ping', { _meta: { note: 'n'.repeat(400) } });
      if (answer.result === undefined) throw new Error('ping: ' + JSON.stringify(answer));
      await clientSide.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: { note: 'n'.repeat(400) } } });
    }
  };
  await round(3000);
  gc();
  const before = oldSpace();
  await round(8000);
  const grown = oldSpace() - before;
  await clientSide.close();
  return Math.round(grown / 16000);
}
(async () => {
  const server = serveTools([newTool({ name: 'noop', execute: async () => ({ output: 'ok' }) })]);
  const ours = await perMessage((t) => server.connect(t));
  await server.close();
  const sdk = await perMessage((t) => new Server({ name: 'sdk', version: '0' }, { capabilities: {} }).connect(t));
  console.log(JSON.stringify({ ours, sdk }));
})();
`;

beforeAll(() => ensureBuilt(), 300_000);

test('serving requests and notifications moves next to nothing to the old generation', () => {
  // A young generation of 1 MB collects every few hundred messages.
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-semi-space-size=1', '--min-semi-space-size=1', '-e', SCRIPT],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(run.stderr).toBe('');
  const bytes = JSON.parse(run.stdout) as { ours: number; sdk: number };
  // Bytes left in the old space per message, after 16,000 messages: some 4 KB with the
  // SDK's dispatch, about 120 with ours (what is in flight when a collection comes).
  expect(bytes.sdk).toBeGreaterThan(1000);
  expect(bytes.ours).toBeLessThan(400);
  expect(bytes.ours * 5).toBeLessThan(bytes.sdk);
});
