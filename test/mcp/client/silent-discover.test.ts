/**
 * `auto` over stdio and a 2025-era server that never answers `server/discover` (some
 * do not answer a request they do not know before `initialize`): the probe gives up
 * after 10 s and the connection speaks the 2025 era, where the SDK alone waited its
 * whole request timeout (60 s) each time. The server is a plain script started as a
 * host starts one; it writes down, per process, the methods it was sent.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, outputText } from 'agenttool';
import { connectMcp } from 'agenttool/mcp';
import { rawStdioServer } from '../../support/raw-stdio-server';

const SERVER = rawStdioServer(
  `
  if (message.method !== undefined) appendFileSync(log, message.method + '\\n');
  if (message.id === undefined) continue;
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'quiet', version: '1.0.0' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] } });
  } else if (message.method === 'tools/call') {
    send({ id: message.id, result: { content: [{ type: 'text', text: 'hello from 2025' }] } });
  }
  // Anything else (server/discover among them) is never answered.
`,
  `const { appendFileSync } = require('node:fs');
const log = require('node:path').join(process.argv[1], String(process.pid));`,
);

let logs: string;
beforeEach(() => {
  logs = mkdtempSync(join(tmpdir(), 'silent-discover-'));
});
afterEach(() => rmSync(logs, { recursive: true, force: true }));

test('auto over stdio speaks the 2025 era to a server that never answers server/discover, without waiting the SDK’s 60 s', async () => {
  const remote = await connectMcp({
    transport: { command: process.execPath, args: ['-e', SERVER, logs], stderr: 'ignore' },
  });
  try {
    expect(remote.era).toBe('legacy');
    const hello = remote.tools().find((tool) => tool.name === 'hello');
    const call = { id: 'call_1', args: '{}' };
    const result = await hello!.execute(call, createContext({ call }));
    expect(outputText(result.output)).toBe('hello from 2025');
  } finally {
    await remote.close();
  }
  // One process was probed and left unanswered; the connection's own began with initialize.
  const methods = readdirSync(logs).map((pid) =>
    readFileSync(join(logs, pid), 'utf8').trim().split('\n'),
  );
  expect(methods).toHaveLength(2);
  expect(methods).toContainEqual(['server/discover']);
  expect(methods).toContainEqual(
    expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']),
  );
}, 45_000);
