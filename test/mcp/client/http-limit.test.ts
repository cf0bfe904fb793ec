/**
 * A server over Streamable HTTP cannot make the client hold more than `maxMessageBytes`
 * of a message: a JSON answer, or an event of a call's stream, past it fails that call
 * saying so, and the connection serves the next call; an event too large on the stream
 * a GET opened is dropped; an HTTP error's body is cut at 4 KiB. A 2025-era server of
 * our own on loopback, sending what a test asks for, as it goes (never held whole).
 */
import * as http from 'node:http';
import { connectMcp } from 'agenttool/mcp';
import {
  callFirstTool,
  listenOnLoopback,
  SCRIPTED_JSON as json,
  scriptedPost,
} from '../../support/loopback-http';
import { boundingAnswers } from '../../../src/mcp/client/bounded-answers';

type Answer = 'json-huge' | 'sse-huge' | 'sse-endless' | 'error-huge' | 'empty-404' | 'ok';

interface Scripted {
  readonly url: string;
  /** What the next tools/call gets. */
  next: Answer;
  close(): Promise<void>;
}

const LIMIT = 64 * 1024;
const sse = { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' };

async function startScripted(): Promise<Scripted> {
  const scripted = { next: 'ok' as Answer };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      // The stream a GET opens: one event far past the limit, then a small one.
      res.writeHead(200, sse);
      res.write(`event: message\ndata: ${'x'.repeat(3 * LIMIT)}\n\n`);
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`,
      );
      return;
    }
    scriptedPost(req, res, { name: 'scripted', tool: 'big' }, ({ result }) => {
      const text = (t: string) => result({ content: [{ type: 'text', text: t }] });
      switch (scripted.next) {
        case 'ok':
          return void res.writeHead(200, json).end(text('small'));
        case 'json-huge':
          res.writeHead(200, json);
          return void res.end(text('y'.repeat(4 * LIMIT)));
        case 'sse-huge':
          res.writeHead(200, sse);
          return void res.end(`event: message\ndata: ${text('z'.repeat(4 * LIMIT))}\n\n`);
        case 'sse-endless': {
          // An event that never ends: the client must stop reading it, not hold it.
          res.writeHead(200, sse);
          res.write('event: message\ndata: ');
          const chunk = 'w'.repeat(16 * 1024);
          const more = (): void => {
            if (res.destroyed) return;
            if (res.write(chunk)) setImmediate(more);
            else res.once('drain', more);
          };
          res.once('close', () => undefined);
          return more();
        }
        case 'empty-404':
          return void res.writeHead(404).end();
        case 'error-huge':
          return void res
            .writeHead(500, { 'content-type': 'text/plain' })
            .end('E'.repeat(4 * LIMIT));
      }
    });
  });
  return Object.assign(scripted, await listenOnLoopback(server));
}

const call = callFirstTool;

test('an answer past maxMessageBytes fails its call saying so, and the next call is served', async () => {
  const server = await startScripted();
  const remote = await connectMcp({
    transport: { url: server.url, maxMessageBytes: LIMIT },
    protocol: 'legacy',
  });
  try {
    const said = `a message of more than ${LIMIT} bytes, the most this client reads (maxMessageBytes)`;
    for (const answer of ['json-huge', 'sse-huge', 'sse-endless'] as const) {
      server.next = answer;
      await expect(call(remote)).rejects.toThrow(said);
      server.next = 'ok';
      expect(await call(remote)).toBe('small');
    }
    server.next = 'error-huge';
    const failure = await call(remote).then(
      () => undefined,
      (error: unknown) => (error as Error).message,
    );
    expect(failure).toContain(`[cut at 4096 bytes]`);
    expect(failure!.length).toBeLessThan(6000);
    // An error without a body says its status.
    server.next = 'empty-404';
    await expect(call(remote)).rejects.toThrow(
      'mcp: call "big": the server answered HTTP 404 Not Found: no body',
    );
  } finally {
    await remote.close();
    await server.close();
  }
});

test('maxMessageBytes of an HTTP target must be a positive whole number', async () => {
  await expect(
    connectMcp({ transport: { url: 'http://127.0.0.1:9/mcp', maxMessageBytes: 0 } }),
  ).rejects.toThrow(
    'mcp: connect: maxMessageBytes must be a positive whole number of bytes, got 0',
  );
});

test('on the stream a GET opened, an event too large is dropped and the next one passes', async () => {
  const small =
    'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n';
  const chunks = [
    `event: message\ndata: ${'x'.repeat(LIMIT)}`,
    'x'.repeat(LIMIT),
    '\n',
    '\n',
    small,
  ];
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  const fetch = boundingAnswers(
    () =>
      Promise.resolve(new Response(stream, { headers: { 'content-type': 'text/event-stream' } })),
    LIMIT,
  );
  const read = await (await fetch('http://127.0.0.1/mcp', { method: 'GET' })).text();
  expect(read).toBe(small);
});
