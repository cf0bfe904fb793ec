/**
 * Inside a task, a tool asks its client through the same requests a plain 2026-07-28
 * call sends back: `ctx.ask({ key })`, `ctx.sample` and `ctx.roots` move the task to
 * `input_required` under their keys (the tool's, or `elicit_<n>`, `sample_<n>`,
 * `roots_<n>`), `tasks/update` answers them, and the tool resumes. A request the client
 * did not declare the capability for fails at the ask, as in a plain call: a tool that
 * does not catch it ends the task `failed` with -32021. Over real HTTP, written by hand
 * (the wire) and through `connectMcp` (the client that follows the task).
 */
import {
  createContext,
  newTool,
  outputText,
  type SamplingRequest,
  type SamplingResult,
  type Tool,
} from 'agenttool';
import {
  connectMcp,
  type HttpListener,
  type McpToolServer,
  type RemoteTools,
  serveTools,
} from 'agenttool/mcp';
import { firstText, signal, TaskClient } from './helpers';

const servers: McpToolServer[] = [];
const remotes: RemoteTools[] = [];

afterEach(async () => {
  await Promise.all(remotes.splice(0).map((remote) => remote.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(tools: Tool[]): Promise<HttpListener> {
  const server = serveTools(tools, { tasks: { pollIntervalMs: 20 } });
  servers.push(server);
  return server.listenHttp();
}

/** Every capability a client may declare for a tool's requests. */
const EVERYTHING = { elicitation: { form: {} }, sampling: {}, roots: {} };

const capitalQuestion: SamplingRequest = {
  key: 'capital_question',
  messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
  maxTokens: 50,
};

function written(result: SamplingResult): string {
  return result.content.type === 'text' ? result.content.text : `<${result.content.type}>`;
}

/** Asks the user (keyed), the client's model (keyed) and its roots (not keyed) at once. */
const survey = newTool({
  name: 'survey',
  description: "asks the user, the client's model and the client's roots",
  taskSupport: 'required',
  execute: async (_call, ctx) => {
    const [name, capital, roots] = await Promise.all([
      ctx.ask({
        key: 'user_name',
        message: 'What is your name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      }),
      ctx.sample(capitalQuestion),
      ctx.roots(),
    ]);
    const model = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'And of Italy?' } }],
      maxTokens: 20,
    });
    return {
      output: `${JSON.stringify(name.content?.name)} ${written(capital)} (${capital.model}) ${written(model)} [${roots.map((r) => r.uri).join(',')}]`,
    };
  },
});

const modelAnswer = (text: string) => ({
  role: 'assistant',
  content: { type: 'text', text },
  model: 'test-model',
  stopReason: 'endTurn',
});

test('ctx.ask({ key }), ctx.sample and ctx.roots in a task open input_required under their keys; tasks/update answers them', async () => {
  const listener = await serve([survey]);
  const client = new TaskClient(listener.url, { capabilities: EVERYTHING });
  const created = await client.call('survey');
  expect(created.resultType).toBe('task');
  const taskId = String(created.taskId);

  // Requests made together are open together, each under its key.
  const asking = await client.until(
    taskId,
    (task) =>
      task.status === 'input_required' && Object.keys(task.inputRequests as object).length === 3,
  );
  expect(asking.inputRequests).toEqual({
    user_name: {
      method: 'elicitation/create',
      params: expect.objectContaining({ message: 'What is your name?' }),
    },
    capital_question: {
      method: 'sampling/createMessage',
      params: {
        messages: capitalQuestion.messages,
        maxTokens: 50,
      },
    },
    roots_1: { method: 'roots/list', params: {} },
  });

  // Answered in two updates: the task stays input_required with the rest open.
  await client.result('tasks/update', {
    taskId,
    inputResponses: {
      user_name: { action: 'accept', content: { name: 'Ada' } },
      capital_question: modelAnswer('Paris'),
    },
  });
  const rest = await client.get(taskId);
  expect(rest.status).toBe('input_required');
  expect(Object.keys(rest.inputRequests as object)).toEqual(['roots_1']);
  await client.result('tasks/update', {
    taskId,
    inputResponses: { roots_1: { roots: [{ uri: 'file:///work', name: 'work' }] } },
  });

  // The tool goes on and asks the model again, under a key of its own.
  const again = await client.until(
    taskId,
    (task) => task.status === 'input_required' && 'sample_1' in (task.inputRequests as object),
  );
  expect(Object.keys(again.inputRequests as object)).toEqual(['sample_1']);
  await client.result('tasks/update', {
    taskId,
    inputResponses: { sample_1: modelAnswer('Rome') },
  });
  const done = await client.final(taskId);
  expect(done.status).toBe('completed');
  expect(firstText(done.result)).toBe('"Ada" Paris (test-model) Rome [file:///work]');
});

test('a key the tool gives comes back after it was answered; two open requests under one key are refused', async () => {
  const attempts: string[] = [];
  const tool = newTool({
    name: 'pin',
    description: 'asks for a PIN until it is four digits',
    taskSupport: 'required',
    execute: async (_call, ctx) => {
      const schema = {
        type: 'object',
        properties: { pin: { type: 'string' } },
        required: ['pin'],
      };
      for (;;) {
        const [answer, twin] = await Promise.allSettled([
          ctx.ask({ key: 'pin', message: 'PIN?', schema }),
          // The same key while the first is open: refused at once, the first stays.
          ctx.ask({ key: 'pin', message: 'PIN, again?', schema }),
        ]);
        if (twin.status === 'rejected') attempts.push(String(twin.reason));
        if (answer.status === 'rejected') throw answer.reason;
        const pin = answer.value.content?.pin;
        if (typeof pin === 'string' && /^\d{4}$/.test(pin)) return { output: `pin ${pin}` };
      }
    },
  });
  const listener = await serve([tool]);
  const client = new TaskClient(listener.url);
  const taskId = String((await client.call('pin')).taskId);

  for (const pin of ['12', '1234']) {
    const asking = await client.until(
      taskId,
      (task) => task.status === 'input_required' || task.status === 'completed',
    );
    expect(asking.inputRequests).toEqual({
      pin: { method: 'elicitation/create', params: expect.objectContaining({ message: 'PIN?' }) },
    });
    await client.result('tasks/update', {
      taskId,
      inputResponses: { pin: { action: 'accept', content: { pin } } },
    });
  }
  const done = await client.final(taskId);
  expect(firstText(done.result)).toBe('pin 1234');
  expect(attempts).toHaveLength(2);
  expect(attempts[0]).toContain('the key "pin" names another open request of the task');
});

describe('a client without the capability', () => {
  const needsModel = newTool({
    name: 'needs_model',
    description: "needs the client's model",
    taskSupport: 'required',
    execute: async (_call, ctx) => ({ output: written(await ctx.sample(capitalQuestion)) }),
  });
  const doesWithout = newTool({
    name: 'does_without',
    description: "uses the client's roots when it shares them",
    taskSupport: 'required',
    execute: async (_call, ctx) => {
      try {
        return { output: `${(await ctx.roots()).length} roots` };
      } catch (error) {
        return { output: `no roots (${(error as Error).name})` };
      }
    },
  });

  test('the task of a tool that needs it ends failed with -32021 naming what is missing', async () => {
    const listener = await serve([needsModel]);
    // Elicitation only: no sampling.
    const client = new TaskClient(listener.url);
    const created = await client.call('needs_model');
    expect(created.resultType).toBe('task');
    const done = await client.final(String(created.taskId));
    expect(done.status).toBe('failed');
    expect(done).not.toHaveProperty('inputRequests');
    expect(done.error).toEqual({
      code: -32021,
      message: expect.stringContaining('the client did not declare the sampling capability'),
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  test('a tool that catches the refusal does without, and its task completes', async () => {
    const listener = await serve([doesWithout]);
    const client = new TaskClient(listener.url);
    const done = await client.final(String((await client.call('does_without')).taskId));
    expect(done.status).toBe('completed');
    expect(firstText(done.result)).toBe('no roots (MissingCapabilityError)');
  });
});

test('questionsFirst: a keyed question and a sampling request go back with the call, later ones with the task', async () => {
  const tool = newTool({
    name: 'plan_trip',
    description: 'asks first, then works as a task and asks its roots',
    taskSupport: { mode: 'required', questionsFirst: true },
    execute: async (_call, ctx) => {
      const [name, capital] = await Promise.all([
        ctx.ask({
          key: 'user_name',
          message: 'Name?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: [] },
        }),
        ctx.sample(capitalQuestion),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const roots = await ctx.roots({ key: 'client_roots' });
      return {
        output: `${JSON.stringify(name.content?.name)} to ${written(capital)} from ${roots[0]?.uri ?? '?'}`,
      };
    },
  });
  const listener = await serve([tool]);
  const client = new TaskClient(listener.url, { capabilities: EVERYTHING });
  const first = await client.call('plan_trip');
  expect(first.resultType).toBe('input_required');
  expect(Object.keys(first.inputRequests as object).sort()).toEqual([
    'capital_question',
    'user_name',
  ]);
  const second = await client.result('tools/call', {
    name: 'plan_trip',
    arguments: {},
    requestState: first.requestState,
    inputResponses: {
      user_name: { action: 'accept', content: { name: 'Ada' } },
      capital_question: modelAnswer('Paris'),
    },
  });
  expect(second.resultType).toBe('task');
  const taskId = String(second.taskId);
  const asking = await client.until(taskId, (task) => task.status === 'input_required');
  expect(asking.inputRequests).toEqual({ client_roots: { method: 'roots/list', params: {} } });
  await client.result('tasks/update', {
    taskId,
    inputResponses: { client_roots: { roots: [{ uri: 'file:///home/ada' }] } },
  });
  const done = await client.final(taskId);
  expect(firstText(done.result)).toBe('"Ada" to Paris from file:///home/ada');
});

describe('through connectMcp', () => {
  test("a task's question, model turn and roots are answered by the connection, and the call gets the result", async () => {
    const listener = await serve([survey]);
    const seen: SamplingRequest[] = [];
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol: 'modern',
      elicitation: true,
      samplingHandler: (request) => {
        seen.push(request);
        const prompt = request.messages[0]?.content;
        const text = prompt?.type === 'text' && prompt.text.includes('France') ? 'Paris' : 'Rome';
        return { role: 'assistant', content: { type: 'text', text }, model: 'host-model' };
      },
      roots: [{ uri: 'file:///repo', name: 'repo' }],
    });
    remotes.push(remote);
    const tool = remote.tools().find((t) => t.name === 'survey');
    if (tool === undefined) throw new Error('no survey tool');
    const call = { id: 'c1', args: '{}' };
    const asked: string[] = [];
    const result = await tool.execute(
      call,
      createContext({
        call,
        elicitor: (question) => {
          asked.push(question.message);
          return { action: 'accept', content: { name: 'Grace' } };
        },
      }),
    );
    expect(outputText(result.output)).toBe('"Grace" Paris (host-model) Rome [file:///repo]');
    expect(asked).toEqual(['What is your name?']);
    expect(seen.map((request) => request.maxTokens)).toEqual([50, 20]);
  });

  test('a task that failed for want of a capability reads as a call refused with -32021', async () => {
    const listener = await serve([
      newTool({
        name: 'needs_model',
        description: "needs the client's model",
        taskSupport: 'required',
        execute: async (_call, ctx) => ({ output: written(await ctx.sample(capitalQuestion)) }),
      }),
    ]);
    // No sampling declared: the task's ctx.sample is refused at the ask.
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol: 'modern',
      elicitation: true,
    });
    remotes.push(remote);
    const found = remote.tools().find((t) => t.name === 'needs_model');
    if (found === undefined) throw new Error('no needs_model tool');
    const call = { id: 'c3', args: '{}' };
    await expect(found.execute(call, createContext({ call }))).rejects.toThrow(
      'mcp: call "needs_model": the task failed: the server needs a client capability this connection does not declare, {"sampling":{}}',
    );
  });

  test('a task whose request the connection fails to answer is cancelled on the server', async () => {
    const aborted = signal<unknown>();
    const tool = newTool({
      name: 'ask_model',
      description: "asks the client's model, then waits",
      taskSupport: 'required',
      execute: async (_call, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
        const answer = await ctx.sample(capitalQuestion);
        return { output: written(answer) };
      },
    });
    const listener = await serve([tool]);
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol: 'modern',
      samplingHandler: () => {
        throw new Error('the host has no model today');
      },
    });
    remotes.push(remote);
    const found = remote.tools().find((t) => t.name === 'ask_model');
    if (found === undefined) throw new Error('no ask_model tool');
    const call = { id: 'c2', args: '{}' };
    await expect(found.execute(call, createContext({ call }))).rejects.toThrow(
      'the host has no model today',
    );
    // Given up, the task is cancelled at once rather than left to its TTL.
    expect(String(await aborted.promise)).toContain('the task was cancelled');
  });
});
