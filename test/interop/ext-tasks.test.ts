/**
 * `@modelcontextprotocol/ext-tasks` (the official client of the MCP tasks, pinned in
 * devDependencies) drives the server's tasks over real HTTP on 127.0.0.1, in both eras:
 * the 2026-07-28 extension (`io.modelcontextprotocol/tasks`, through the raw dispatch a
 * host supplies, as ext-tasks requires there) and the 2025-11-25 experimental tasks (its
 * default SDK client, whose default era is 2025). Each era: a task created and polled to
 * its result, a question answered (`tasks/update` in 2026-07-28; a request naming the
 * task in 2025-11-25), a cancel, a task resumed from a second session, a tool that runs
 * no task. In 2025-11-25, ext-tasks also follows a task by `notifications/tasks/status`
 * (ext-tasks opens no `subscriptions/listen` for 2026-07-28 `notifications/tasks`, and
 * the server sends none: see docs/tasks.md).
 *
 * ext-tasks ships ES modules only; Jest compiles them to CommonJS (see jest.config.js),
 * so the `@modelcontextprotocol/client` it loads is the very module this file imports,
 * and its `instanceof` checks of the SDK's classes hold.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/server';
import { newTool, type Tool } from 'agenttool';
import { type HttpListener, type McpToolServer, serveTools } from 'agenttool/mcp';
import { gated, signal } from '../mcp/tasks/helpers';

type ExtTasks = typeof import('@modelcontextprotocol/ext-tasks/client', {
  with: { 'resolution-mode': 'import' },
});
type Session = ReturnType<ExtTasks['createTaskSessionFromClient']>;
type InputHandler = NonNullable<
  Parameters<ExtTasks['createTaskSessionFromClient']>[1]['onInputRequest']
>;
type JsonValue = Parameters<Session['callTool']>[1] extends
  Readonly<Record<string, infer V>> | undefined
  ? V
  : never;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- an ES module, compiled to CommonJS for Jest
const ext = require('@modelcontextprotocol/ext-tasks/client') as ExtTasks;

const MODERN = '2026-07-28';

const servers: McpToolServer[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(tools: Tool[]): Promise<HttpListener> {
  const server = serveTools(tools, { tasks: { pollIntervalMs: 20 } });
  servers.push(server);
  return server.listenHttp({});
}

/** A task-required tool that asks for a name, then greets it. */
const greeter = newTool({
  name: 'greet',
  description: 'asks a name',
  taskSupport: 'required',
  execute: async (_call, ctx) => {
    const answer = await ctx.ask({
      message: 'Name?',
      schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return { output: `hello ${JSON.stringify(answer.content?.name)} (${answer.action})` };
  },
});

/**
 * The host's raw dispatch that ext-tasks needs for a 2026-07-28 server: one POST per
 * request, with the protocol headers (`Mcp-Method`, `Mcp-Name` for a call; ext-tasks
 * gives `Mcp-Name` for `tasks/*`), the answer read from JSON or SSE.
 */
function rawDispatch(url: string): Parameters<ExtTasks['createTaskSessionFromClient']>[1] extends {
  rawDispatch?: infer D;
}
  ? NonNullable<D>
  : never {
  let next = 0;
  return async (request, options) => {
    const message = request as { method: string; params?: { name?: unknown } };
    const id = ++next;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': message.method,
      ...(typeof message.params?.name === 'string' ? { 'mcp-name': message.params.name } : {}),
      ...options?.context?.headers,
    };
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, ...message }),
      ...(options?.signal === undefined ? {} : { signal: options.signal }),
    });
    const text = await response.text();
    const lines = text.startsWith('{')
      ? [text]
      : text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6));
    const answer = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((parsed) => parsed.id === id);
    if (answer === undefined) throw new Error(`no answer to ${message.method}: ${text}`);
    if (answer.error !== undefined) {
      return { kind: 'error', error: answer.error as { code: number; message: string } };
    }
    return { kind: 'result', result: answer.result as JsonValue };
  };
}

/**
 * The SDK transport's fetch. Node's `Response.json()` makes its objects in Node's own
 * realm, not in the one Jest runs this file in, and ext-tasks takes a result for JSON
 * only when its objects' prototype is this realm's `Object.prototype`: the body is
 * parsed here instead, as it would be outside Jest, where there is one realm.
 */
const fetchHere: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  return Object.defineProperty(response, 'json', {
    value: async () => JSON.parse(await response.text()) as unknown,
  });
};

/** An ext-tasks session over a 2026-07-28 connection (the SDK client pinned to it). */
async function modernSession(url: string, onInputRequest?: InputHandler): Promise<Session> {
  const client = new Client(
    { name: 'ext-tasks-modern', version: '1' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchHere }));
  closers.push(() => client.close());
  const session = ext.createTaskSessionFromClient(asExtClient(client), {
    endpointId: url,
    rawDispatch: rawDispatch(url),
    v2RequestFraming: {
      protocolVersion: MODERN,
      clientInfo: { name: 'ext-tasks-modern', version: '1' },
      clientCapabilities: { elicitation: { form: {} } },
    },
    ...(onInputRequest === undefined ? {} : { onInputRequest }),
  });
  closers.push(() => session.close());
  return session;
}

/** An ext-tasks session over a 2025-era connection (the SDK client's default era). */
async function legacySession(url: string, onInputRequest?: InputHandler): Promise<Session> {
  const client = new Client(
    { name: 'ext-tasks-legacy', version: '1' },
    { capabilities: { elicitation: {} } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchHere }));
  closers.push(() => client.close());
  const session = ext.createTaskSessionFromClient(asExtClient(client), {
    endpointId: url,
    ...(onInputRequest === undefined ? {} : { onInputRequest }),
  });
  closers.push(() => session.close());
  return session;
}

/**
 * The client as ext-tasks' declarations name it: they import the SDK's ES module
 * typings, this file its CommonJS ones, two declarations of the one class Jest loads.
 */
function asExtClient(client: Client): Parameters<ExtTasks['createTaskSessionFromClient']>[0] {
  return client as unknown as Parameters<ExtTasks['createTaskSessionFromClient']>[0];
}

type Era = 'legacy' | 'modern';
const sessionOf = (era: Era) => (era === 'modern' ? modernSession : legacySession);

/** The text of a tool result's first block. */
function firstText(result: unknown): string {
  return (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';
}

describe.each<[string, Era]>([
  ['2026-07-28 (the extension)', 'modern'],
  ['2025-11-25 (experimental tasks)', 'legacy'],
])('ext-tasks in the %s era', (_name, era) => {
  test('creates a task and follows it to its result, seeing its progress', async () => {
    const job = gated('job', 'required');
    const listener = await serve([job.tool]);
    const session = await sessionOf(era)(listener.url);
    // What ext-tasks makes of the server: tasks it can run and cancel; answers to a
    // task's questions by tasks/update only in 2026-07-28, a ttl asked for only in 2025.
    expect(session.capabilities).toMatchObject({
      execution: true,
      cancellation: true,
      inputResponses: era === 'modern',
      requestedRetention: era === 'legacy',
    });
    const execution = await session.callTool('job', {});
    if (execution.kind !== 'task') throw new Error('no task');
    expect(execution.serializeReference().generation).toBe(era === 'modern' ? 'v2' : 'v1');
    const halfWay = signal();
    const settled = execution.settle({
      onEvent: (event) => {
        if (event.type === 'task' && event.task.statusMessage === 'half way') halfWay.resolve();
      },
    });
    await halfWay.promise;
    job.release.resolve('done at last');
    const { outcome } = await settled;
    expect(outcome.status).toBe('completed');
    expect(firstText(ext.resultFromTaskOutcome(outcome))).toBe('done at last');
  });

  test("answers the task's question through its input handler", async () => {
    const listener = await serve([greeter]);
    const asked: { kind: string; delivery: string; taskId: string | undefined }[] = [];
    const session = await sessionOf(era)(listener.url, (request, context) => {
      asked.push({ kind: request.kind, delivery: context.delivery, taskId: context.taskId });
      return Promise.resolve({ action: 'accept', content: { name: 'Ada' } } as never);
    });
    const execution = await session.callTool('greet', {});
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(firstText(ext.resultFromTaskOutcome(outcome))).toBe('hello "Ada" (accept)');
    const taskId = execution.kind === 'task' ? execution.handle.taskId : undefined;
    // 2026-07-28: inlined in tasks/get, answered by tasks/update; 2025-11-25: a request
    // of the server's, naming the task.
    expect(asked).toEqual([
      { kind: 'elicitation', delivery: era === 'modern' ? 'task-update' : 'peer-request', taskId },
    ]);
  });

  test("cancels the task: the tool's signal aborts and the task ends cancelled", async () => {
    const job = gated('job', 'optional');
    const listener = await serve([job.tool]);
    const session = await sessionOf(era)(listener.url);
    // An optional tool runs as a task when the client prefers one (2025-11-25 asks for it).
    const execution = await session.callTool('job', {}, { task: { preference: 'require' } });
    if (execution.kind !== 'task') throw new Error('no task');
    await job.started.promise;
    await execution.cancel();
    expect(String(await job.aborted.promise)).toContain('the task was cancelled');
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect((await session.task(execution.handle.taskId).snapshot()).status).toBe('cancelled');
  });

  test('a tool that never runs as a task answers in the call', async () => {
    const plain = newTool({
      name: 'plain',
      description: 'runs in the call',
      taskSupport: 'never',
      execute: () => ({ output: 'right away' }),
    });
    const listener = await serve([plain]);
    const session = await sessionOf(era)(listener.url);
    const execution = await session.callTool('plain', {});
    expect(execution.kind).toBe('immediate');
    const { outcome } = await execution.settle();
    expect(firstText(ext.resultFromTaskOutcome(outcome))).toBe('right away');
  });

  test('a second session resumes the task by its reference and follows it to its result', async () => {
    const job = gated('job', 'required');
    const listener = await serve([job.tool]);
    const first = await sessionOf(era)(listener.url);
    const execution = await first.callTool('job', {});
    if (execution.kind !== 'task') throw new Error('no task');
    const reference = execution.serializeReference();
    await execution.detach();
    await job.started.promise;

    const second = await sessionOf(era)(listener.url);
    const resumed = await second.resumeTask(reference);
    job.release.resolve('picked up');
    const { outcome } = await resumed.settle();
    expect(firstText(ext.resultFromTaskOutcome(outcome))).toBe('picked up');
  });
});

test('2025-11-25: an isError result ends the task failed, which ext-tasks reports with its message', async () => {
  const broken = newTool({
    name: 'broken',
    description: 'fails',
    taskSupport: 'required',
    execute: () => {
      throw new Error('the disk is full');
    },
  });
  const listener = await serve([broken]);
  const session = await legacySession(listener.url);
  const execution = await session.callTool('broken', {});
  expect(execution.kind).toBe('task');
  const { outcome } = await execution.settle();
  expect(outcome.status).toBe('failed');
  if (outcome.status !== 'failed') return;
  expect(outcome.error.message).toContain('the disk is full');
});

test('2026-07-28: a JSON-RPC error ends the task failed with that error', async () => {
  const refusing = newTool({
    name: 'refusing',
    description: 'fails its request',
    taskSupport: 'required',
    execute: () => {
      throw new ProtocolError(-32000, 'the quota is spent');
    },
  });
  const listener = await serve([refusing]);
  const session = await modernSession(listener.url);
  const execution = await session.callTool('refusing', {});
  expect(execution.kind).toBe('task');
  const { outcome } = await execution.settle();
  expect(outcome).toMatchObject({ status: 'failed', error: { code: -32000 } });
});

test('2025-11-25: ext-tasks follows the task by its notifications/tasks/status, not by polling', async () => {
  const job = gated('job', 'required');
  // A poll a minute apart: ext-tasks waits that long for a state unless a notification
  // brings it, and the test times out long before.
  const server = serveTools([job.tool], { tasks: { pollIntervalMs: 60_000 } });
  servers.push(server);
  const { url } = await server.listenHttp({});
  const client = new Client({ name: 'ext-tasks-legacy', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchHere }));
  closers.push(() => client.close());
  // ext-tasks takes over the client's fallback, calling the one before it first.
  const notified: { taskId: unknown; status: unknown }[] = [];
  client.fallbackNotificationHandler = (notification) => {
    if (notification.method === 'notifications/tasks/status') {
      const { taskId, status } = notification.params as Record<string, unknown>;
      notified.push({ taskId, status });
    }
    return Promise.resolve();
  };
  const session = ext.createTaskSessionFromClient(asExtClient(client), { endpointId: url });
  closers.push(() => session.close());

  const execution = await session.callTool('job', {});
  if (execution.kind !== 'task') throw new Error('no task');
  expect(execution.serializeReference().generation).toBe('v1');
  await job.started.promise;
  job.release.resolve('told, not polled');
  const { outcome } = await execution.settle();
  expect(firstText(ext.resultFromTaskOutcome(outcome))).toBe('told, not polled');
  expect(notified).toContainEqual({ taskId: execution.handle.taskId, status: 'completed' });
});
