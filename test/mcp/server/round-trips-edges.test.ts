/**
 * The edges of a 2026-07-28 call that asks questions: answers sent under another tool's
 * name, a server that closes while a call waits for its session, a request cancelled
 * while its question is being prepared, and the request limit's option. The contract is
 * the Go binding's (mcpserver/elicit.go: each tool holds its own parked runs).
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { type Elicitation, newTool, type Tool } from 'agenttool';
import { McpToolServer, type McpServerOptions, serveTools } from 'agenttool/mcp';
import { deferred } from './helpers';
import { manual, onlyKey, PipeClientTransport, text } from './manual-client';

const confirm: Elicitation = {
  message: 'deploy to production?',
  schema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
};

/** Asks once and reports the answer. */
function deploy(): Tool {
  return newTool({
    name: 'deploy',
    description: 'asks before it deploys',
    execute: async (_call, ctx) => ({ output: `deploy: ${(await ctx.ask(confirm)).action}` }),
  });
}

function serve(tools: Tool[], options: McpServerOptions = {}): McpToolServer {
  return new McpToolServer(tools, { name: 'deployer', version: '1', ...options });
}

describe('a request state belongs to the tool that asked', () => {
  test('answers sent under another tool are refused (-32602), and the run stays parked for its own', async () => {
    const otherRan: string[] = [];
    const other = newTool({
      name: 'other',
      description: 'does something else',
      execute: () => (otherRan.push('ran'), { output: 'other ran' }),
    });
    const m = await manual(serve([deploy(), other]));
    try {
      const first = await m.call();
      expect(first.resultType).toBe('input_required');
      const answers = { [onlyKey(first)]: { action: 'accept', content: { confirm: true } } };

      const misdirected = m.call({
        name: 'other',
        inputResponses: answers,
        requestState: first.requestState,
      });
      await expect(misdirected).rejects.toMatchObject({
        code: -32602,
        message:
          'Invalid requestState: it was issued for a call of tool "deploy", not "other"; call the tool again without it',
      });

      const unknown = await m.call({
        name: 'no-such-tool',
        inputResponses: answers,
        requestState: first.requestState,
      });
      expect(unknown).toMatchObject({ isError: true });
      expect(text(unknown)).toBe('unknown tool "no-such-tool"');

      // The state was not spent: deploy's own request still resumes its run.
      const resumed = await m.call({ inputResponses: answers, requestState: first.requestState });
      expect(resumed.isError).toBeUndefined();
      expect(text(resumed)).toBe('deploy: accept');
      expect(otherRan).toEqual([]);
    } finally {
      await m.close();
    }
  });
});

describe('a server that closes while a call waits to start', () => {
  test("a call admitted before close, waiting for its session's hook, is answered shutting down and its tool never starts", async () => {
    const started = deferred();
    const finish = deferred();
    const tool = newTool({
      name: 'deploy',
      description: 'runs until stopped',
      execute: (_call, ctx) =>
        new Promise((resolve) => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => resolve({ output: 'stopped' }));
          void finish.promise.then(() => resolve({ output: 'finished' }));
        }),
    });
    let armed = false;
    const hookEntered = deferred();
    const hookGate = deferred();
    const server = serve([tool], {
      // Far longer than the test may take: close must not wait for it.
      closeGraceMs: 10 * 60 * 1000,
      onSession: async () => {
        if (!armed) return;
        hookEntered.resolve();
        await hookGate.promise;
      },
    });
    const m = await manual(server);
    try {
      armed = true;
      const answer = m.call();
      // Awaited below; a test that fails first must not leave it unhandled.
      answer.catch(() => undefined);
      await hookEntered.promise;
      const closed = server.close().then(() => 'closed');
      hookGate.resolve();
      const first = await Promise.race([closed, started.promise.then(() => 'the tool started')]);
      expect(first).toBe('closed');
      const result = await answer;
      expect(result).toMatchObject({ isError: true });
      expect(text(result)).toBe('mcp: the server is shutting down');
    } finally {
      // Lets a tool that started anyway return, so close can end.
      finish.resolve();
      await m.close();
    }
  });
});

/**
 * A server's stdout that holds back the first progress notification: the transport's
 * send of it waits for `drain` until {@link held}'s `release`, so the call that sent it
 * waits in its flush before its question goes back.
 */
function progressHeldBack(): { stdout: PassThrough; written: Promise<void>; release(): void } {
  const stdout = new PassThrough();
  const written = deferred();
  const write = stdout.write.bind(stdout) as (chunk: string) => boolean;
  let holding = true;
  stdout.write = ((chunk: string) => {
    const flowing = write(chunk);
    if (!holding || !chunk.includes('notifications/progress')) return flowing;
    holding = false;
    written.resolve();
    return false;
  }) as typeof stdout.write;
  return { stdout, written: written.promise, release: () => void stdout.emit('drain') };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a request cancelled while its question is being prepared', () => {
  test('the run is stopped, not parked for answers nobody will send', async () => {
    const asked = deferred();
    const outcome = deferred<string>();
    const tool = newTool({
      name: 'deploy',
      description: 'reports progress, then asks',
      execute: async (_call, ctx) => {
        ctx.progress('checking the target');
        const answer = ctx.ask(confirm);
        asked.resolve();
        try {
          await answer;
          outcome.resolve('answered');
        } catch (error) {
          outcome.resolve(`stopped: ${String(ctx.signal.reason)}`);
          throw error;
        }
        return { output: 'deployed' };
      },
    });
    const server = serve([tool]);
    const stdin = new PassThrough();
    const { stdout, written, release } = progressHeldBack();
    await server.serveStdio({ stdin, stdout });
    const client = new Client(
      { name: 'pipe', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    await client.connect(new PipeClientTransport(stdin, stdout));
    try {
      const cancel = new AbortController();
      const call = client.request(
        { method: 'tools/call', params: { name: 'deploy', arguments: {} } },
        { allowInputRequired: true, onprogress: () => undefined, signal: cancel.signal },
      );
      call.catch(() => undefined);
      await written;
      await asked.promise;
      // The request has taken the question and waits for its progress to go out.
      await turn();
      await turn();
      cancel.abort(new Error('user pressed Esc'));
      await expect(call).rejects.toThrow('user pressed Esc');
      // The server handles messages in order: once a listing is answered, it has seen the cancel.
      await client.listTools();
      release();
      // A parked run would wait for answers for 30 minutes: the test's timeout would end it.
      expect(await outcome.promise).toBe('stopped: AgentToolError: mcp: the request was cancelled');
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('maxRequests', () => {
  /** Asks until a question fails; reports how many were answered, and the failure. */
  const persistent = newTool({
    name: 'deploy',
    description: 'asks one step at a time',
    execute: async (_call, ctx) => {
      for (let answered = 0; ; answered++) {
        try {
          await ctx.ask(confirm);
        } catch (error) {
          return { output: `${answered} answered; ${(error as Error).message}` };
        }
      }
    },
  });

  test('0 means the default: the question of the tenth request fails at once', async () => {
    const m = await manual(serve([persistent], { maxRequests: 0 }));
    try {
      let result = await m.call();
      for (let requests = 1; result.resultType === 'input_required' && requests < 20; requests++) {
        result = await m.call({
          inputResponses: { [onlyKey(result)]: { action: 'accept', content: { confirm: true } } },
          requestState: result.requestState,
        });
      }
      expect(text(result)).toBe(
        '9 answered; mcpserver: elicitation: the client makes 10 requests of a call at most and this question would need one more; ask fewer questions, or ask them together',
      );
    } finally {
      await m.close();
    }
  });

  test.each<[string, unknown, string]>([
    ['NaN', Number.NaN, 'NaN'],
    ['a fraction', 2.5, '2.5'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['a string', '10', '"10"'],
  ])('%s is refused with what was wrong', (_, maxRequests, got) => {
    expect(() => serveTools([persistent], { maxRequests: maxRequests as number })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: `mcp: maxRequests must be a whole number of requests (0: the default, 10; negative: no limit), got ${got}`,
      }),
    );
  });
});
