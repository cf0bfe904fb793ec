/**
 * Memory bounded by configuration, not by the client: a call's progress text has a budget
 * (64 KiB by default, then one `[output truncated]` update and numbers only), and a client
 * that does not read its streamed answer gets the latest progress, not every update.
 */
import { request } from 'node:http';
import { createContext, newTool, outputText, ProgressInfo, type Result } from 'agenttool';
import { connectMcp, McpToolServer } from 'agenttool/mcp';
import { deferred } from './helpers';

const CHUNK = 'x'.repeat(4095) + '\n';

test('progress text stops at the budget with one "[output truncated]" update; numbers go on', async () => {
  const chatty = newTool({
    name: 'chatty',
    description: 'Writes 200 KiB of output as progress, then counts',
    execute: (_call, ctx) => {
      for (let i = 0; i < 50; i++) ctx.progress(CHUNK);
      ctx.progress(new ProgressInfo(51, 52));
      ctx.progress(new ProgressInfo(52, 52));
      return { output: 'done' };
    },
  });
  const server = new McpToolServer([chatty]);
  const listener = await server.listenHttp();
  const remote = await connectMcp({ transport: { url: listener.url } });
  try {
    const updates: Result[] = [];
    const call = { id: 'call_1', args: '{}', onUpdate: (u: Result) => updates.push(u) };
    await remote.tools()[0]!.execute(call, createContext({ call }));
    const texts = updates.map((u) => outputText(u.output));
    const text = texts.join('');
    expect(Buffer.byteLength(text.replace('\n[output truncated]', ''))).toBeLessThanOrEqual(
      64 * 1024,
    );
    expect(texts.filter((t) => t.endsWith('[output truncated]'))).toHaveLength(1);
    expect(updates.slice(-2).map((u) => u.details)).toEqual([
      new ProgressInfo(51, 52, ''),
      new ProgressInfo(52, 52, ''),
    ]);
    expect(updates.length).toBeLessThan(50);
  } finally {
    await remote.close();
    await server.close();
  }
});

test('a client that does not read its stream gets the latest progress, not every update', async () => {
  const released = deferred();
  const finished = deferred();
  const flood = newTool({
    name: 'flood',
    description: 'Reports 5000 updates of 1 KiB, then waits to be let go',
    execute: async (_call, ctx) => {
      for (let i = 1; i <= 5000; i++) {
        ctx.progress(new ProgressInfo(i, 5000, 'y'.repeat(1024)));
        if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      finished.resolve();
      await released.promise;
      return { output: 'done' };
    },
  });
  const server = new McpToolServer([flood], { progressBudgetBytes: 64 * 1024 * 1024 });
  const listener = await server.listenHttp({ stateless: true });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } },
  });
  const received = new Promise<string>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: listener.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-11-25',
        },
      },
      (res) => {
        // The client reads nothing until the tool has sent all its updates.
        res.pause();
        let text = '';
        void finished.promise.then(() => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.includes('"result"')) resolve(text);
          });
          res.resume();
          released.resolve();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  try {
    const stream = await received;
    const progress = [...stream.matchAll(/"progress":(\d+)/g)].map((m) => Number(m[1]));
    // Far fewer than 5000 went out, and the last one the client got is the last sent.
    expect(progress.length).toBeLessThan(2500);
    expect(progress.at(-1)).toBe(5000);
  } finally {
    await server.close();
  }
});
