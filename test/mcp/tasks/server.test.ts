/**
 * Calls as MCP tasks (io.modelcontextprotocol/tasks) through the public server entry,
 * over real HTTP on 127.0.0.1: each client below is its own connection, so a task made
 * by one and polled by another shows the task outlives its request.
 */
import { ProtocolError } from '@modelcontextprotocol/server';
import { newTool, type Tool } from 'agenttool';
import {
  type HttpListener,
  type McpToolServer,
  serveTools,
  SESSION_END_METHOD,
  SESSION_META_KEY,
  SESSIONS_EXTENSION,
} from 'agenttool/mcp';
import { firstText, gated, signal, TaskClient, TASKS } from './helpers';

const servers: McpToolServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  tools: Tool[],
  options: Parameters<typeof serveTools>[1] = {},
  auth = false,
): Promise<HttpListener> {
  const server = serveTools(tools, options);
  servers.push(server);
  return server.listenHttp(
    auth
      ? {
          auth: {
            // The bearer token is the subject: enough to tell two callers apart.
            verifyToken: (token) => ({ subject: token, clientId: token, scopes: [] }),
            authorizationServers: ['https://issuer.example'],
          },
        }
      : {},
  );
}

test('a task made on one connection is polled to its result from another', async () => {
  const job = gated('job');
  const listener = await serve([job.tool]);
  const created = await new TaskClient(listener.url).call('job');
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  expect(typeof created.ttlMs).toBe('number');
  expect(created).not.toHaveProperty('requestState');
  const taskId = String(created.taskId);
  await job.started.promise;

  const other = new TaskClient(listener.url);
  const working = await other.until(taskId, (task) => task.statusMessage === 'half way');
  expect(working).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
  expect(working).not.toHaveProperty('result');

  job.release.resolve('done at last');
  const done = await other.final(taskId);
  expect(done.status).toBe('completed');
  expect(done.result).toMatchObject({ resultType: 'complete' });
  expect(firstText(done.result)).toBe('done at last');
});

test('cancel aborts the tool, the task reads cancelled and stays so; a second cancel is acknowledged', async () => {
  const job = gated('job');
  const listener = await serve([job.tool]);
  const client = new TaskClient(listener.url);
  const taskId = String((await client.call('job')).taskId);
  await job.started.promise;

  expect(await client.result('tasks/cancel', { taskId })).toEqual(
    expect.objectContaining({ resultType: 'complete' }),
  );
  expect(String(await job.aborted.promise)).toContain('the task was cancelled');
  expect((await client.get(taskId)).status).toBe('cancelled');
  const again = await client.result('tasks/cancel', { taskId });
  expect(Object.keys(again).filter((key) => key !== '_meta')).toEqual(['resultType']);
  expect((await client.final(taskId)).status).toBe('cancelled');
});

test('a question opens input_required; tasks/update answers it and the tool resumes', async () => {
  const ask = newTool({
    name: 'ask',
    description: 'asks twice',
    taskSupport: 'required',
    execute: async (_call, ctx) => {
      const first = await ctx.ask({
        message: 'Name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      const second = await ctx.ask({ message: 'Sure?' });
      return { output: `${JSON.stringify(first.content?.name)} ${second.action}` };
    },
  });
  const listener = await serve([ask]);
  const client = new TaskClient(listener.url);
  const taskId = String((await client.call('ask')).taskId);

  const asking = await client.until(taskId, (task) => task.status === 'input_required');
  const keys = Object.keys(asking.inputRequests as object);
  expect(keys).toEqual(['elicit_1']);
  expect(asking.inputRequests).toMatchObject({
    elicit_1: { method: 'elicitation/create', params: { mode: 'form', message: 'Name?' } },
  });
  // Keys that name no open question are ignored.
  await client.result('tasks/update', {
    taskId,
    inputResponses: { nope: { action: 'accept', content: {} } },
  });
  expect((await client.get(taskId)).status).toBe('input_required');
  await client.result('tasks/update', {
    taskId,
    inputResponses: { elicit_1: { action: 'accept', content: { name: 'Ada' } } },
  });
  const next = await client.until(
    taskId,
    (task) => task.status === 'input_required' && 'elicit_2' in (task.inputRequests as object),
  );
  expect(Object.keys(next.inputRequests as object)).toEqual(['elicit_2']);
  await client.result('tasks/update', {
    taskId,
    inputResponses: { elicit_2: { action: 'decline' } },
  });
  const done = await client.final(taskId);
  expect(firstText(done.result)).toBe('"Ada" decline');
});

test('a task is dropped when its TTL has passed: its tool is stopped and tasks/get finds nothing', async () => {
  const job = gated('job');
  const listener = await serve([job.tool], { tasks: { ttlMs: 200 } });
  const client = new TaskClient(listener.url);
  const created = await client.call('job');
  expect(created.ttlMs).toBe(200);
  const taskId = String(created.taskId);
  expect(String(await job.aborted.promise)).toContain('ttlMs');
  const error = await client.error('tasks/get', { taskId });
  expect(error.code).toBe(-32602);
  expect(error.message).toContain('ttlMs has passed');
});

test('a caller holds maxTasksPerSubject tasks at most; the next call is refused, saying why', async () => {
  const job = gated('job');
  const listener = await serve([job.tool], { tasks: { maxTasksPerSubject: 2 } }, true);
  const ada = new TaskClient(listener.url, { headers: { authorization: 'Bearer ada' } });
  const bob = new TaskClient(listener.url, { headers: { authorization: 'Bearer bob' } });
  expect((await ada.call('job')).resultType).toBe('task');
  expect((await ada.call('job')).resultType).toBe('task');
  const refused = await ada.call('job');
  expect(refused.isError).toBe(true);
  expect(firstText(refused)).toContain('already holds 2 tasks');
  expect(firstText(refused)).toContain('maxTasksPerSubject');
  // Another caller has room of its own.
  expect((await bob.call('job')).resultType).toBe('task');
});

test('without authorization, tasks are counted per client address (the fair shares of issue 31)', async () => {
  const job = gated('job');
  const server = serveTools([job.tool], { tasks: { maxTasksPerSubject: 1 } });
  servers.push(server);
  const listener = await server.listenHttp({ trustProxy: true });
  const from = (address: string) =>
    new TaskClient(listener.url, { headers: { 'x-forwarded-for': address } });
  const first = from('10.0.0.1');
  const created = await first.call('job');
  expect(created.resultType).toBe('task');
  const refused = await first.call('job');
  expect(refused.isError).toBe(true);
  expect(firstText(refused)).toContain('client address 10.0.0.1 already holds 1 tasks');
  // Another address has room of its own, and a task still belongs to its subject ("").
  expect((await from('10.0.0.2').call('job')).resultType).toBe('task');
  expect((await from('10.0.0.2').get(String(created.taskId))).status).toBe('working');
});

test('a result over maxResultBytes ends the task completed with an error saying so', async () => {
  const big = newTool({
    name: 'big',
    description: 'returns a lot',
    taskSupport: 'required',
    execute: () => ({ output: 'x'.repeat(5000) }),
  });
  const listener = await serve([big], { tasks: { maxResultBytes: 1000 } });
  const client = new TaskClient(listener.url);
  const done = await client.final(String((await client.call('big')).taskId));
  expect(done.status).toBe('completed');
  expect(done.result).toMatchObject({ isError: true, resultType: 'complete' });
  expect(firstText(done.result)).toMatch(
    /result is \d+ bytes of JSON, over the server's tasks.maxResultBytes \(1000\)/,
  );
});

test("a task belongs to the subject that made it: another caller's get, update and cancel find nothing", async () => {
  const job = gated('job');
  const listener = await serve([job.tool], {}, true);
  const ada = new TaskClient(listener.url, { headers: { authorization: 'Bearer ada' } });
  const eve = new TaskClient(listener.url, { headers: { authorization: 'Bearer eve' } });
  const taskId = String((await ada.call('job')).taskId);
  for (const [method, params] of [
    ['tasks/get', { taskId }],
    ['tasks/update', { taskId, inputResponses: {} }],
    ['tasks/cancel', { taskId }],
  ] as const) {
    const error = await eve.error(method, params);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('belongs to another caller');
  }
  expect((await ada.get(taskId)).status).toBe('working');
  job.release.resolve('mine');
  expect(firstText((await ada.final(taskId)).result)).toBe('mine');
});

test('without the extension: task methods answer -32021, a task-optional tool answers at once, a task-required one is refused', async () => {
  const job = gated('job');
  const required = gated('must', 'required');
  const listener = await serve([job.tool, required.tool]);
  const plain = new TaskClient(listener.url, { tasks: false });
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const error = await plain.error(method, { taskId: 'no-such-task', inputResponses: {} });
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  }
  job.release.resolve('at once');
  const answered = await plain.call('job');
  expect(answered.resultType).toBe('complete');
  expect(firstText(answered)).toBe('at once');
  const refused = await plain.error('tools/call', { name: 'must', arguments: {} });
  expect(refused.code).toBe(-32021);
  expect(refused.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  // With the extension, an unknown task is -32602, and the removed methods are gone.
  const client = new TaskClient(listener.url);
  expect((await client.error('tasks/get', { taskId: 'no-such-task' })).code).toBe(-32602);
  expect((await client.error('tasks/result', { taskId: 'x' })).code).toBe(-32601);
  expect((await client.error('tasks/list', {})).code).toBe(-32601);
});

test('a JSON-RPC error ends the task failed; an isError result ends it completed', async () => {
  const protocol = newTool({
    name: 'protocol',
    description: 'fails its request',
    taskSupport: 'required',
    execute: () => {
      throw new ProtocolError(-32000, 'the backend refused', { retryAfter: 5 });
    },
  });
  const failing = newTool({
    name: 'failing',
    description: 'fails as a tool',
    taskSupport: 'required',
    execute: () => {
      throw new Error('disk on fire');
    },
  });
  const listener = await serve([protocol, failing]);
  const client = new TaskClient(listener.url);
  const failed = await client.final(String((await client.call('protocol')).taskId));
  expect(failed).toMatchObject({
    status: 'failed',
    error: { code: -32000, message: 'the backend refused', data: { retryAfter: 5 } },
  });
  expect(failed).not.toHaveProperty('result');
  const completed = await client.final(String((await client.call('failing')).taskId));
  expect(completed).toMatchObject({ status: 'completed', result: { isError: true } });
  expect(firstText(completed.result)).toBe('disk on fire');
});

test('questionsFirst: the first question goes back with the call, then the call becomes a task', async () => {
  const tool = newTool({
    name: 'greet_later',
    description: 'asks, then works',
    taskSupport: { mode: 'required', questionsFirst: true },
    execute: async (_call, ctx) => {
      const answer = await ctx.ask({
        message: 'Name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: [] },
      });
      await new Promise((resolve) => setTimeout(resolve, 10));
      const name = answer.content?.name;
      return { output: `Hello, ${typeof name === 'string' ? name : 'nobody'}!` };
    },
  });
  const listener = await serve([tool]);
  const client = new TaskClient(listener.url);
  const first = await client.call('greet_later');
  expect(first.resultType).toBe('input_required');
  expect(first).not.toHaveProperty('taskId');
  const second = await client.result('tools/call', {
    name: 'greet_later',
    arguments: {},
    requestState: first.requestState,
    inputResponses: { elicit_1: { action: 'accept', content: { name: 'Alice' } } },
  });
  expect(second.resultType).toBe('task');
  expect(second).not.toHaveProperty('requestState');
  const done = await client.final(String(second.taskId));
  expect(firstText(done.result)).toBe('Hello, Alice!');
});

test('a call that became a task outlives the session it was made in, as a task made with the call does', async () => {
  const release = signal<string>();
  const aborted = signal<unknown>();
  const tool = newTool({
    name: 'greet_slowly',
    description: 'asks, then works until released',
    taskSupport: { mode: 'required', questionsFirst: true },
    execute: async (_call, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
      const answer = await ctx.ask({
        key: 'user_name',
        message: 'Name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: [] },
      });
      const tail = await Promise.race([
        release.promise,
        new Promise<string>((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
        ),
      ]);
      return { output: `Hello, ${JSON.stringify(answer.content?.name)}${tail}` };
    },
  });
  const listener = await serve([tool]);
  const client = new TaskClient(listener.url, {
    capabilities: { elicitation: { form: {} }, extensions: { [SESSIONS_EXTENSION]: {} } },
  });
  const first = await client.call('greet_slowly');
  expect(first.resultType).toBe('input_required');
  const handle = (first._meta as Record<string, unknown> | undefined)?.[SESSION_META_KEY];
  expect(typeof handle).toBe('string');
  const meta = { [SESSION_META_KEY]: handle };
  const second = await client.result(
    'tools/call',
    {
      name: 'greet_slowly',
      arguments: {},
      requestState: first.requestState,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
    },
    meta,
  );
  expect(second.resultType).toBe('task');
  // The client is done with its session (connectMcp's close() sends this): the task runs on.
  await client.result(SESSION_END_METHOD, {}, meta);
  const taskId = String(second.taskId);
  expect((await client.get(taskId)).status).toBe('working');
  release.resolve('!');
  const done = await client.final(taskId);
  expect(done.status).toBe('completed');
  expect(firstText(done.result)).toBe('Hello, "Ada"!');
  const stopped = await Promise.race([aborted.promise, Promise.resolve('not aborted')]);
  expect(stopped).toBe('not aborted');
});

test('the server advertises the extension to 2026-07-28 clients only', async () => {
  const listener = await serve([gated('job').tool]);
  const discovered = await new TaskClient(listener.url).result('server/discover', {});
  expect(discovered.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  expect(discovered.capabilities).not.toHaveProperty('tasks');
});
