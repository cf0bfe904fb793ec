/**
 * MCP as OpenTelemetry sees it, with the SDK's in-memory exporters: a call made through
 * `connectMcp` to our server is one trace (the host's batch and job, the client span,
 * the server span continued from the request's `_meta`, then the batch and job spans of
 * what the tool runs), in both protocol eras, in memory and over HTTP; the spans'
 * names, kinds and attributes are the MCP semantic conventions'; a task's run links to
 * the call that made it; the server's log lines carry the trace's ids; and the MCP
 * duration histograms and the server's gauges are recorded.
 */
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { SpanKind } from '@opentelemetry/api';
import { type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  createContext,
  Executor,
  type Job,
  type McpResource,
  newTool,
  type Prompt,
  text,
  type Tool,
} from 'agenttool';
import {
  type ConnectOptions,
  connectMcp,
  McpToolServer,
  type RemoteTools,
  serveTools,
  SESSION_END_METHOD,
} from 'agenttool/mcp';
import { describeSpans, only, setUpTelemetry, type Telemetry } from './otel';

let otel: Telemetry;
beforeEach(() => (otel = setUpTelemetry()));
afterEach(() => otel.shutdown());

const logged: unknown[] = [];

/** The served tools: one that runs a batch of its own and logs, one that fails. */
function served(): McpToolServer {
  const inner = newTool({ name: 'inner', execute: () => text('inner done') });
  return new McpToolServer(
    [
      newTool({
        name: 'echo',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        execute: async (call, ctx) => {
          ctx.logMessage('info', 'echoing');
          const outcomes = await new Executor().results([
            { tool: inner, call: { id: 'inner_1', args: '{}' } },
          ]);
          return text(
            `${(JSON.parse(call.args) as { text: string }).text} ${outcomes[0]?.result?.output as string}`,
          );
        },
      }),
      newTool({
        name: 'fails',
        execute: () => {
          throw new Error('no such file');
        },
      }),
    ],
    { name: 'traced' },
  );
}

interface Connection {
  readonly remote: RemoteTools;
  readonly close: () => Promise<void>;
}

type Way = 'memory 2025' | 'http 2025' | 'http 2026-07-28';

async function connect(server: McpToolServer, way: Way): Promise<Connection> {
  const common: Partial<ConnectOptions> = { onLog: (_level, data) => logged.push(data) };
  if (way === 'memory 2025') {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    const remote = await connectMcp({ ...common, transport: clientEnd });
    return { remote, close: () => remote.close() };
  }
  const listener = await server.listenHttp();
  const remote = await connectMcp({
    ...common,
    transport: { url: listener.url },
    protocol: way === 'http 2025' ? 'legacy' : 'modern',
  });
  return {
    remote,
    close: async () => {
      await remote.close();
      await listener.close();
    },
  };
}

function toolOf(remote: RemoteTools, name: string): Tool {
  const found = remote.tools().find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return spans.find((s) => s.spanContext().spanId === id);
}

describe.each<Way>(['memory 2025', 'http 2025', 'http 2026-07-28'])('over %s', (way) => {
  test('a call through connectMcp is one trace: batch, job, client span, server span, then the tool’s batch and job', async () => {
    const server = served();
    const { remote, close } = await connect(server, way);
    try {
      // A second call carries the 2026-07-28 session handle the first one was given.
      for (const id of ['call_1', 'call_2']) {
        otel.reset();
        const jobs: Job[] = [{ tool: toolOf(remote, 'echo'), call: { id, args: '{"text":"hi"}' } }];
        const outcomes = await new Executor().results(jobs);
        expect(outcomes[0]?.result?.output).toBe('hi inner done');
      }
    } finally {
      await close();
      await server.close();
    }
    const spans = otel.spans().filter((s) => s.name !== 'initialize');
    const tree = describeSpans(spans);
    const client = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo');
    const serverSpan = spans.find(
      (s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo',
    );
    expect({ client: client?.name, server: serverSpan?.name, tree }).toMatchObject({
      client: 'tools/call echo',
      server: 'tools/call echo',
    });
    const hostJob = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'call_2');
    const innerJob = only(spans, 'execute_tool inner');
    // The chain, from the tool's inner job up to the host's batch, one trace.
    const chain: string[] = [];
    for (let s: ReadableSpan | undefined = innerJob; s !== undefined; s = parentOf(spans, s)) {
      chain.push(`${s.name} (${SpanKind[s.kind]})`);
    }
    expect(chain).toEqual([
      'execute_tool inner (INTERNAL)',
      'agenttool.batch (INTERNAL)',
      'tools/call echo (SERVER)',
      'tools/call echo (CLIENT)',
      'execute_tool echo (INTERNAL)',
      'agenttool.batch (INTERNAL)',
    ]);
    // Every span of the call is in the host batch's trace (closing the connection, after
    // the loop, is a request of its own).
    const traceId = hostJob?.spanContext().traceId;
    const outside = spans.filter((s) => s.spanContext().traceId !== traceId).map((s) => s.name);
    expect(outside).toEqual(
      way === 'http 2026-07-28' ? [SESSION_END_METHOD, SESSION_END_METHOD] : [],
    );
    expect(parentOf(spans, client as ReadableSpan)).toBe(hostJob);

    for (const span of [client, serverSpan] as ReadableSpan[]) {
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(span.attributes['mcp.protocol.version']).toBe(
        way === 'http 2026-07-28' ? '2026-07-28' : '2025-11-25',
      );
    }
    expect(client?.attributes['jsonrpc.request.id']).toBeDefined();
    expect(serverSpan?.attributes['jsonrpc.request.id']).toBe(
      client?.attributes['jsonrpc.request.id'],
    );
    if (way === 'memory 2025') {
      expect(client?.attributes['mcp.session.id']).toBeUndefined();
    } else {
      expect(client?.attributes['mcp.session.id']).toEqual(expect.any(String));
      expect(serverSpan?.attributes['mcp.session.id']).toBe(client?.attributes['mcp.session.id']);
      expect(client?.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
      });
      expect(serverSpan?.attributes['network.transport']).toBe('tcp');
    }
    // The server's log line to the client carries the ids of the span it was written in.
    const ids = serverSpan?.spanContext();
    expect(logged).toContain(`echoing trace_id=${ids?.traceId} span_id=${ids?.spanId}`);
  });

  test('a failing tool marks both spans tool_error, with the message as the status', async () => {
    const server = served();
    const { remote, close } = await connect(server, way);
    try {
      await expect(
        toolOf(remote, 'fails').execute({ id: 'f', args: '{}' }, createContext()),
      ).rejects.toThrow('no such file');
    } finally {
      await close();
      await server.close();
    }
    const spans = otel.spans();
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const span = spans.find((s) => s.kind === kind && s.name === 'tools/call fails');
      expect(span?.attributes['error.type']).toBe('tool_error');
      expect(span?.status.code).toBe(2);
    }
    const serverSpan = spans.find(
      (s) => s.kind === SpanKind.SERVER && s.name === 'tools/call fails',
    );
    expect(serverSpan?.status.message).toBe('no such file');
  });
});

test('the server continues the trace a request carries in _meta (traceparent, tracestate)', async () => {
  const server = serveTools([newTool({ name: 'plain', execute: () => text('ok') })]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const answers = new Map<number, (message: unknown) => void>();
  clientEnd.onmessage = (message) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'number') answers.get(id)?.(message);
  };
  await clientEnd.start();
  const ask = (id: number, method: string, params: Record<string, unknown>): Promise<unknown> => {
    const answer = new Promise((resolve) => answers.set(id, resolve));
    void clientEnd.send({ jsonrpc: '2.0', id, method, params });
    return answer;
  };
  await ask(1, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bare', version: '1' },
  });
  await ask(2, 'tools/call', {
    name: 'plain',
    arguments: {},
    _meta: {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'rojo=00f067aa0ba902b7',
    },
  });
  await server.close();
  const span = only(otel.spans(), 'tools/call plain');
  expect(span.kind).toBe(SpanKind.SERVER);
  expect(span.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  expect(span.spanContext().traceState?.serialize()).toBe('rojo=00f067aa0ba902b7');
  expect(span.attributes['jsonrpc.request.id']).toBe('2');
  const initialize = only(otel.spans(), 'initialize');
  expect(initialize.attributes['mcp.method.name']).toBe('initialize');
});

test('prompts/get is named by its prompt, resources/read carries its URI', async () => {
  const prompt: Prompt = { name: 'brief', get: () => 'Be brief.' };
  const resource: McpResource = { uri: 'notes://today', name: 'today', read: () => 'nothing' };
  const served = serveTools(
    { tools: [newTool({ name: 'plain', execute: () => text('ok') })] },
    { prompts: [prompt], resources: [resource] },
  );
  const connection = await connect(served, 'http 2026-07-28');
  try {
    await connection.remote.getPrompt('brief');
    await connection.remote.readResource('notes://today');
  } finally {
    await connection.close();
    await served.close();
  }
  const server = otel.spans().filter((span) => span.kind === SpanKind.SERVER);
  const get = only(server, 'prompts/get brief');
  expect(get.attributes['gen_ai.prompt.name']).toBe('brief');
  expect(get.attributes['mcp.method.name']).toBe('prompts/get');
  const read = only(server, 'resources/read');
  expect(read.attributes['mcp.resource.uri']).toBe('notes://today');
});

test('a task links its run to the call that created it', async () => {
  const server = serveTools(
    [newTool({ name: 'build', taskSupport: 'required', execute: () => text('built') })],
    { tasks: { pollIntervalMs: 20 } },
  );
  const listener = await server.listenHttp();
  const remote = await connectMcp({ transport: { url: listener.url }, protocol: 'modern' });
  try {
    const result = await toolOf(remote, 'build').execute({ id: 't', args: '{}' }, createContext());
    expect(result.output).toBe('built');
  } finally {
    await remote.close();
    await server.close();
  }
  const spans = otel.spans();
  const run = only(spans, 'agenttool.task.run build');
  const creator = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call build');
  expect(run.parentSpanContext).toBeUndefined();
  expect(run.links.map((l) => l.context.spanId)).toEqual([creator?.spanContext().spanId]);
  expect(run.attributes['agenttool.task.id']).toEqual(expect.any(String));
  expect(creator?.attributes['agenttool.task.id']).toBe(run.attributes['agenttool.task.id']);
  // The client follows the task with requests of their own, in the call's trace.
  const followed = spans.filter((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('tasks/'));
  expect(followed.length).toBeGreaterThan(0);
});

test("the server's own failure lines carry the trace's ids", async () => {
  const lines: string[] = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((line: unknown) => {
    lines.push(String(line));
  });
  const server = serveTools([
    newTool({
      name: 'broken',
      execute: () => {
        throw new TypeError('x is not a function');
      },
    }),
  ]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const remote = await connectMcp({ transport: clientEnd });
  try {
    await expect(
      toolOf(remote, 'broken').execute({ id: 'b', args: '{}' }, createContext()),
    ).rejects.toThrow('panicked');
  } finally {
    spy.mockRestore();
    await remote.close();
    await server.close();
  }
  const span = only(
    otel.spans().filter((s) => s.kind === SpanKind.SERVER),
    'tools/call broken',
  );
  const { traceId, spanId } = span.spanContext();
  expect(lines.some((l) => l.includes(`trace_id=${traceId} span_id=${spanId}`))).toBe(true);
});

test('MCP metrics: operation durations on both sides, session durations, and the server gauges', async () => {
  const server = served();
  const { remote, close } = await connect(server, 'http 2025');
  await toolOf(remote, 'echo').execute({ id: 'm', args: '{"text":"hi"}' }, createContext());
  const during = await otel.metrics();
  const sessions = during.get('agenttool.mcp.server.active_sessions');
  expect(sessions?.dataPoints[0]?.value).toBe(1);
  expect(during.get('agenttool.mcp.server.parked_calls')?.dataPoints[0]?.value).toBe(0);
  expect(during.get('agenttool.mcp.server.open_tasks')?.dataPoints[0]?.value).toBe(0);
  await close();
  await server.close();
  const after = await otel.metrics();
  for (const side of ['server', 'client']) {
    const metric = after.get(`mcp.${side}.operation.duration`);
    expect(metric?.descriptor.unit).toBe('s');
    const call = metric?.dataPoints.find((p) => p.attributes['mcp.method.name'] === 'tools/call');
    expect(call?.attributes).toMatchObject({
      'gen_ai.tool.name': 'echo',
      'mcp.protocol.version': '2025-11-25',
    });
    expect(call?.attributes['mcp.session.id']).toBeUndefined();
    expect((call?.value as { count: number }).count).toBe(1);
    const session = after.get(`mcp.${side}.session.duration`);
    expect((session?.dataPoints[0]?.value as { count: number }).count).toBeGreaterThanOrEqual(1);
  }
});
