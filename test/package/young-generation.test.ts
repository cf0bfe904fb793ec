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
// The same dispatch runs in our client, where a call's progress updates arrive as
// notifications. The child process measures the old space's growth over many pings and
// notifications, over many calls, and over many progress updates a client follows, for
// ours and for the SDK's plain `Server` and `Client` (which shows that the measure sees
// the dispatch's retention at all: should an SDK or zod release stop retaining, those
// lines fail, and dispatchRequestsFirst can go).
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
// A client following a call that sends 200 progress updates: ours, and the SDK's plain
// Client, on the same server.
const { Client } = require('@modelcontextprotocol/client');
const { createContext } = require(${JSON.stringify(join(ROOT, 'dist/pkg/index.js'))});
const { connectMcp } = require(${JSON.stringify(join(ROOT, 'dist/pkg/mcp.js'))});
const chatty = newTool({
  name: 'chatty',
  execute: async (call) => {
    for (let i = 0; i < 200; i++) {
      call.onUpdate?.({ output: 'line ' + i + ' ' + 'x'.repeat(100) });
      if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return { output: 'done' };
  },
});
async function perUpdate(kind) {
  const server = serveTools([chatty], { progressBudgetBytes: 1 << 30 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  let updates = 0;
  let call;
  let close;
  if (kind === 'ours') {
    const remote = await connectMcp({ transport: clientSide, protocol: 'legacy', notificationGrace: 0 });
    const tool = remote.tools().find((t) => t.name === 'chatty');
    call = () => {
      const c = { id: 'c', args: '{}', onUpdate: () => updates++ };
      return tool.execute(c, createContext({ call: c }));
    };
    close = () => remote.close();
  } else {
    const client = new Client({ name: 'sdk', version: '0' });
    await client.connect(clientSide);
    call = () => client.callTool({ name: 'chatty', arguments: {} }, { onprogress: () => updates++ });
    close = () => client.close();
  }
  for (let i = 0; i < 20; i++) await call();
  gc();
  const before = oldSpace();
  updates = 0;
  for (let i = 0; i < 60; i++) await call();
  const grown = oldSpace() - before;
  if (updates !== 12000) throw new Error('updates: ' + updates);
  await close();
  await server.close();
  return Math.round(grown / updates);
}
// 2025-era calls through the web-standard HTTP handler (a session, as a client keeps
// one, or none on a stateless endpoint, where every request has an instance of its
// own): the SDK's HTTP transport checks every message it sends with schemas that fail
// on a result, and each failed zod parse kept what it failed on (see scripts/bundle.js,
// withSharedFailure).
async function perHttpCall(stateless) {
  const server = serveTools([newTool({ name: 'echo', execute: async (call) => ({ output: call.args }) })]);
  const handler = server.handler({ stateless });
  const base = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  let session;
  let id = 0;
  const post = async (message) => {
    // A stateless endpoint names no session: every request says its version.
    const headers =
      session !== undefined ? { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
      : stateless ? { ...base, 'mcp-protocol-version': '2025-11-25' }
      : base;
    const response = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(message) }));
    session ??= response.headers.get('mcp-session-id') ?? undefined;
    return response.text();
  };
  await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const bytes = await grownPerCall(async () => {
    const i = ++id;
    const text = await post({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { note: 'n' + i } } });
    if (!text.includes('n' + i)) throw new Error('call: ' + text);
  });
  await server.close();
  return bytes;
}
// The old space's growth per call over 3,000 calls, after 1,000 that take in what is made
// once; a served process turns its event loop between requests.
async function grownPerCall(call) {
  const round = async (n) => {
    for (let k = 0; k < n; k++) {
      await call();
      if (k % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await round(1000);
  gc();
  const before = oldSpace();
  await round(3000);
  return Math.round((oldSpace() - before) / 3000);
}
// 2026-07-28 calls through the same handler: every request is served by an instance made
// for it, promoted with what it is made of when a young collection comes (in the SDK's
// own per-request serving as in ours), so what an instance is made of is what a call
// leaves. An instance made for one message has its method's handlers only.
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
async function perModernCall() {
  const server = serveTools([newTool({ name: 'echo', execute: async (call) => ({ output: call.args }) })]);
  const handler = server.handler();
  const headers = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
  };
  let id = 0;
  const bytes = await grownPerCall(async () => {
    const i = ++id;
    const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { note: 'n' + i }, _meta: MODERN_META } });
    const response = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body }));
    const text = await response.text();
    if (!text.includes('n' + i)) throw new Error('call: ' + text);
  });
  await server.close();
  return bytes;
}
// Each measure in a process of its own: what one leaves in the old space would move the
// next one's figures.
(async () => {
  const which = process.argv[1];
  if (which === 'http' || which === 'stateless') {
    console.log(JSON.stringify({ ours: await perHttpCall(which === 'stateless') }));
    return;
  }
  if (which === 'modern') {
    console.log(JSON.stringify({ ours: await perModernCall() }));
    return;
  }
  if (which === 'progress') {
    console.log(JSON.stringify({ ours: await perUpdate('ours'), sdk: await perUpdate('sdk') }));
    return;
  }
  const one = ROUNDS[which];
  const echo = newTool({ name: 'echo', execute: async (call) => ({ output: call.args }) });
  const server = serveTools([echo]);
  const ours = await perMessage((t) => server.connect(t), one);
  await server.close();
  console.log(JSON.stringify({ ours, sdk: await perMessage(sdkServer, one) }));
})();
`;

beforeAll(() => ensureBuilt(), 300_000);

/** Bytes left in the old space per message, by our side and by the SDK's plain one. */
function measure(which: 'dispatch' | 'calls' | 'progress' | 'http' | 'stateless' | 'modern'): {
  ours: number;
  sdk: number;
} {
  // A young generation of 1 MB collects every few hundred messages.
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-semi-space-size=1', '--min-semi-space-size=1', '-e', SCRIPT, which],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as { ours: number; sdk: number };
}

test('serving requests and notifications leaves next to nothing in the old generation', () => {
  // Some 3.8 KB per message with the SDK's dispatch, about 120 with ours (what is in
  // flight when a collection comes).
  const bytes = measure('dispatch');
  expect(bytes.sdk).toBeGreaterThan(1000);
  expect(bytes.ours).toBeLessThan(400);
  expect(bytes.ours * 5).toBeLessThan(bytes.sdk);
});

test('a finished call lets go of its request', () => {
  // About 1.7 KB per call: 3.3 KB while a finished call's notices still held its request
  // (and the SDK's plain server, with its dispatch, 3.9 KB).
  expect(measure('calls').ours).toBeLessThan(2400);
});

test('a client following progress leaves next to nothing in the old generation', () => {
  // Some 4.6 KB per update with the SDK's dispatch (each notification fails three
  // schemas first), about 35 with our client's.
  const bytes = measure('progress');
  expect(bytes.sdk).toBeGreaterThan(1000);
  expect(bytes.ours).toBeLessThan(400);
  expect(bytes.ours * 5).toBeLessThan(bytes.sdk);
});

test('a 2025-era call over the HTTP handler leaves no failed parse behind', () => {
  // About 3.3 KB a call; 9.8 KB while each failed zod parse of the SDK's transport (a
  // result checked as an error, on every answer) kept the message it failed on.
  expect(measure('http').ours).toBeLessThan(6000);
});

test('a 2026-07-28 call leaves only what an instance for its one method is made of', () => {
  // About 9.3 KB a call (9.1 on Node 22); 15.6 KB while each request's instance had the
  // handlers of every method the server serves.
  expect(measure('modern').ours).toBeLessThan(12_000);
});

test('a stateless 2025-era request leaves only what an instance for its one method is made of', () => {
  // About 7.7 KB a call (5.8 on Node 22); 12.6 KB while each request's instance had the
  // handlers of every method the server serves.
  expect(measure('stateless').ours).toBeLessThan(10_000);
});
