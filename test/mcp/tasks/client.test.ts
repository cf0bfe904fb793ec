/**
 * The client side of tasks, through `connectMcp`: a remote tool that answers with a
 * task is followed to its result, its status messages reach the call's progress, its
 * questions the call's elicitor (answered with `tasks/update`), and an aborted call
 * cancels the task on the server.
 */
import { type Call, createContext, newTool, outputText, type Result } from 'agenttool';
import { connectMcp, type McpToolServer, type RemoteTools, serveTools } from 'agenttool/mcp';
import { signal } from './helpers';

let server: McpToolServer;
let remote: RemoteTools;
let url: string;
const aborted = signal<unknown>();
const stalledAborted = signal<unknown>();

beforeAll(async () => {
  server = serveTools(
    [
      newTool({
        name: 'build',
        description: 'asks, reports, builds',
        taskSupport: 'required',
        execute: async (_call, ctx) => {
          ctx.progress('compiling');
          const answer = await ctx.ask({
            message: 'Which target?',
            schema: {
              type: 'object',
              properties: { target: { type: 'string' } },
              required: ['target'],
            },
          });
          ctx.progress('linking');
          return { output: `built ${JSON.stringify(answer.content?.target)}` };
        },
      }),
      newTool({
        name: 'forever',
        description: 'runs until cancelled',
        taskSupport: 'optional',
        execute: (_call, ctx) =>
          new Promise<Result>((_, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted.resolve(ctx.signal.reason);
              reject(ctx.signal.reason as Error);
            });
            ctx.progress('waiting');
          }),
      }),
      newTool({
        name: 'stalls',
        description: 'works on, saying so at every poll, until cancelled',
        taskSupport: 'required',
        execute: (_call, ctx) =>
          new Promise<Result>((_, reject) => {
            ctx.signal.addEventListener('abort', () => {
              stalledAborted.resolve(ctx.signal.reason);
              reject(ctx.signal.reason as Error);
            });
          }),
      }),
    ],
    { tasks: { pollIntervalMs: 20 } },
  );
  const listener = await server.listenHttp();
  url = listener.url;
  remote = await connectMcp({
    transport: { url },
    protocol: 'modern',
    elicitation: true,
  });
});

afterAll(async () => {
  await remote.close();
  await server.close();
});

function tool(name: string) {
  const found = remote.tools().find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

test('a remote task is followed to its result, with its progress and its question answered', async () => {
  const updates: string[] = [];
  const call: Call = {
    id: 'c1',
    args: '{}',
    onUpdate: (update) => updates.push(outputText(update.output)),
  };
  const asked: string[] = [];
  const result = await tool('build').execute(
    call,
    createContext({
      call,
      elicitor: (question) => {
        asked.push(question.message);
        return { action: 'accept', content: { target: 'arm64' } };
      },
    }),
  );
  expect(outputText(result.output)).toBe('built "arm64"');
  expect(asked).toEqual(['Which target?']);
  expect(updates).toContain('compiling');
  expect(updates.indexOf('compiling')).toBeLessThan(updates.lastIndexOf('linking') + 1);
});

test('aborting the call cancels the task on the server', async () => {
  const controller = new AbortController();
  const following = signal();
  // The task's first status reaches the call once the client follows the task.
  const call: Call = { id: 'c2', args: '{}', onUpdate: () => following.resolve() };
  const running = tool('forever').execute(call, createContext({ call, signal: controller.signal }));
  await following.promise;
  controller.abort(new Error('the user pressed Esc'));
  await expect(running).rejects.toThrow('context canceled');
  expect(String(await aborted.promise)).toContain('the task was cancelled');
});

test('a task not ended within the callTimeout is given up, saying so, and cancelled on the server', async () => {
  const bounded = await connectMcp({
    transport: { url },
    protocol: 'modern',
    callTimeout: 300,
  });
  try {
    const stalls = bounded.tools().find((t) => t.name === 'stalls');
    const call: Call = { id: 'c3', args: '{}' };
    const running = stalls!.execute(call, createContext({ call }));
    await expect(running).rejects.toMatchObject({
      code: 'TIMEOUT',
      message:
        'mcp: call "stalls": the task did not end within 300 ms (the callTimeout option); it was cancelled',
    });
    expect(String(await stalledAborted.promise)).toContain('the task was cancelled');
  } finally {
    await bounded.close();
  }
});
