// A server that does not scale out never loads the Redis client, even serving HTTP; one
// that does is checked at once: its key, its name, its Redis URL.
jest.mock('ioredis', () => {
  throw new Error('ioredis was loaded');
});

import { newTool } from 'agenttool';
import { serveTools } from 'agenttool/mcp';

const echo = newTool({
  name: 'echo',
  description: 'Echoes',
  execute: (call) => ({ output: call.args }),
});
const KEY = 'k'.repeat(32);

test('serving HTTP without scaleOut loads no Redis client, and answers the health route', async () => {
  const server = serveTools(echo);
  const mcp = server.handler();
  try {
    const health = await mcp.fetch(new Request('http://localhost/healthz'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'serving' });
    const call = await mcp.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      }),
    );
    expect(call.status).toBe(200);
  } finally {
    await mcp.close();
    await server.close();
  }
});

test('a drained server fails its health route and refuses new work with 503, then closes', async () => {
  const server = serveTools(echo);
  const mcp = server.handler({ healthPath: '/ready' });
  await server.drain(1000);
  const health = await mcp.fetch(new Request('http://localhost/ready'));
  expect(health.status).toBe(503);
  expect(await health.json()).toEqual({ status: 'draining' });
  const refused = await mcp.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      }),
    }),
  );
  expect(refused.status).toBe(503);
  expect(await refused.json()).toMatchObject({
    error: {
      message: 'Service unavailable: the server is draining; send new work to another instance',
    },
  });
  await server.close();
});

test.each([
  [
    { requestStateKey: 'short', redisUrl: 'redis://127.0.0.1:6379' },
    'mcp: scale-out: requestStateKey must be at least 32 bytes (e.g. 64 hex digits from `openssl rand -hex 32`)',
  ],
  [
    { requestStateKey: KEY, redisUrl: 'redis://127.0.0.1:6379', instanceId: 'a.b' },
    'mcp: scale-out: instanceId "a.b" must be 1 to 64 letters, digits, "_" or "-"',
  ],
  [
    { requestStateKey: KEY, redisUrl: '' },
    'mcp: scale-out: redisUrl is required, e.g. "redis://127.0.0.1:6379"',
  ],
])('scaleOut %j is refused at once: %s', (scaleOut, message) => {
  expect(() => serveTools(echo, { scaleOut })).toThrow(message);
});

test('a redisUrl that is not a Redis URL fails listenHttp, saying so, before ioredis loads', async () => {
  const server = serveTools(echo, {
    scaleOut: { requestStateKey: KEY, redisUrl: 'http://127.0.0.1:6379' },
  });
  await expect(server.listenHttp()).rejects.toThrow(
    'mcp: scale-out: redisUrl "http://127.0.0.1:6379" is not a Redis URL; give e.g. "redis://127.0.0.1:6379"',
  );
  await server.close();
});
