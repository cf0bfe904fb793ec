// What a served 2026-07-28 request leaves behind once it is answered. Every such request
// is served by an instance of its own, built for it and closed after it: nothing of it
// may outlive its answer, or a server that runs for weeks grows with every request any
// caller sends. The child process serves the requests through the web-standard handler,
// reads every answer, and measures the heap's object spaces after full collections, with
// a turn of the event loop between them (objects that a FinalizationRegistry lets go of,
// such as an AbortSignal that follows another, go only once its cleanup has run: a loop
// of promises alone never gives it the turn); a control keeps 1 KB a request itself, to
// show the measure sees what it is looking for.
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';
import { measuredInChild } from '../support/measure-child';

const SCRIPT = `
const v8 = require('node:v8');
// The spaces of objects; code (and the bytecode of Node 22's trusted space) is left out:
// functions optimised late, as on a loaded machine, would count as kept.
const DATA = new Set(['old_space', 'large_object_space', 'new_space', 'new_large_object_space']);
const dataBytes = () => v8.getHeapSpaceStatistics().filter((s) => DATA.has(s.space_name)).reduce((sum, s) => sum + s.space_used_size, 0);
const { newTool } = require(${JSON.stringify(join(ROOT, 'dist/pkg/index.js'))});
const { serveTools } = require(${JSON.stringify(join(ROOT, 'dist/pkg/mcp.js'))});
const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const echo = newTool({ name: 'echo', execute: async (call) => ({ output: call.args }) });
// Full collections with a turn between (what finalizers clean up runs after the first).
async function collected() {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return dataBytes();
}
async function perRequest(keepPerRequest) {
  const server = serveTools([echo]);
  const handler = server.handler();
  const held = [];
  let id = 0;
  const round = async (n) => {
    for (let i = 0; i < n; i++) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { note: 'n' + id }, _meta: META },
      });
      const response = await handler.fetch(
        new Request('http://localhost/mcp', { method: 'POST', headers: HEADERS, body }),
      );
      const text = await response.text();
      if (!text.includes('n' + id)) throw new Error('call ' + id + ': ' + response.status + ' ' + text);
      // 125 small integers: an array of 1 KB on a 64-bit heap.
      if (keepPerRequest) held.push(Array.from({ length: 125 }, (_, k) => k + id));
    }
  };
  // What the first thousands of requests leave for good (the compiler's feedback, the
  // bytecode of functions met late: more of it on a loaded machine) is made once; what a
  // request keeps grows with the requests. So the figure is the growth over a second
  // window, after a first one has taken in what is made once.
  await round(1000);
  await collected();
  await round(3000);
  const before = await collected();
  const requests = 6000;
  await round(requests);
  const grown = (await collected()) - before;
  await server.close();
  return Math.round(grown / requests);
}
(async () => {
  console.log(JSON.stringify({ ours: await perRequest(false), control: await perRequest(true) }));
})();
`;

beforeAll(() => ensureBuilt(), 300_000);

test('a 2026-07-28 request leaves nothing behind once answered', () => {
  const bytes = measuredInChild<{ ours: number; control: number }>(SCRIPT);
  // The control keeps an array of 1 KB a request: the measure sees it.
  expect(bytes.control).toBeGreaterThan(900);
  // Measured: 10-15 bytes a request here, once about 100 in CI on Node 22 (the SDK's own
  // handler with a Server made per request, served the same way, about 30). What this
  // must catch is a request's objects kept: its signal, a listener and a closure are
  // some 500 bytes together.
  expect(bytes.ours).toBeLessThan(200);
});
