/**
 * Questions a served tool asks a 2026-07-28 client: they go back as the call's result
 * (`inputRequests` named `elicit_<n>`, with a request state) while the tool runs on,
 * and the client's next request with that state resumes the same run. The cases and
 * texts are the Go binding's (mcpserver/elicit.go, mcpserver/elicit_test.go).
 */
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createContext,
  type Elicitation,
  newTool,
  outputText,
  type Tool,
  type ToolContext,
} from 'agenttool';
import { connectMcp, McpToolServer, type McpServerOptions } from 'agenttool/mcp';
import { deferred } from './helpers';
import { manual, onlyKey, PipeClientTransport, text } from './manual-client';

const confirmSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};
const confirm: Elicitation = { message: 'deploy to production?', schema: confirmSchema };

/** Go's asker: asks each question in turn and reports every answer. */
function asker(...questions: Elicitation[]): Tool {
  return newTool({
    name: 'deploy',
    description: 'asks before it deploys',
    execute: async (call, ctx) => {
      if (ctx.elicitor === undefined) return { output: 'nobody to ask' };
      const out: string[] = [];
      for (const question of questions) {
        const answer = await ctx.ask(question);
        out.push(
          `${answer.action} ${answer.content === undefined ? '' : JSON.stringify(answer.content)}`,
        );
      }
      if (ctx.call.id !== call.id) throw new Error('the call on the context changed');
      return { output: out.join('; ') };
    },
  });
}

/** A tool that asks once and reports what its question ended with. */
function askAndWait(): { tool: Tool; stopped: Promise<string> } {
  const stopped = deferred<string>();
  const tool = newTool({
    name: 'deploy',
    description: 'asks and waits',
    execute: async (_call, ctx: ToolContext) => {
      try {
        await ctx.ask(confirm);
        stopped.resolve('answered');
      } catch (error) {
        stopped.resolve(
          `stopped: ${ctx.signal.aborted ? 'signal aborted' : 'signal live'}: ${String(error)}`,
        );
        throw error;
      }
      return { output: 'done' };
    },
  });
  return { tool, stopped: stopped.promise };
}

function serve(tool: Tool, options: McpServerOptions = {}): McpToolServer {
  return new McpToolServer([tool], { name: 'deployer', version: '1', ...options });
}

describe('a 2026-07-28 client answering by hand', () => {
  test('a question goes back with the call as elicit_1, with a request state', async () => {
    const m = await manual(serve(asker(confirm)));
    try {
      const first = await m.call();
      expect(first.resultType).toBe('input_required');
      expect(first.inputRequests).toEqual({
        elicit_1: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'deploy to production?',
            requestedSchema: confirmSchema,
          },
        },
      });
      // Signed with a key of the server's own (the SDK's HMAC codec): `v1.<payload>.<mac>`.
      expect(first.requestState).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    } finally {
      await m.close();
    }
  });

  test('two questions asked together go back together, answered in one request', async () => {
    const asked = newTool({
      name: 'deploy',
      description: 'asks two things at once',
      execute: async (_call, ctx) => {
        const [a, b] = await Promise.all([
          ctx.ask({
            message: 'us',
            schema: { type: 'object', properties: { r: { type: 'string' } } },
          }),
          ctx.ask({
            message: 'eu',
            schema: { type: 'object', properties: { r: { type: 'string' } } },
          }),
        ]);
        return { output: `${JSON.stringify(a.content)} ${JSON.stringify(b.content)}` };
      },
    });
    const m = await manual(serve(asked));
    try {
      const first = await m.call();
      expect(Object.keys(first.inputRequests as object).sort()).toEqual(['elicit_1', 'elicit_2']);
      const second = await m.call({
        inputResponses: {
          elicit_1: { action: 'accept', content: { r: 'us' } },
          elicit_2: { action: 'accept', content: { r: 'eu' } },
        },
        requestState: first.requestState,
      });
      expect(text(second)).toBe('{"r":"us"} {"r":"eu"}');
    } finally {
      await m.close();
    }
  });

  // Go: TestElicitationAnswers
  test.each<[string, Record<string, unknown> | undefined, string, boolean]>([
    [
      'accepted',
      { action: 'accept', content: { confirm: true } },
      'accept {"confirm":true}',
      false,
    ],
    ['left out', undefined, 'cancel ', false],
    [
      'off the schema',
      { action: 'accept', content: { confirm: 'yes' } },
      'elicitation answer',
      true,
    ],
    ['unknown action', { action: 'maybe' }, 'unknown action "maybe"', true],
  ])('answers are checked: %s', async (_, answer, want, isError) => {
    const m = await manual(serve(asker(confirm)));
    try {
      const first = await m.call();
      const responses = answer === undefined ? {} : { [onlyKey(first)]: answer };
      const res = await m.call({ inputResponses: responses, requestState: first.requestState });
      if (isError) {
        expect(res.isError).toBe(true);
        expect(text(res)).toContain(want);
      } else {
        expect(res.isError).toBeUndefined();
        expect(text(res)).toBe(want);
      }
    } finally {
      await m.close();
    }
  });

  // Go: TestElicitationStateAnswersOnce
  test('a request state answers once: a replayed one reaches no call (the Go result)', async () => {
    const m = await manual(serve(asker(confirm)));
    try {
      const first = await m.call();
      const answer = { [onlyKey(first)]: { action: 'decline' } };
      const results = [];
      for (const state of [first.requestState, first.requestState]) {
        results.push(await m.call({ inputResponses: answer, requestState: state }));
      }
      expect(results[0]?.isError).toBeUndefined();
      expect(text(results[0]!)).toBe('decline ');
      expect(results[1]).toMatchObject({ isError: true });
      expect(text(results[1]!)).toBe(
        'mcpserver: tool "deploy": the call these answers belong to is no longer waiting for them; call the tool again',
      );
    } finally {
      await m.close();
    }
  });

  // 2026-07-28 (SEP-2322): state that fails its integrity check MUST be rejected.
  test.each([
    ['invented', () => 'invented'],
    ['altered', (state: string) => `${state}-TAMPERED`],
    ['with its payload swapped', (state: string) => state.replace(/^v1\.[\w-]+/, 'v1.eyJwIjp7fX0')],
  ])(
    'a request state %s is refused with JSON-RPC -32602, and the run stays parked',
    async (_, forge) => {
      const m = await manual(serve(asker(confirm)));
      try {
        const first = await m.call();
        const answer = { [onlyKey(first)]: { action: 'accept', content: { confirm: true } } };
        const refused = m.call({
          inputResponses: answer,
          requestState: forge(String(first.requestState)),
        });
        await expect(refused).rejects.toMatchObject({
          code: -32602,
          message: expect.stringMatching(/^Invalid requestState: it fails its integrity check/),
          data: { reason: 'invalid_request_state' },
        });
        const resumed = await m.call({ inputResponses: answer, requestState: first.requestState });
        expect(text(resumed)).toBe('accept {"confirm":true}');
      } finally {
        await m.close();
      }
    },
  );

  // Go: TestElicitationAbandoned
  test('a call whose client never comes back is stopped after abandonAfterMs', async () => {
    const { tool, stopped } = askAndWait();
    const m = await manual(serve(tool, { abandonAfterMs: 20 }));
    try {
      await m.call();
      expect(await stopped).toMatch(
        /^stopped: signal aborted: .*did not come back with the answers/,
      );
    } finally {
      await m.close();
    }
  });

  test('a parked call is stopped when the server closes', async () => {
    const { tool, stopped } = askAndWait();
    const m = await manual(serve(tool));
    await m.call();
    await m.close();
    expect(await stopped).toMatch(/^stopped: signal aborted: .*mcp: the server is shutting down$/);
  });

  // Go: TestElicitationModeNotOffered; TestElicitationNotOffered
  test('a client that takes forms alone is not sent a URL question: the request fails -32021 naming URL elicitation', async () => {
    const m = await manual(serve(asker({ message: 'sign in', url: 'https://example.com/auth' })), {
      form: {},
    });
    try {
      await expect(m.call()).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      });
    } finally {
      await m.close();
    }
  });

  test('a client that offers no elicitation is asked nothing: a tool that looks first does without', async () => {
    const server = serve(asker(confirm));
    const handler = server.handler();
    const client = new Client(
      { name: 'plain', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    try {
      const res = await client.request({ method: 'tools/call', params: { name: 'deploy' } });
      expect(text(res as Record<string, unknown>)).toBe('nobody to ask');
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('through our client', () => {
  // Go: TestElicitationLastRequest
  test("a tenth question is answered with an error at once: the client's last request", async () => {
    const tool = newTool({
      name: 'deploy',
      description: 'asks one step at a time',
      execute: async (_call, ctx) => {
        const out: string[] = [];
        for (let i = 0; i < 10; i++) {
          try {
            out.push((await ctx.ask(confirm)).action);
          } catch (error) {
            out.push(`error: ${(error as Error).message}`);
            break;
          }
        }
        return { output: out.join('; ') };
      },
    });
    const server = serve(tool);
    const listener = await server.listenHttp();
    const remote = await connectMcp({ transport: { url: listener.url }, elicitation: true });
    try {
      const asked: string[] = [];
      const deploy = remote.tools()[0]!;
      const call = { id: 'call_1', args: '{}' };
      const result = await deploy.execute(
        call,
        createContext({
          call,
          elicitor: (q) => (
            asked.push(q.message),
            { action: 'accept', content: { confirm: true } }
          ),
        }),
      );
      expect(asked).toHaveLength(9);
      expect(outputText(result.output)).toMatch(
        new RegExp(
          `^${'accept; '.repeat(9)}error: mcpserver: elicitation: the client makes 10 requests of a call at most and this question would need one more; ask fewer questions, or ask them together$`,
        ),
      );
    } finally {
      await remote.close();
      await server.close();
    }
  });

  // Go: TestElicitationStatelessHTTP
  test('over stateless HTTP the run is resumed all the same', async () => {
    const server = serve(asker(confirm));
    const listener = await server.listenHttp({ stateless: true });
    const remote = await connectMcp({ transport: { url: listener.url }, elicitation: true });
    try {
      expect(remote.era).toBe('modern');
      const deploy = remote.tools()[0]!;
      const call = { id: 'call_1', args: '{}' };
      const result = await deploy.execute(
        call,
        createContext({ call, elicitor: () => ({ action: 'accept', content: { confirm: true } }) }),
      );
      expect(result.output).toBe('accept {"confirm":true}');
    } finally {
      await remote.close();
      await server.close();
    }
  });

  // Go: TestElicitationCancelled
  test('a call the client cancels while the tool runs stops the tool, though it runs detached', async () => {
    const started = deferred();
    const stopped = deferred<string>();
    const tool = newTool({
      name: 'deploy',
      description: 'runs until stopped',
      execute: (_call, ctx) =>
        new Promise((_resolve, reject) => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => {
            stopped.resolve(String(ctx.signal.reason));
            reject(new Error('stopped'));
          });
        }),
    });
    const server = serve(tool);
    const listener = await server.listenHttp();
    const remote = await connectMcp({ transport: { url: listener.url }, protocol: 'modern' });
    try {
      const interrupt = new AbortController();
      const call = { id: 'call_1', args: '{}' };
      const running = remote
        .tools()[0]!
        .execute(call, createContext({ call, signal: interrupt.signal }));
      await started.promise;
      interrupt.abort(new Error('user pressed Esc'));
      await expect(running).rejects.toThrow('mcp: call "deploy": context canceled');
      expect(await stopped.promise).toContain('cancelled');
    } finally {
      await remote.close();
      await server.close();
    }
  });
});

// Go: TestElicitationSessionClosed
test('over stdio, a call parked on a question is stopped when the connection ends', async () => {
  const { tool, stopped } = askAndWait();
  const server = serve(tool);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const connection = await server.serveStdio({ stdin, stdout });
  const client = new Client(
    { name: 'pipe', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(new PipeClientTransport(stdin, stdout));
  try {
    expect(client.getProtocolEra()).toBe('modern');
    const first = await client.request(
      { method: 'tools/call', params: { name: 'deploy', arguments: {} } },
      { allowInputRequired: true },
    );
    expect((first as Record<string, unknown>).resultType).toBe('input_required');
    await client.close();
    await connection.closed;
    expect(await stopped).toMatch(/^stopped: signal aborted: .*the session ended/);
  } finally {
    await server.close();
  }
});
