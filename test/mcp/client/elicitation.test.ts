import {
  type Answer,
  CancelledError,
  createContext,
  newTool,
  text,
  type Elicitation,
  type Elicitor,
  type Tool,
  type ToolContext,
} from 'agenttool';
import { connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';
import { deferred, RawServer, type CallScope } from './raw-server';

const FORM = {
  mode: 'form',
  message: 'Confirm?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
};

/** A server whose tool asks one question and returns the answer it got as JSON text. */
async function asking(
  question: Record<string, unknown>,
  extra: Omit<Parameters<typeof connectMcp>[0], 'transport'> = { elicitation: true },
  onCall?: (scope: CallScope) => void | Promise<void>,
): Promise<{ server: RawServer; remote: RemoteTools; tool: Tool }> {
  const server = await new RawServer({
    tools: [{ name: 'ask', inputSchema: { type: 'object' } }],
    call: async (scope) => {
      await onCall?.(scope);
      try {
        const answer = await scope.request('elicitation/create', question);
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      } catch (error) {
        return { content: [{ type: 'text', text: `failed: ${(error as Error).message}` }] };
      }
    },
  }).start();
  const remote = await connectMcp({ transport: server.clientTransport, ...extra });
  return { server, remote, tool: remote.tools()[0] as Tool };
}

function run(tool: Tool, elicitor?: Elicitor, signal?: AbortSignal): Promise<unknown> {
  const call = { id: 'call_1', args: '{}' };
  return Promise.resolve(
    tool.execute(
      call,
      createContext({ call, ...(elicitor ? { elicitor } : {}), ...(signal ? { signal } : {}) }),
    ),
  ).then((r) => r.output);
}

describe('elicitation', () => {
  it('declares form and URL elicitation and puts the question to the call elicitor', async () => {
    const { server, remote, tool } = await asking(FORM);
    expect(server.clientCapabilities?.['elicitation']).toEqual({ form: {}, url: {} });
    const asked: { question: Elicitation; callId: string }[] = [];
    const elicitor: Elicitor = (question, ctx) => {
      asked.push({ question, callId: ctx.call.id });
      return { action: 'accept', content: { confirm: true } };
    };
    await expect(run(tool, elicitor)).resolves.toBe(
      '{"action":"accept","content":{"confirm":true}}',
    );
    expect(asked).toEqual([
      { question: { message: 'Confirm?', schema: FORM.requestedSchema }, callId: 'call_1' },
    ]);
    await remote.close();
  });

  it('answers cancel when the call has no elicitor', async () => {
    const { remote, tool } = await asking(FORM);
    await expect(run(tool)).resolves.toBe('{"action":"cancel"}');
    await remote.close();
  });

  it('passes decline through', async () => {
    const { remote, tool } = await asking(FORM);
    await expect(run(tool, () => ({ action: 'decline' }))).resolves.toBe('{"action":"decline"}');
    await remote.close();
  });

  it('is off by default: the capability is not declared and the server question fails', async () => {
    const { server, remote, tool } = await asking(FORM, {});
    expect(server.clientCapabilities?.['elicitation']).toBeUndefined();
    let asked = false;
    await expect(run(tool, () => ((asked = true), { action: 'accept' }))).resolves.toMatch(
      /^failed: /,
    );
    expect(asked).toBe(false);
    await remote.close();
  });

  it('puts URL questions with their URL', async () => {
    const { remote, tool } = await asking({
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.com/login',
      elicitationId: 'e1',
    });
    const asked: Elicitation[] = [];
    await expect(run(tool, (q) => (asked.push(q), { action: 'accept' }))).resolves.toBe(
      '{"action":"accept"}',
    );
    expect(asked).toEqual([{ message: 'Sign in', url: 'https://example.com/login' }]);
    await remote.close();
  });

  it('answers cancel when two calls are in flight (the question cannot be tied to one)', async () => {
    const both = deferred();
    let started = 0;
    // Each call asks only once both calls are in flight.
    const { remote, tool } = await asking(FORM, { elicitation: true }, async () => {
      if (++started === 2) both.resolve();
      await both.promise;
    });
    let asked = 0;
    const elicitor: Elicitor = () => (asked++, { action: 'accept', content: { confirm: true } });
    const outputs = await Promise.all([run(tool, elicitor), run(tool, elicitor)]);
    expect(outputs).toEqual(['{"action":"cancel"}', '{"action":"cancel"}']);
    expect(asked).toBe(0);
    await remote.close();
  });

  it.each([
    ['another caller', 'bob', []],
    ['the same caller', 'ada', ['Confirm?']],
  ])(
    "puts a question of a call given up to %s's later call, the only one in flight, only when it is the same caller's",
    async (_case, laterSubject, expectedAsked) => {
      const givenUp = deferred();
      const laterStarted = deferred();
      const heard = deferred<unknown>();
      // The first call goes on once cancelled (as some servers do) and asks once the second
      // is in flight, the only call in flight by then.
      const server = await new RawServer({
        tools: [
          { name: 'transfer', inputSchema: { type: 'object' } },
          { name: 'other', inputSchema: { type: 'object' } },
        ],
        call: async (scope) => {
          if (scope.params['name'] === 'other') {
            laterStarted.resolve();
            await heard.promise;
            return { content: [{ type: 'text', text: 'other done' }] };
          }
          await givenUp.promise;
          await laterStarted.promise;
          const answer = await scope.request('elicitation/create', FORM);
          heard.resolve(answer);
          return { content: [{ type: 'text', text: 'never read' }] };
        },
      }).start();
      const remote = await connectMcp({ transport: server.clientTransport, elicitation: true });
      const [transfer, other] = remote.tools() as [Tool, Tool];
      const as = (subject: string) => ({ subject, clientId: subject, scopes: [] });
      const firstAsked: unknown[] = [];
      const abort = new AbortController();
      const firstCall = { id: 'first', args: '{}' };
      const first = Promise.resolve(
        transfer.execute(
          firstCall,
          createContext({
            call: firstCall,
            auth: as('ada'),
            signal: abort.signal,
            elicitor: (q) => (firstAsked.push(q), { action: 'accept' }),
          }),
        ),
      );
      await server.waitFor((m) => 'method' in m && m.method === 'tools/call');
      abort.abort();
      await expect(first).rejects.toThrow(CancelledError);
      givenUp.resolve();
      const laterAsked: string[] = [];
      const laterCall = { id: 'later', args: '{}' };
      const later = Promise.resolve(
        other.execute(
          laterCall,
          createContext({
            call: laterCall,
            auth: as(laterSubject),
            elicitor: (q) => (laterAsked.push(q.message), { action: 'decline' }),
          }),
        ),
      ).then((r) => r.output);
      // Another caller's call is not asked (a composed server's clients are callers of one
      // connection); the same caller's is, as a question of the one call in flight always was.
      await expect(heard.promise).resolves.toEqual({
        action: expectedAsked.length === 0 ? 'cancel' : 'decline',
      });
      await expect(later).resolves.toBe('other done');
      expect(laterAsked).toEqual(expectedAsked);
      expect(firstAsked).toEqual([]);
      await remote.close();
    },
  );

  it("over HTTP, ties a 2025-era server's questions to the call whose stream carried them, several in flight", async () => {
    let started = 0;
    let bothIn: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (bothIn = resolve));
    const server = new McpToolServer([
      newTool({
        name: 'ask',
        parameters: { type: 'object', properties: { who: { type: 'string' } } },
        execute: async (call, ctx) => {
          const who = (JSON.parse(call.args) as { who: string }).who;
          if (++started === 2) bothIn();
          await both;
          const answer = await ctx.ask({ message: `question for ${who}` });
          return text(`${who} heard ${answer.action}`);
        },
      }),
    ]);
    const handler = server.handler();
    const remote = await connectMcp({
      transport: {
        url: 'http://localhost/mcp',
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      },
      protocol: 'legacy',
      elicitation: true,
    });
    const tool = remote.tools()[0] as Tool;
    const asked: string[] = [];
    const ask = (who: string) => {
      const call = { id: who, args: JSON.stringify({ who }) };
      const elicitor: Elicitor = (question) => {
        asked.push(`${who}: ${question.message}`);
        return { action: who === 'ada' ? 'accept' : 'decline', content: {} };
      };
      return Promise.resolve(tool.execute(call, createContext({ call, elicitor }))).then(
        (r) => r.output,
      );
    };
    await expect(Promise.all([ask('ada'), ask('bob')])).resolves.toEqual([
      'ada heard accept',
      'bob heard decline',
    ]);
    expect(asked.sort()).toEqual(['ada: question for ada', 'bob: question for bob']);
    await remote.close();
    await server.close();
  });

  it("over HTTP, gives a caller's own handler the question as the server sent it, without the client's mark", async () => {
    const server = new McpToolServer([
      newTool({
        name: 'ask',
        execute: async (_call, ctx) => text((await ctx.ask({ message: 'ok?' })).action),
      }),
    ]);
    const handler = server.handler();
    const seen: unknown[] = [];
    const remote = await connectMcp({
      transport: {
        url: 'http://localhost/mcp',
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      },
      protocol: 'legacy',
      elicitationHandler: (request) => (seen.push(request.params), { action: 'decline' }),
    });
    await expect(run(remote.tools()[0] as Tool)).resolves.toBe('decline');
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(seen[0])).not.toContain('dev.agenttool/call');
    expect(seen[0]).toMatchObject({ message: 'ok?' });
    await remote.close();
    await server.close();
  });

  it('lets a caller handler win over routing', async () => {
    const { remote, tool } = await asking(FORM, {
      elicitation: true,
      elicitationHandler: () => ({ action: 'decline' }),
    });
    let asked = false;
    await expect(run(tool, () => ((asked = true), { action: 'accept' }))).resolves.toBe(
      '{"action":"decline"}',
    );
    expect(asked).toBe(false);
    await remote.close();
  });

  it('fails the server question when the elicitor cannot ask', async () => {
    const { remote, tool } = await asking(FORM);
    const output = await run(tool, () => {
      throw new Error('no terminal');
    });
    expect(output).toMatch(/^failed: .*mcp: elicitation: no terminal/);
    await remote.close();
  });

  it('refuses an answer MCP cannot carry', async () => {
    const { remote, tool } = await asking(FORM);
    const output = await run(tool, () => ({ action: 'maybe' }) as unknown as Answer);
    expect(output).toMatch(/^failed: .*mcp: elicitation answer: unknown action \\"maybe\\"/);
    const none = await run(tool, () => undefined as unknown as Answer);
    expect(none).toMatch(
      /^failed: .*mcp: elicitation answer: expected an object \{ action, content\? \}, got undefined/,
    );
    await remote.close();
  });

  it('ending the call with a question open answers cancel and ends the call at once', async () => {
    const questionOpen = deferred();
    const serverHeard = deferred<Record<string, unknown>>();
    const server = await new RawServer({
      tools: [{ name: 'ask', inputSchema: { type: 'object' } }],
      call: async (scope) => {
        serverHeard.resolve(await scope.request('elicitation/create', FORM));
        return new Promise(() => undefined);
      },
    }).start();
    const remote = await connectMcp({ transport: server.clientTransport, elicitation: true });
    const controller = new AbortController();
    let elicitorCtx: ToolContext | undefined;
    const pending = run(
      remote.tools()[0] as Tool,
      (_q, ctx) => {
        elicitorCtx = ctx;
        questionOpen.resolve();
        return new Promise<Answer>(() => undefined); // the user never answers
      },
      controller.signal,
    );
    await questionOpen.promise;
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    await expect(serverHeard.promise).resolves.toEqual({ action: 'cancel' });
    expect(elicitorCtx?.signal.aborted).toBe(true);
    await remote.close();
  });
});
