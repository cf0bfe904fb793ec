/**
 * SEP-1699 in the 2025 era: a server may end a call's SSE stream after its priming event
 * (`id:` and `retry:`) without the answer, and send the answer later on a stream the
 * client opens again with GET and `Last-Event-ID`. A call through `connectMcp` resumes
 * so and gets its answer, as the conformance scenario `sse-retry` requires; what our
 * fetch adds (log routing, the safe retry) must not get in the way. The wait of `retry`
 * milliseconds before the GET is the SDK transport's; it is not timed here.
 */
import * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import { createContext } from 'agenttool';
import { connectMcp } from 'agenttool/mcp';

interface Resumable {
  readonly url: string;
  /** The `Last-Event-ID` of each GET that resumed a stream. */
  readonly resumedFrom: string[];
  /** The id of the priming event of the `tools/call` stream. */
  readonly callPrimedWith: () => string | undefined;
  close(): Promise<void>;
}

/** A 2025-era server whose `tools/call` stream ends after its priming event. */
async function startResumable(): Promise<Resumable> {
  let events = 0;
  let pending: unknown = null;
  let callPrimedWith: string | undefined;
  const resumedFrom: string[] = [];
  const sse = { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' };
  const json = { 'content-type': 'application/json', 'mcp-session-id': 's1' };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      const last = req.headers['last-event-id'];
      if (typeof last === 'string') resumedFrom.push(last);
      res.writeHead(200, sse);
      res.write(`id: e${++events}\nretry: 10\ndata: \n\n`);
      // Only a resumption gets the answer (the standalone GET stream may open at any time).
      if (typeof last === 'string' && pending !== null) {
        const answer = {
          jsonrpc: '2.0',
          id: pending,
          result: { content: [{ type: 'text', text: 'resumed' }] },
        };
        res.write(`event: message\nid: e${++events}\ndata: ${JSON.stringify(answer)}\n\n`);
        pending = null;
      }
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (body === '') return void res.writeHead(200).end(); // DELETE: the session ends
      const message = JSON.parse(body) as { id?: unknown; method?: string };
      const answer = (result: unknown): void =>
        void res
          .writeHead(200, json)
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      switch (message.method) {
        case 'initialize':
          return answer({
            protocolVersion: '2025-03-26',
            serverInfo: { name: 'resumable', version: '1.0.0' },
            capabilities: { tools: {} },
          });
        case 'tools/list':
          return answer({ tools: [{ name: 'later', inputSchema: { type: 'object' } }] });
        case 'tools/call':
          // The priming event, then the end of the stream: the answer comes on the GET.
          pending = message.id;
          callPrimedWith = `e${++events}`;
          res.writeHead(200, sse);
          res.write(`id: ${callPrimedWith}\nretry: 10\ndata: \n\n`);
          return void res.end();
        default:
          if (message.id === undefined) return void res.writeHead(202).end();
          return answer({});
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    resumedFrom,
    callPrimedWith: () => callPrimedWith,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('a call whose stream ended after the priming event resumes with GET and Last-Event-ID and gets its answer', async () => {
  const server = await startResumable();
  const remote = await connectMcp({ transport: { url: server.url }, protocol: 'legacy' });
  try {
    const call = { id: 'call_1', args: '{}' };
    const result = await remote.tools()[0]!.execute(call, createContext({ call }));
    expect(result.output).toBe('resumed');
    // The call's stream was the one resumed, once, from its priming event.
    expect(server.callPrimedWith()).toBeDefined();
    expect(server.resumedFrom).toEqual([server.callPrimedWith()]);
  } finally {
    await remote.close();
    await server.close();
  }
});
