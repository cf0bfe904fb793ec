/**
 * The 2025-11-25 experimental tasks (`capabilities.tasks`, `execution.taskSupport`, a
 * `task` param on `tools/call`, `tasks/get|result|list|cancel`,
 * `notifications/tasks/status`), served to 2025-era sessions through the public server
 * entry over real HTTP on 127.0.0.1, from the same store and with the same limits and
 * ownership as the 2026-07-28 extension. Each client is the SDK's v2 `Client` in its
 * default (2025) era, one session each.
 */
import { ProtocolError } from '@modelcontextprotocol/server';
import { newTool, type Tool } from 'agenttool';
import { type HttpListener, type McpToolServer, serveTools } from 'agenttool/mcp';
import { ANY_RESULT, firstText, gated, LegacyTaskClient, signal, TaskClient } from './helpers';

const RELATED = 'io.modelcontextprotocol/related-task';

const servers: McpToolServer[] = [];
const clients: LegacyTaskClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
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

async function open(url: string, token?: string): Promise<LegacyTaskClient> {
  const client = await LegacyTaskClient.open(url, token);
  clients.push(client);
  return client;
}

const FINAL = ['completed', 'failed', 'cancelled'];

test('a 2025-era session is told of the tasks and each tool its support; a 2026-07-28 client is not', async () => {
  const listener = await serve([
    gated('maybe').tool,
    gated('always', 'required').tool,
    gated('plain', 'never').tool,
  ]);
  const client = await open(listener.url);
  // Without credentials the callers cannot be told apart: no tasks/list.
  expect(client.client.getServerCapabilities()?.tasks).toEqual({
    cancel: {},
    requests: { tools: { call: {} } },
  });
  const { tools } = await client.request('tools/list', {});
  const support = Object.fromEntries(
    (tools as { name: string; execution?: unknown }[]).map((t) => [t.name, t.execution]),
  );
  expect(support).toEqual({
    maybe: { taskSupport: 'optional' },
    always: { taskSupport: 'required' },
    plain: undefined,
  });

  const modern = new TaskClient(listener.url);
  const discovered = await modern.result('server/discover', {});
  expect(discovered.capabilities).not.toHaveProperty('tasks');
  const listed = await modern.result('tools/list', {});
  for (const tool of listed.tools as Record<string, unknown>[]) {
    expect(tool).not.toHaveProperty('execution');
  }
});

test('a task made in one session is polled from another, whose tasks/result answers the call, naming the task', async () => {
  const job = gated('job');
  const listener = await serve([job.tool], { tasks: { pollIntervalMs: 50 } });
  const maker = await open(listener.url);
  const task = await maker.callAsTask('job');
  expect(task).toMatchObject({ status: 'working', ttl: 3_600_000, pollInterval: 50 });
  expect(typeof task.createdAt).toBe('string');
  expect(typeof task.lastUpdatedAt).toBe('string');
  const taskId = String(task.taskId);
  await job.started.promise;

  const other = await open(listener.url);
  const working = await other.until(taskId, (t) => t.statusMessage === 'half way');
  expect(working).toMatchObject({ taskId, status: 'working' });
  // A 2025-11-25 task never inlines its outcome: tasks/result answers it.
  expect(Object.keys(working).sort()).toEqual([
    'createdAt',
    'lastUpdatedAt',
    'pollInterval',
    'status',
    'statusMessage',
    'taskId',
    'ttl',
  ]);

  let answered = false;
  const result = other.request('tasks/result', { taskId }).finally(() => (answered = true));
  // tasks/result waits for the task to be final.
  await other.get(taskId);
  expect(answered).toBe(false);
  job.release.resolve('done at last');
  const outcome = await result;
  expect(firstText(outcome)).toBe('done at last');
  expect(outcome._meta).toEqual({ [RELATED]: { taskId } });
  expect((await other.get(taskId)).status).toBe('completed');
});

test('cancel stops the tool and answers the cancelled task; a final task cannot be cancelled', async () => {
  const job = gated('job');
  const listener = await serve([job.tool]);
  const client = await open(listener.url);
  const taskId = String((await client.callAsTask('job')).taskId);
  await job.started.promise;

  const cancelled = await client.request('tasks/cancel', { taskId });
  expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
  expect(String(await job.aborted.promise)).toContain('the task was cancelled');
  expect((await client.get(taskId)).status).toBe('cancelled');
  const again = await client.error('tasks/cancel', { taskId });
  expect(again.code).toBe(-32602);
  expect(again.message).toContain('is cancelled already');
  // A cancelled call has no result.
  expect((await client.error('tasks/result', { taskId })).message).toContain(
    'was cancelled and has no result',
  );
});

test('an isError result ends the task failed, saying why; tasks/result answers that result', async () => {
  const broken = newTool({
    name: 'broken',
    description: 'fails',
    taskSupport: 'required',
    execute: () => {
      throw new Error('the disk is full');
    },
  });
  const listener = await serve([broken]);
  const client = await open(listener.url);
  const taskId = String((await client.callAsTask('broken')).taskId);
  const failed = await client.until(taskId, (t) => FINAL.includes(String(t.status)));
  expect(failed.status).toBe('failed');
  expect(String(failed.statusMessage)).toContain('the disk is full');
  const outcome = await client.request('tasks/result', { taskId });
  expect(outcome.isError).toBe(true);
  expect(firstText(outcome)).toContain('the disk is full');
});

test('a JSON-RPC error fails the task; tasks/result answers the same error', async () => {
  const refusing = newTool({
    name: 'refusing',
    description: 'fails its request',
    taskSupport: 'optional',
    execute: () => {
      throw new ProtocolError(-32000, 'the quota is spent', { retryAfter: 60 });
    },
  });
  const listener = await serve([refusing]);
  const client = await open(listener.url);
  const taskId = String((await client.callAsTask('refusing')).taskId);
  const failed = await client.until(taskId, (t) => FINAL.includes(String(t.status)));
  expect(failed).toMatchObject({ status: 'failed', statusMessage: 'the quota is spent' });
  const error = await client.error('tasks/result', { taskId });
  expect(error).toEqual({ code: -32000, message: 'the quota is spent' });
});

test("a task's question goes to its session's client, naming the task; the answer resumes the tool", async () => {
  const ask = newTool({
    name: 'ask',
    description: 'asks',
    taskSupport: 'required',
    execute: async (_call, ctx) => {
      const answer = await ctx.ask({
        message: 'Name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return { output: `hello ${JSON.stringify(answer.content?.name)}` };
    },
  });
  const listener = await serve([ask]);
  const client = await open(listener.url);
  const asked = signal<Record<string, unknown>>();
  const answer = signal<string>();
  client.client.setRequestHandler('elicitation/create', async (request) => {
    asked.resolve(request.params);
    return { action: 'accept', content: { name: await answer.promise } };
  });
  const taskId = String((await client.callAsTask('ask')).taskId);
  const params = await asked.promise;
  expect(params).toMatchObject({ message: 'Name?', _meta: { [RELATED]: { taskId } } });
  expect((await client.get(taskId)).status).toBe('input_required');
  answer.resolve('Ada');
  await client.until(taskId, (t) => FINAL.includes(String(t.status)));
  expect(firstText(await client.request('tasks/result', { taskId }))).toBe('hello "Ada"');
});

test('when the session that made a task is gone, its question goes out over a tasks/result of another', async () => {
  const go = signal();
  const ask = newTool({
    name: 'ask',
    description: 'asks once let go',
    taskSupport: 'required',
    execute: async (_call, ctx) => {
      await go.promise;
      const answer = await ctx.ask({
        message: 'Color?',
        schema: { type: 'object', properties: { color: { type: 'string' } } },
      });
      return { output: `${answer.action} ${JSON.stringify(answer.content?.color)}` };
    },
  });
  const listener = await serve([ask]);
  const maker = await open(listener.url);
  const taskId = String((await maker.callAsTask('ask')).taskId);
  await maker.close();

  const other = await open(listener.url);
  const asked = signal<Record<string, unknown>>();
  other.client.setRequestHandler('elicitation/create', (request) => {
    asked.resolve(request.params);
    return Promise.resolve({ action: 'accept', content: { color: 'teal' } });
  });
  const result = other.request('tasks/result', { taskId });
  // Its waiting has begun once its stream is open; then the tool asks.
  await other.get(taskId);
  go.resolve();
  expect((await asked.promise)._meta).toEqual({ [RELATED]: { taskId } });
  expect(firstText(await result)).toBe('accept "teal"');
});

test('the session gets notifications/tasks/status as its task changes', async () => {
  const job = gated('job');
  const listener = await serve([job.tool]);
  const client = await open(listener.url);
  const seen: Record<string, unknown>[] = [];
  const completed = signal<Record<string, unknown>>();
  // The v2 SDK names no 2025-11-25 task notification: it is read with a schema of ours.
  client.client.setNotificationHandler(
    'notifications/tasks/status',
    { params: ANY_RESULT },
    (params) => {
      seen.push(params);
      if (params.status === 'completed') completed.resolve(params);
    },
  );
  const taskId = String((await client.callAsTask('job')).taskId);
  await job.started.promise;
  await client.until(taskId, (t) => t.statusMessage === 'half way');
  job.release.resolve('done');
  const last = await completed.promise;
  expect(last).toMatchObject({ taskId, status: 'completed', ttl: 3_600_000 });
  expect(last).not.toHaveProperty('_meta');
  expect(seen.some((t) => t.statusMessage === 'half way' && t.status === 'working')).toBe(true);
});

test('a task-required tool called without a task, and a task asked of a tool that runs none, are -32601', async () => {
  const listener = await serve([gated('always', 'required').tool, gated('plain', 'never').tool]);
  const client = await open(listener.url);
  const required = await client.error('tools/call', { name: 'always', arguments: {} });
  expect(required.code).toBe(-32601);
  expect(required.message).toContain('runs only as a task');
  const never = await client.error('tools/call', { name: 'plain', arguments: {}, task: {} });
  expect(never.code).toBe(-32601);
  expect(never.message).toContain('does not run as a task');
});

test('a shorter ttl the client asks for is kept; a longer one is cut to the server ttlMs, and the task is gone after it', async () => {
  const job = gated('job');
  const listener = await serve([job.tool], { tasks: { ttlMs: 60_000 } });
  const client = await open(listener.url);
  expect((await client.callAsTask('job', {}, { ttl: 120_000 })).ttl).toBe(60_000);
  const short = await client.callAsTask('job', {}, { ttl: 200 });
  expect(short.ttl).toBe(200);
  const taskId = String(short.taskId);
  let gone: { code: number } | undefined;
  for (let i = 0; i < 200 && gone === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    gone = await client.get(taskId).then(
      () => undefined,
      (error: unknown) => (ProtocolError.isInstance(error) ? error : undefined),
    );
  }
  expect(gone?.code).toBe(-32602);
});

test("a task belongs to its subject: another's tasks/get, result and cancel find nothing; tasks/list lists the caller's own", async () => {
  const job = gated('job');
  const listener = await serve([job.tool], {}, true);
  const alice = await open(listener.url, 'alice');
  const bob = await open(listener.url, 'bob');
  expect(alice.client.getServerCapabilities()?.tasks).toHaveProperty('list');
  const taskId = String((await alice.callAsTask('job')).taskId);
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
    expect((await bob.error(method, { taskId })).code).toBe(-32602);
  }
  const listed = (await alice.request('tasks/list', {})).tasks as Record<string, unknown>[];
  expect(listed.map((t) => t.taskId)).toEqual([taskId]);
  expect((await bob.request('tasks/list', {})).tasks).toEqual([]);
  // Each wire sees its own tasks: a 2026-07-28 client of the same subject finds none.
  const modern = new TaskClient(listener.url, { headers: { authorization: 'Bearer alice' } });
  expect((await modern.error('tasks/get', { taskId })).code).toBe(-32602);
  job.release.resolve('done');
  await alice.until(taskId, (t) => t.status === 'completed');
});

test('the limits apply as to any task: maxTasksPerSubject counts both wires, maxResultBytes fails the task', async () => {
  const job = gated('job');
  const big = newTool({
    name: 'big',
    description: 'answers a lot',
    taskSupport: 'optional',
    execute: () => ({ output: 'x'.repeat(5000) }),
  });
  const listener = await serve([job.tool, big], {
    tasks: { maxTasksPerSubject: 2, maxResultBytes: 1000 },
  });
  const client = await open(listener.url);
  const bigTask = String((await client.callAsTask('big')).taskId);
  const failed = await client.until(bigTask, (t) => FINAL.includes(String(t.status)));
  expect(failed.status).toBe('failed');
  expect(String(failed.statusMessage)).toMatch(/over the server's tasks.maxResultBytes \(1000\)/);

  await new TaskClient(listener.url).call('job');
  // Two held (one of each wire): the next call is refused with a result, not a task.
  const refused = await client.request('tools/call', { name: 'job', arguments: {}, task: {} });
  expect(refused).not.toHaveProperty('task');
  expect(refused.isError).toBe(true);
  expect(firstText(refused)).toContain('maxTasksPerSubject');
});
