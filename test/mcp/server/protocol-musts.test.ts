/**
 * What MCP 2026-07-28 requires of a server, through the real HTTP endpoint (a loopback
 * listener, requests written by hand): a request that needs a capability the client did
 * not declare fails with MissingRequiredClientCapability (-32021) and HTTP 400, a
 * tool that asks the user included; a request state that fails its integrity check is a
 * JSON-RPC error (-32602); input requests carry the keys tools give them. The 2025 era
 * keeps the Go binding's answers (no elicitation: `cancel`). And the edges any request
 * meets: arguments nested at any depth get the depth error, and a body over the limit
 * gets its 413 rather than a reset.
 */
import { connect } from 'node:net';
import {
  MissingCapabilityError,
  newTool,
  Param,
  Tool,
  type Tool as ToolType,
  toolFromInstance,
} from 'agenttool';
import { type HttpListener, McpToolServer } from 'agenttool/mcp';
import { INITIALIZE, modern, post, resultText } from '../auth/helpers';

const sample = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hello' } }],
  maxTokens: 20,
};

const tools: ToolType[] = [
  newTool({
    name: 'needs_model',
    description: "Uses the client's model",
    execute: async (_call, ctx) => {
      const answer = await ctx.sample(sample);
      return { output: answer.content.type === 'text' ? answer.content.text : '' };
    },
  }),
  newTool({
    name: 'needs_roots',
    description: "Lists the client's roots",
    execute: async (_call, ctx) => ({ output: (await ctx.roots()).map((r) => r.uri).join() }),
  }),
  newTool({
    name: 'asks',
    description: 'Asks the user before it acts',
    execute: async (_call, ctx) => ({
      output: `answered ${(await ctx.ask({ key: 'go', message: 'Go?' })).action}`,
    }),
  }),
  newTool({
    name: 'signs_in',
    description: 'Sends the user to a page',
    execute: async (_call, ctx) => ({
      output: (await ctx.ask({ message: 'Sign in', url: 'https://example.com/login' })).action,
    }),
  }),
  newTool({
    name: 'does_without',
    description: 'Uses the model when the client lends it, and does without otherwise',
    execute: async (_call, ctx) => {
      try {
        await ctx.sample(sample);
        return { output: 'with the model' };
      } catch (error) {
        if (error instanceof MissingCapabilityError) return { output: 'without the model' };
        throw error;
      }
    },
  }),
];

let server: McpToolServer;
let listener: HttpListener;

beforeAll(async () => {
  server = new McpToolServer(tools);
  listener = await server.listenHttp();
});

afterAll(async () => {
  await server.close();
});

const declaring = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** A 2026-07-28 `tools/call` of `name` at `url` carrying `inputResponses` (and a state). */
const callWithAnswers =
  (url: string, name: string) => (inputResponses: Record<string, unknown>, requestState?: string) =>
    post(
      url,
      modern(
        'tools/call',
        { name, arguments: {}, inputResponses, ...(requestState && { requestState }) },
        declaring({ elicitation: {} }),
      ),
    );

describe('2026-07-28: a capability the client did not declare', () => {
  test.each([
    ['needs_model', { elicitation: {}, roots: {} }, { sampling: {} }],
    ['needs_roots', { elicitation: {}, sampling: {} }, { roots: {} }],
    ['asks', { sampling: {}, roots: {} }, { elicitation: {} }],
    ['signs_in', { elicitation: { form: {} } }, { elicitation: { url: {} } }],
  ])('%s gets -32021 with HTTP 400 naming %j as missing', async (name, declared, missing) => {
    const answer = await post(
      listener.url,
      modern('tools/call', { name, arguments: {} }, declaring(declared), 7),
    );
    expect(answer.status).toBe(400);
    expect(answer.message).toMatchObject({
      id: 7,
      error: { code: -32021, data: { requiredCapabilities: missing } },
    });
    const message = (answer.message?.error as { message: string }).message;
    expect(message).toMatch(/^mcpserver: (sampling|roots|elicitation): the client did not declare/);
  });

  test('a tool that catches the error and does without completes the call', async () => {
    const answer = await post(
      listener.url,
      modern('tools/call', { name: 'does_without', arguments: {} }),
    );
    expect(answer.status).toBe(200);
    expect(resultText(answer)).toBe('without the model');
  });

  test('a client that declares it is asked, under the key the tool gave', async () => {
    const answer = await post(
      listener.url,
      modern('tools/call', { name: 'asks', arguments: {} }, declaring({ elicitation: {} })),
    );
    expect(answer.status).toBe(200);
    expect(answer.message?.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { go: { method: 'elicitation/create' } },
    });
  });
});

describe('the 2025 era keeps its answers', () => {
  async function session(capabilities: Record<string, unknown>): Promise<string> {
    const opened = await post(listener.url, {
      ...INITIALIZE,
      params: { ...INITIALIZE.params, capabilities },
    });
    const id = opened.headers.get('mcp-session-id');
    if (id === null) throw new Error(`no session: ${opened.text}`);
    return id;
  }

  const call = (id: string, name: string) =>
    post(
      listener.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } },
      { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    );

  test('a question with nobody to ask is answered cancel (the Go binding)', async () => {
    expect(resultText(await call(await session({}), 'asks'))).toBe('answered cancel');
  });

  test('sampling without the capability is the isError result saying so', async () => {
    const answer = await call(await session({ elicitation: {} }), 'needs_model');
    expect(answer.message?.result).toMatchObject({ isError: true });
    expect(resultText(answer)).toBe(
      'agenttool: sample: there is no model to ask: the client does not lend its model (over MCP: it did not declare the sampling capability)',
    );
  });
});

describe('2026-07-28: request states', () => {
  const elicitation = declaring({ elicitation: {} });

  async function parked(): Promise<string> {
    const first = await post(
      listener.url,
      modern('tools/call', { name: 'asks', arguments: {} }, elicitation),
    );
    return (first.message?.result as { requestState: string }).requestState;
  }

  const resume = (name: string, state: string) =>
    post(
      listener.url,
      modern(
        'tools/call',
        {
          name,
          arguments: {},
          requestState: state,
          inputResponses: { go: { action: 'accept', content: {} } },
        },
        elicitation,
        9,
      ),
    );

  test.each([
    ['tampered', (state: string) => `${state}-TAMPERED`, 'it fails its integrity check'],
    ['forged', () => 'v1.eyJwIjp7fSwiZXhwIjo5OTk5OTk5OTk5fQ.AAAA', 'it fails its integrity check'],
    ['sent under another tool', (state: string) => state, 'it was issued for a call of tool'],
  ])(
    'a %s one is a JSON-RPC error (-32602), and its run stays parked',
    async (kind, forge, why) => {
      const state = await parked();
      const refused = await resume(
        kind === 'sent under another tool' ? 'needs_model' : 'asks',
        forge(state),
      );
      expect(refused.message).toMatchObject({
        id: 9,
        error: { code: -32602, data: { reason: 'invalid_request_state' } },
      });
      expect((refused.message?.error as { message: string }).message).toContain(why);
      expect(resultText(await resume('asks', state))).toBe('answered accept');
    },
  );

  test("a spent one is the Go binding's isError result: nothing runs twice", async () => {
    const state = await parked();
    expect(resultText(await resume('asks', state))).toBe('answered accept');
    const again = await resume('asks', state);
    expect(again.message?.result).toMatchObject({ isError: true });
    expect(resultText(again)).toBe(
      'mcpserver: tool "asks": the call these answers belong to is no longer waiting for them; call the tool again',
    );
  });
});

describe('input request keys', () => {
  test("a key given twice in one round fails the second request; made-up keys avoid the tools' own", async () => {
    const keyed = newTool({
      name: 'keyed',
      description: 'asks three questions at once',
      execute: async (_call, ctx) => {
        const outcomes = await Promise.allSettled([
          ctx.ask({ key: 'elicit_1', message: 'first' }),
          ctx.ask({ message: 'second' }),
          ctx.ask({ key: 'elicit_1', message: 'third' }),
        ]);
        return {
          output: outcomes
            .map((o) => (o.status === 'fulfilled' ? o.value.action : String(o.reason)))
            .join(' | '),
        };
      },
    });
    const own = new McpToolServer([keyed]);
    const mine = await own.listenHttp();
    try {
      const first = await post(
        mine.url,
        modern('tools/call', { name: 'keyed', arguments: {} }, declaring({ elicitation: {} })),
      );
      const result = first.message?.result as {
        inputRequests: Record<string, unknown>;
        requestState: string;
      };
      expect(Object.keys(result.inputRequests).sort()).toEqual(['elicit_1', 'elicit_2']);
      const done = await post(
        mine.url,
        modern(
          'tools/call',
          {
            name: 'keyed',
            arguments: {},
            requestState: result.requestState,
            inputResponses: { elicit_1: { action: 'accept' }, elicit_2: { action: 'decline' } },
          },
          declaring({ elicitation: {} }),
        ),
      );
      expect(resultText(done)).toBe(
        'accept | decline | AgentToolError: mcpserver: elicitation: the key "elicit_1" names another request of the same round; give each request its own key',
      );
    } finally {
      await own.close();
    }
  });

  test('a call without a request state answers the questions its tool names from the answers it carries; other keys are ignored', async () => {
    const asked: string[] = [];
    const upFront = newTool({
      name: 'up_front',
      description: 'Asks a named question, then an unnamed one',
      execute: async (_call, ctx) => {
        const named = await ctx.ask({
          key: 'user_name',
          message: 'Your name?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        asked.push('user_name');
        const unnamed = await ctx.ask({ message: 'Sure?' });
        return { output: `${JSON.stringify(named.content ?? {})} ${unnamed.action}` };
      },
    });
    const own = new McpToolServer([upFront]);
    const mine = await own.listenHttp({ stateless: true });
    try {
      const call = callWithAnswers(mine.url, 'up_front');
      // The named question is answered from the call; the unnamed one goes back, and an
      // answer under a made-up key sent up front (elicit_1) answers nothing.
      const first = await call({
        user_name: { action: 'accept', content: { name: 'Alice' } },
        elicit_1: { action: 'decline' },
        unknown_extra: { action: 'accept', content: { foo: 'bar' } },
      });
      const pending = first.message?.result as {
        inputRequests: Record<string, unknown>;
        requestState: string;
      };
      expect(Object.keys(pending.inputRequests)).toEqual(['elicit_1']);
      expect(asked).toEqual(['user_name']);
      const done = await call({ elicit_1: { action: 'accept' } }, pending.requestState);
      expect(resultText(done)).toBe('{"name":"Alice"} accept');
      // An answer that does not fit the question's schema fails the question, as it
      // would when sent under a request state.
      const wrong = await call({ user_name: { action: 'accept', content: { name: 7 } } });
      expect(resultText(wrong)).toMatch(/^mcpserver: elicitation answer: /);
    } finally {
      await own.close();
    }
  });

  test('a call without a request state keeps at most 32 answers of 64 KiB in all for its parked run; the others go back as questions', async () => {
    const text = { type: 'object', properties: { text: { type: 'string' } } } as const;
    const asks = newTool({
      name: 'asks_by_key',
      description: 'Asks under big, k32 and k33',
      execute: async (_call, ctx) => {
        const answers: string[] = [];
        for (const key of ['big', 'k32', 'k33']) {
          const answer = await ctx.ask({ key, message: key, schema: text });
          const got = answer.content?.text;
          answers.push(`${key}:${typeof got === 'string' ? got.length : -1}`);
        }
        return { output: answers.join(' ') };
      },
    });
    const own = new McpToolServer([asks]);
    const mine = await own.listenHttp({ stateless: true });
    try {
      const call = callWithAnswers(mine.url, 'asks_by_key');
      const accept = (length: number) => ({
        action: 'accept',
        content: { text: 'x'.repeat(length) },
      });
      // An answer larger than the budget is not kept; of the rest, the first 32 are
      // (k1..k32), and k33 is not.
      const upFront: Record<string, unknown> = { big: accept(70_000) };
      for (let i = 1; i <= 33; i++) upFront[`k${i}`] = accept(i);
      const first = await call(upFront);
      const parked = first.message?.result as {
        inputRequests: Record<string, unknown>;
        requestState: string;
      };
      expect(Object.keys(parked.inputRequests)).toEqual(['big']);
      const second = await call({ big: accept(5) }, parked.requestState);
      const again = second.message?.result as {
        inputRequests: Record<string, unknown>;
        requestState: string;
      };
      expect(Object.keys(again.inputRequests)).toEqual(['k33']);
      const done = await call({ k33: accept(3) }, again.requestState);
      expect(resultText(done)).toBe('big:5 k32:32 k33:3');
    } finally {
      await own.close();
    }
  });
});

describe('arguments nested at any depth', () => {
  class Args {
    @Param('A name') name!: string;
  }
  @Tool({ name: 'greet', description: 'Greets', args: Args })
  class Greet {
    execute(args: Args): string {
      return `hello ${args.name}`;
    }
  }

  test.each([1000, 5000, 50_000])(
    'a decorated tool refuses arguments %i deep with the depth error, in both eras',
    async (depth) => {
      const own = new McpToolServer([toolFromInstance(new Greet())]);
      const mine = await own.listenHttp({ stateless: true });
      try {
        const deep = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
        const envelope = JSON.stringify(modern('tools/call').params);
        const meta = envelope.slice(1, -1);
        for (const era of ['2025-11-25', '2026-07-28']) {
          const params = `"name":"greet","arguments":{"name":"x","extra":${deep}}${era === '2026-07-28' ? `,${meta}` : ''}`;
          const answer = await fetch(mine.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': era,
              'mcp-method': 'tools/call',
              'mcp-name': 'greet',
            },
            body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{${params}}}`,
          });
          const text = await answer.text();
          expect(text).toContain(
            "invalid arguments: not valid JSON: invalid character '[' exceeded max depth of 1000",
          );
          expect(text).not.toContain('-32603');
        }
      } finally {
        await own.close();
      }
    },
  );
});

describe('a body over the limit', () => {
  /**
   * Sends a body of `size` bytes over a raw connection (declared, or chunked), paced by
   * the socket; resolves with the status line read and the connection's error, if any.
   * A server that closes with the rest of the body unread resets the connection, and the
   * client meets the reset (ECONNRESET, EPIPE) while it is still sending.
   */
  function upload(
    port: number,
    size: number,
    chunked: boolean,
  ): Promise<{ status: string; error?: string }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let error: string | undefined;
      socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
      socket.on('close', () =>
        resolve({ status: text.slice(0, 12), ...(error === undefined ? {} : { error }) }),
      );
      const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`;
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${length}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = (): void => {
        while (sent < size) {
          const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
          sent += part.length;
          const framed = chunked
            ? Buffer.concat([
                Buffer.from(`${part.length.toString(16)}\r\n`),
                part,
                Buffer.from('\r\n'),
              ])
            : part;
          if (!socket.write(framed)) {
            socket.once('drain', more);
            return;
          }
        }
        if (chunked) socket.write('0\r\n\r\n');
      };
      more();
    });
  }

  test.each([
    ['with its Content-Length', false],
    ['chunked', true],
  ])('sent %s, it gets its 413 and a clean close, not a reset', async (_, chunked) => {
    const own = new McpToolServer(tools);
    const mine = await own.listenHttp();
    try {
      for (const size of [4 * 1024 * 1024 + 1, 5 * 1024 * 1024, 8 * 1024 * 1024]) {
        expect(await upload(mine.port, size, chunked)).toEqual({ status: 'HTTP/1.1 413' });
      }
    } finally {
      await own.close();
    }
  });
});
