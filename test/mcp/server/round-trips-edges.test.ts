/**
 * The edges of a 2026-07-28 call that asks questions: answers sent under another tool's
 * name, a server that closes while a call waits for its session, a request cancelled
 * while its question is being prepared, and the request limit's option. The contract is
 * the Go binding's (mcpserver/elicit.go: each tool holds its own parked runs).
 */
import { type Elicitation, newTool, type Tool } from 'agenttool';
import { McpToolServer, type McpServerOptions } from 'agenttool/mcp';
import { deferred } from './helpers';
import { manual, onlyKey, text } from './manual-client';

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

const NO_LONGER_WAITING = (tool: string): string =>
  `mcpserver: tool "${tool}": the call these answers belong to is no longer waiting for them; call the tool again`;

describe('a request state belongs to the tool that asked', () => {
  test('answers sent under another tool reach no call, and the run stays parked for its own', async () => {
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

      const misdirected = await m.call({
        name: 'other',
        inputResponses: answers,
        requestState: first.requestState,
      });
      expect(misdirected).toMatchObject({ isError: true });
      expect(text(misdirected)).toBe(NO_LONGER_WAITING('other'));

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
