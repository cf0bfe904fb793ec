// What a served message leaves for the old generation. An object that was in use when
// the young generation was collected moves to the old generation and stays there, dead,
// until the next full collection; whatever it still points to is kept through every
// young collection until then. Two such cases on the call path:
// - the SDK tells a message's kind by trying zod schemas in turn (a result, an error,
//   then a request), and a zod 4 `safeParse` that fails keeps the value it failed on
//   (its result object gets a V8 map of its own, in the old generation). Our server
//   tells requests and notifications first;
// - a finished call's notices kept its request (the SDK's context, the serving
//   function's variables) through their route; they let go of it now.
// The child process measures the old space's growth over many pings and notifications,
// and over many calls, once for our server and once for the SDK's plain `Server` (which
// shows that the measure sees the dispatch's retention at all: should an SDK or zod
// release stop retaining, that line fails, and RequestFirstServer can go).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';

const SCRIPT = `
const v8 = require('node:v8');
const { InMemoryTransport, Server } = require('@modelcontextprotocol/server');
const { newTool } = require(${JSON.stringify(join(ROOT, 'dist/pkg/index.js'))});
const { serveTools } = require(${JSON.stringify(join(ROOT, 'dist/pkg/mcp.js'))});
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
const NOTE = { note: 'n'.repeat(400) };
// Pings and notifications: the dispatch alone. Calls: a tool that reads its arguments.
const ROUNDS = {
  dispatch: async (request, send) => {
    const answer = await request('ping', { _meta: NOTE });
    if (answer.result === undefined) throw new Error('ping: ' + JSON.stringify(answer));
    await send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: NOTE } });
    return 2;
  },
  calls: async (request) => {
    const answer = await request('tools/call', { name: 'echo', arguments: NOTE });
    if (answer.result?.content?.[0]?.text !== JSON.stringify(NOTE)) throw new Error('call: ' + JSON.stringify(answer));
    return 1;
  },
};
async function perMessage(connect, one) {
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
  const send = (message) => clientSide.send(message);
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const round = async (n) => {
    let messages = 0;
    for (let i = 0; i < n; i++) messages += await one(request, send);
    return messages;
  };
  await round(3000);
  gc();
  const before = oldSpace();
  const messages = await round(8000);
  const grown = oldSpace() - before;
  await clientSide.close();
  return Math.round(grown / messages);
}
function sdkServer(t) {
  const server = new Server({ name: 'sdk', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', (request) => ({
    content: [{ type: 'text', text: JSON.stringify(request.params.arguments) }],
  }));
  return server.connect(t);
}
(async () => {
  const figures = {};
  for (const [name, one] of Object.entries(ROUNDS)) {
    const echo = newTool({ name: 'echo', execute: async (call) => ({ output: call.args }) });
    const server = serveTools([echo]);
    const ours = await perMessage((t) => server.connect(t), one);
    await server.close();
    figures[name] = { ours, sdk: await perMessage(sdkServer, one) };
  }
  console.log(JSON.stringify(figures));
})();
`;

beforeAll(() => ensureBuilt(), 300_000);

test('serving messages and calls leaves little for the old generation', () => {
  // A young generation of 1 MB collects every few hundred messages.
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-semi-space-size=1', '--min-semi-space-size=1', '-e', SCRIPT],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(run.stderr).toBe('');
  type Figures = { ours: number; sdk: number };
  const bytes = JSON.parse(run.stdout) as { dispatch: Figures; calls: Figures };
  // Bytes left in the old space per message: some 3.8 KB with the SDK's dispatch, about
  // 120 with ours (what is in flight when a collection comes).
  expect(bytes.dispatch.sdk).toBeGreaterThan(1000);
  expect(bytes.dispatch.ours).toBeLessThan(400);
  expect(bytes.dispatch.ours * 5).toBeLessThan(bytes.dispatch.sdk);
  // Per call, about 1.7 KB: 3.3 KB while a finished call's notices still held its
  // request (and the SDK's plain server, with its dispatch, 3.9 KB).
  expect(bytes.calls.ours).toBeLessThan(2400);
});
