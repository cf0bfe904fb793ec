/**
 * A served tool asks the client for its model (`ctx.sample`) and its roots
 * (`ctx.roots`) as it asks the user: a request of the server's own on the call's stream
 * in the 2025 era, an input request that goes back with the call in 2026-07-28. Through
 * our client (which puts each to the `ctx.sample`/`ctx.roots` of the call it belongs to,
 * or to the connection's handlers) and through the SDK's client, in both eras; with
 * cancellation and the errors a client without the capability meets.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createContext,
  newTool,
  outputText,
  type SamplingRequest,
  type SamplingResult,
  type Tool,
  type ToolContext,
} from 'agenttool';
import { connectMcp, type HttpListener, McpToolServer } from 'agenttool/mcp';
import { deferred } from './helpers';

const question: SamplingRequest = {
  messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
  maxTokens: 50,
};

/** Lists the roots, then has the model answer; reports both. */
const summarize: Tool = newTool({
  name: 'summarize',
  description: "Reads the client's roots and asks its model",
  execute: async (_call, ctx) => {
    const roots = await ctx.roots();
    const answer = await ctx.sample(question);
    const text = answer.content.type === 'text' ? answer.content.text : '?';
    return {
      output: `${roots.map((r) => `${r.name ?? ''}=${r.uri}`).join(',')} | ${text} (${answer.model})`,
    };
  },
});

let server: McpToolServer;
let listener: HttpListener;

beforeAll(async () => {
  server = new McpToolServer([summarize]);
  listener = await server.listenHttp();
});

afterAll(async () => {
  await server.close();
});

/** A consuming host's model: it answers with the prompt's length, and records what it saw. */
function hostModel(seen: SamplingRequest[] = []) {
  return (request: SamplingRequest): SamplingResult => {
    seen.push(request);
    const prompt = request.messages[0]?.content;
    const text = prompt?.type === 'text' ? prompt.text : '';
    return {
      role: 'assistant',
      content: { type: 'text', text: `Paris (${text.length})` },
      model: 'host-model',
    };
  };
}

async function run(
  tool: Tool,
  ctx: Partial<Parameters<typeof createContext>[0]> = {},
): Promise<string> {
  const call = { id: 'call_1', args: '{}' };
  return outputText((await tool.execute(call, createContext({ call, ...ctx }))).output);
}

describe.each(['modern', 'legacy'] as const)('through connectMcp, %s', (protocol) => {
  test("sampling: true and roots: true put each request to the call's own ctx.sample and ctx.roots", async () => {
    const seen: SamplingRequest[] = [];
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol,
      sampling: true,
      roots: true,
    });
    try {
      expect(remote.era).toBe(protocol);
      const out = await run(remote.tools()[0]!, {
        sampler: hostModel(seen),
        rootsLister: () => [{ uri: 'file:///work', name: 'work' }],
      });
      expect(out).toBe('work=file:///work | Paris (30) (host-model)');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ maxTokens: 50, messages: question.messages });
    } finally {
      await remote.close();
    }
  });

  test('handlers and a list of roots answer for the connection, whatever the call', async () => {
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol,
      samplingHandler: hostModel(),
      roots: [{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }],
    });
    try {
      expect(await run(remote.tools()[0]!)).toBe(
        '=file:///a,b=file:///b | Paris (30) (host-model)',
      );
    } finally {
      await remote.close();
    }
  });

  test('a call whose context has no model fails with the tool saying so', async () => {
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol,
      sampling: true,
      roots: true,
    });
    try {
      await expect(run(remote.tools()[0]!, { rootsLister: () => [] })).rejects.toThrow(
        /mcp: sampling: agenttool: sample: there is no model to ask/,
      );
    } finally {
      await remote.close();
    }
  });

  test('a connection that lends no model: the call fails naming the capability', async () => {
    const remote = await connectMcp({ transport: { url: listener.url }, protocol, roots: true });
    try {
      const failure = run(remote.tools()[0]!, { rootsLister: () => [] });
      await expect(failure).rejects.toThrow(
        protocol === 'modern'
          ? 'mcp: call "summarize": the server needs a client capability this connection does not declare, {"sampling":{}}'
          : 'agenttool: sample: there is no model to ask',
      );
    } finally {
      await remote.close();
    }
  });
});

describe.each(['modern', 'legacy'] as const)('cancellation, %s', (protocol) => {
  test("cancelling the call aborts the host model's signal and stops the tool", async () => {
    const writing = deferred();
    const hostAborted = deferred<string>();
    const toolStopped = deferred<string>();
    const waits = newTool({
      name: 'waits_for_model',
      description: 'asks the model and reports how that ended',
      execute: async (_call, ctx: ToolContext) => {
        try {
          await ctx.sample(question);
          return { output: 'answered' };
        } catch (error) {
          toolStopped.resolve(ctx.signal.aborted ? 'signal aborted' : String(error));
          throw error;
        }
      },
    });
    const own = new McpToolServer([waits]);
    const mine = await own.listenHttp();
    const remote = await connectMcp({ transport: { url: mine.url }, protocol, sampling: true });
    try {
      const cancel = new AbortController();
      const call = { id: 'call_1', args: '{}' };
      const done = Promise.resolve(
        remote.tools()[0]!.execute(
          call,
          createContext({
            call,
            signal: cancel.signal,
            sampler: (_request, ctx) =>
              new Promise<SamplingResult>((_resolve, reject) => {
                writing.resolve();
                ctx.signal.addEventListener('abort', () => {
                  hostAborted.resolve('aborted');
                  reject(new Error('stopped writing'));
                });
              }),
          }),
        ),
      );
      done.catch(() => undefined);
      await writing.promise;
      cancel.abort(new Error('user pressed Esc'));
      await expect(done).rejects.toThrow('context canceled');
      expect(await hostAborted.promise).toBe('aborted');
      expect(await toolStopped.promise).toBe('signal aborted');
    } finally {
      await remote.close();
      await own.close();
    }
  });
});

describe("through the SDK's client", () => {
  function sdkClient(modern: boolean): Client {
    const client = new Client(
      { name: 'sdk', version: '1' },
      {
        capabilities: { sampling: {}, roots: {} },
        versionNegotiation: { mode: modern ? { pin: '2026-07-28' } : 'legacy' },
      },
    );
    client.setRequestHandler('sampling/createMessage', (request) => ({
      role: 'assistant',
      content: { type: 'text', text: `sdk saw ${request.params.messages.length} message` },
      model: 'sdk-model',
    }));
    client.setRequestHandler('roots/list', () => ({
      roots: [{ uri: 'file:///sdk', name: 'sdk' }],
    }));
    return client;
  }

  test.each([
    ['2025 era', false],
    ['2026-07-28', true],
  ])('%s: its handlers answer, and the call completes', async (_, modern) => {
    const client = sdkClient(modern);
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      expect(client.getProtocolEra()).toBe(modern ? 'modern' : 'legacy');
      const result = await client.callTool({ name: 'summarize', arguments: {} });
      expect(result.content).toEqual([
        { type: 'text', text: 'sdk=file:///sdk | sdk saw 1 message (sdk-model)' },
      ]);
    } finally {
      await client.close();
    }
  });

  test('2026-07-28 by hand: the requests go back under sample_1 and roots_1, one after the other', async () => {
    const client = new Client(
      { name: 'manual', version: '1' },
      {
        capabilities: { sampling: {}, roots: {} },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      const call = (params: Record<string, unknown>) =>
        client.request(
          { method: 'tools/call', params: { name: 'summarize', arguments: {}, ...params } },
          { allowInputRequired: true },
        ) as Promise<Record<string, unknown>>;
      const first = await call({});
      expect(first).toMatchObject({
        resultType: 'input_required',
        inputRequests: { roots_1: { method: 'roots/list', params: {} } },
      });
      const second = await call({
        requestState: first.requestState,
        inputResponses: { roots_1: { roots: [{ uri: 'file:///x' }] } },
      });
      expect(second).toMatchObject({
        resultType: 'input_required',
        inputRequests: {
          sample_1: {
            method: 'sampling/createMessage',
            params: { maxTokens: 50, messages: question.messages },
          },
        },
      });
      const third = await call({
        requestState: second.requestState,
        inputResponses: {
          sample_1: {
            role: 'assistant',
            content: { type: 'image', data: 'AQID', mimeType: 'image/png' },
            model: 'm',
          },
        },
      });
      expect(third).toMatchObject({ content: [{ type: 'text', text: '=file:///x | ? (m)' }] });
    } finally {
      await client.close();
    }
  });

  test('2026-07-28: an answer that is not a sampling result fails the tool, saying what came', async () => {
    const client = new Client(
      { name: 'manual', version: '1' },
      {
        capabilities: { sampling: {}, roots: {} },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      const call = (params: Record<string, unknown>) =>
        client.request(
          { method: 'tools/call', params: { name: 'summarize', arguments: {}, ...params } },
          { allowInputRequired: true },
        ) as Promise<Record<string, unknown>>;
      const first = await call({});
      const second = await call({
        requestState: first.requestState,
        inputResponses: { roots_1: { roots: [] } },
      });
      const third = await call({
        requestState: second.requestState,
        inputResponses: { sample_1: { text: 'not a sampling result' } },
      });
      expect(third).toMatchObject({
        isError: true,
        content: [
          {
            type: 'text',
            text: 'mcpserver: sampling answer: the client answered with undefined, not a role ("assistant" or "user")',
          },
        ],
      });
    } finally {
      await client.close();
    }
  });
});
