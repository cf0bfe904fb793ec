/**
 * A call's arguments as the model wrote them reach the server with their integers as
 * written, however long (as the Go binding sends `call.Args` verbatim): an ID beyond
 * 2^53 is not rounded on the way. Where that cannot be done (no `JSON.rawJSON` before
 * Node 21, or the caller's own transport, which hands messages over as objects), the
 * call is refused with an error naming the number, never sent changed.
 */
import { createContext, type Result, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import { RawServer } from './raw-server';

const EXACT = typeof (JSON as { rawJSON?: unknown }).rawJSON === 'function';

/** A 2025-era server as a fetch function, keeping each tools/call body as it was sent. */
function recordingServer(): { fetch: typeof fetch; bodies: string[] } {
  const bodies: string[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if ((init?.method ?? 'GET') !== 'POST') return new Response(null, { status: 405 });
    const text = init?.body as string;
    const message = JSON.parse(text) as {
      id?: number;
      method?: string;
      params?: { protocolVersion?: string };
    };
    if (message.id === undefined) return new Response(null, { status: 202 });
    let result: unknown;
    if (message.method === 'initialize') {
      result = {
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'recording', version: '1' },
      };
    } else if (message.method === 'tools/list') {
      result = { tools: [{ name: 'fetch_tweet', inputSchema: { type: 'object' } }] };
    } else {
      bodies.push(text);
      result = { content: [{ type: 'text', text: 'ok' }] };
    }
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }), {
      status: 200,
      headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' },
    });
  };
  return { fetch: fetch, bodies };
}

function run(remote: RemoteTools, args: string): Promise<Result> {
  const tool = remote.tools()[0] as Tool;
  const call = { id: 'call_1', args };
  return Promise.resolve(tool.execute(call, createContext({ call })));
}

/** The arguments of the one tools/call the server received, as text. */
function sentArguments(body: string | undefined): string {
  const start = body?.indexOf('"arguments":') ?? -1;
  expect(start).toBeGreaterThan(-1);
  return (body as string).slice(
    start + '"arguments":'.length,
    (body as string).indexOf('}', start) + 1,
  );
}

describe('integers beyond 2^53 in a call’s arguments', () => {
  const ARGS = '{"tweet_id": 1234567890123456789, "reply_to": -98765432109876543210, "count": 3}';

  it(
    EXACT
      ? 'are sent as written over a transport of ours (this Node has JSON.rawJSON)'
      : 'refuse the call, naming the number (this Node has no JSON.rawJSON)',
    async () => {
      const server = recordingServer();
      const remote = await connectMcp({
        transport: { url: 'http://recording.test/mcp', fetch: server.fetch },
        protocol: 'legacy',
      });
      try {
        if (EXACT) {
          await expect(run(remote, ARGS)).resolves.toMatchObject({ output: 'ok' });
          expect(sentArguments(server.bodies[0])).toBe(
            '{"tweet_id":1234567890123456789,"reply_to":-98765432109876543210,"count":3}',
          );
        } else {
          await expect(run(remote, ARGS)).rejects.toMatchObject({
            code: 'INVALID_ARGUMENTS',
            message:
              'mcp: call "fetch_tweet": the integer 1234567890123456789 is beyond what a JavaScript number holds exactly (2^53) and cannot be sent as written: this Node.js has no JSON.rawJSON (Node 21 and later do)',
          });
          expect(server.bodies).toEqual([]);
        }
      } finally {
        await remote.close();
      }
    },
  );

  it('leave every other argument as it was: long digit runs in strings, floats, safe integers', async () => {
    const server = recordingServer();
    const remote = await connectMcp({
      transport: { url: 'http://recording.test/mcp', fetch: server.fetch },
      protocol: 'legacy',
    });
    try {
      const args =
        '{"id": "12345678901234567890", "big": 9007199254740991, "ratio": 12345678901234567.5, "e": 1e21, "q": "a\\"12345678901234567890"}';
      await expect(run(remote, args)).resolves.toMatchObject({ output: 'ok' });
      expect(JSON.parse(sentArguments(server.bodies[0]))).toEqual(JSON.parse(args));
    } finally {
      await remote.close();
    }
  });

  it('refuse the call over the caller’s own transport, which hands messages over as objects', async () => {
    const server = await new RawServer({
      tools: [{ name: 'fetch_tweet', inputSchema: { type: 'object' } }],
      call: () => ({ content: [{ type: 'text', text: 'ok' }] }),
    }).start();
    const remote = await connectMcp({ transport: server.clientTransport, protocol: 'legacy' });
    try {
      await expect(run(remote, '{"tweet_id": 1234567890123456789}')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENTS',
        message: EXACT
          ? 'mcp: call "fetch_tweet": the integer 1234567890123456789 is beyond what a JavaScript number holds exactly (2^53) and cannot be sent as written: this connection hands messages over as objects (a transport of your own), not as JSON text'
          : 'mcp: call "fetch_tweet": the integer 1234567890123456789 is beyond what a JavaScript number holds exactly (2^53) and cannot be sent as written: this Node.js has no JSON.rawJSON (Node 21 and later do)',
      });
      // Safe arguments still go through.
      await expect(run(remote, '{"tweet_id": 123}')).resolves.toMatchObject({ output: 'ok' });
    } finally {
      await remote.close();
    }
  });
});
