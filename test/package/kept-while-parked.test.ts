// What a parked 2026-07-28 `prompts/get` or `resources/read` holds while its client is
// to answer its question (up to `abandonAfterMs`, half an hour): its run, its question
// and what the operation itself keeps, not the request that began it. A request may
// carry megabytes of members no one reads (the previous code kept the whole request, by
// a closure for its log lines: one caller's parked reads held 14 MB each, enough for it
// to end the server within its share). The child process parks requests carrying 1 MB
// of such members each and measures the heap's object spaces after full collections; a
// control keeps each request's body itself, to show the measure sees what it looks for.
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../cli/helpers';
import { measuredInChild } from '../support/measure-child';

const SCRIPT = `
const v8 = require('node:v8');
const DATA = new Set(['old_space', 'large_object_space', 'new_space', 'new_large_object_space']);
const dataBytes = () => v8.getHeapSpaceStatistics().filter((s) => DATA.has(s.space_name)).reduce((sum, s) => sum + s.space_used_size, 0);
const { serveTools } = require(${JSON.stringify(join(ROOT, 'dist/pkg/mcp.js'))});
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const who = { type: 'object', properties: { who: { type: 'string' } } };
const server = serveTools([], {
  prompts: [{ name: 'ask', description: 'asks first', get: async (_args, ctx) => {
    const answer = await ctx.ask({ key: 'who', message: 'Who?', schema: who });
    return { messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(answer) } }] };
  } }],
  resources: [{ uri: 'notes://ask', name: 'ask', read: async (ctx) => {
    const answer = await ctx.ask({ key: 'who', message: 'Who?', schema: who });
    return JSON.stringify(answer);
  } }],
});
const handler = server.handler();
async function collected() {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return dataBytes();
}
// 1 MB of members no one reads, made anew for each request.
const junk = () => JSON.stringify(Object.fromEntries(Array.from({ length: 50000 }, (_, i) => ['k' + i, 'v'.repeat(10)])));
let id = 0;
async function park(method, keep) {
  const params = method === 'prompts/get' ? '"name":"ask","arguments":{}' : '"uri":"notes://ask"';
  const body = '{"jsonrpc":"2.0","id":' + (++id) + ',"method":"' + method + '","params":{' + params + ',"junk":' + junk() + ',"_meta":' + JSON.stringify(META) + '}}';
  const response = await handler.fetch(new Request('http://localhost/mcp', {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': method === 'prompts/get' ? 'ask' : 'notes://ask',
    },
    body,
  }));
  const text = await response.text();
  if (!text.includes('input_required')) throw new Error(method + ': ' + response.status + ' ' + text.slice(0, 300));
  if (keep !== undefined) keep.push(JSON.parse(body));
}
async function perParked(method, keep) {
  await park(method);
  const before = await collected();
  const n = 20;
  for (let i = 0; i < n; i++) await park(method, keep);
  return Math.round(((await collected()) - before) / n);
}
(async () => {
  const held = [];
  const result = {
    prompt: await perParked('prompts/get'),
    resource: await perParked('resources/read'),
    control: await perParked('resources/read', held),
  };
  await server.close();
  console.log(JSON.stringify(result));
})().catch((error) => { console.error(error); process.exit(1); });
`;

beforeAll(() => ensureBuilt(), 300_000);

test('a parked 2026-07-28 prompts/get or resources/read does not hold its request', () => {
  const bytes = measuredInChild<{ prompt: number; resource: number; control: number }>(SCRIPT);
  // The control keeps each request's parsed body (some 3 MB on the heap): the measure sees it.
  expect(bytes.control).toBeGreaterThan(1_000_000);
  // A parked run, its question, its state and its timers are some kilobytes; a request
  // kept would be megabytes.
  expect(bytes.prompt).toBeLessThan(100_000);
  expect(bytes.resource).toBeLessThan(100_000);
});
