/**
 * Traces and metrics leave the process the way an operator ships them: the real OTLP/HTTP
 * exporters (`@opentelemetry/exporter-trace-otlp-http`, `…-metrics-otlp-http`, which
 * send OTLP JSON), behind a BatchSpanProcessor and a PeriodicExportingMetricReader,
 * registered with docs/telemetry.md's own `registerTelemetry` (samples/telemetry). A tool
 * served over Streamable HTTP is called through `connectMcp` from a host's batch; the
 * providers are then shut down (which flushes them), and a receiver listening on
 * 127.0.0.1 in this test must have been sent one trace (the host's batch and job, the
 * client span, the server span continued from `_meta`, the tool's own batch and job) and
 * the two MCP operation-duration histograms.
 */
import * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { context, propagation } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { Executor, newTool, text, type Tool } from 'agenttool';
import { connectMcp, type HttpListener, type RemoteTools, serveTools } from 'agenttool/mcp';
import { registerTelemetry } from '../../samples/telemetry/register';

// OTLP JSON as the receiver reads it (only the fields the test looks at).
interface KeyValue {
  readonly key: string;
  readonly value: { stringValue?: string; intValue?: number | string; boolValue?: boolean };
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: readonly KeyValue[];
}
interface TracesRequest {
  readonly resourceSpans?: readonly {
    readonly scopeSpans?: readonly { readonly spans?: readonly OtlpSpan[] }[];
  }[];
}
interface OtlpHistogramPoint {
  readonly attributes?: readonly KeyValue[];
  readonly count: number | string;
}
interface OtlpMetric {
  readonly name: string;
  readonly unit?: string;
  readonly histogram?: { readonly dataPoints: readonly OtlpHistogramPoint[] };
}
interface MetricsRequest {
  readonly resourceMetrics?: readonly {
    readonly scopeMetrics?: readonly { readonly metrics?: readonly OtlpMetric[] }[];
  }[];
}

/** What the receiver was sent, by path, each body decoded from OTLP JSON. */
interface Received {
  readonly requests: { path: string; contentType: string | undefined; body: unknown }[];
}

/** An OTLP/HTTP receiver on 127.0.0.1: takes JSON exports and answers them as a collector does. */
async function startReceiver(): Promise<{
  readonly url: string;
  readonly received: Received;
  readonly close: () => Promise<void>;
}> {
  const received: Received = { requests: [] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = zlib.gunzipSync(raw);
      const path = req.url ?? '';
      const contentType = req.headers['content-type'];
      if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
        res.writeHead(404).end();
        return;
      }
      received.requests.push({
        path,
        contentType,
        body: JSON.parse(raw.toString('utf8')) as unknown,
      });
      // An empty ExportTrace/MetricsServiceResponse: everything accepted.
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

function spansOf(received: Received): OtlpSpan[] {
  return received.requests
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) =>
      ((r.body as TracesRequest).resourceSpans ?? []).flatMap((rs) =>
        (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []),
      ),
    );
}

function metricsOf(received: Received): OtlpMetric[] {
  return received.requests
    .filter((r) => r.path === '/v1/metrics')
    .flatMap((r) =>
      ((r.body as MetricsRequest).resourceMetrics ?? []).flatMap((rm) =>
        (rm.scopeMetrics ?? []).flatMap((sm) => sm.metrics ?? []),
      ),
    );
}

/** An OTLP attribute list as a plain record of its values. */
function attributes(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.boolValue ?? value.intValue,
    ]),
  );
}

// OTLP's SpanKind: 1 internal, 2 server, 3 client.
const KIND: Record<number, string> = { 1: 'INTERNAL', 2: 'SERVER', 3: 'CLIENT' };

function drawTree(spans: readonly OtlpSpan[]): string {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .map((s) => {
      const parent = s.parentSpanId ? (byId.get(s.parentSpanId)?.name ?? s.parentSpanId) : '';
      return `${s.name} (${KIND[s.kind]}) <- ${parent || '(root)'}`;
    })
    .join('\n');
}

function toolOf(remote: RemoteTools, name: string): Tool {
  const found = remote.tools().find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

test('traces and metrics leave through the OTLP/HTTP exporters: one trace across connectMcp and the MCP duration histograms', async () => {
  const receiver = await startReceiver();
  let shutdown: (() => Promise<void>) | undefined;
  let listener: HttpListener | undefined;
  let remote: RemoteTools | undefined;
  const server = serveTools(
    [
      newTool({
        name: 'greet',
        parameters: { type: 'object', properties: { name: { type: 'string' } } },
        execute: async (call) => {
          // The tool's own batch, under the server span.
          const inner = newTool({ name: 'inner', execute: () => text('inner done') });
          const [outcome] = await new Executor().results([
            { tool: inner, call: { id: 'inner_1', args: '{}' } },
          ]);
          const { name } = JSON.parse(call.args) as { name: string };
          return text(`hello ${name}, ${outcome?.result?.output as string}`);
        },
      }),
    ],
    { name: 'exported' },
  );
  try {
    // As docs/telemetry.md registers in code, with the exporters an operator deploys.
    shutdown = registerTelemetry(
      new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }),
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${receiver.url}/v1/metrics` }),
        // Exported at shutdown, not on a timer during the test.
        exportIntervalMillis: 3_600_000,
      }),
    );
    listener = await server.listenHttp({ host: '127.0.0.1', port: 0 });
    remote = await connectMcp({ transport: { url: listener.url }, protocol: 'legacy' });
    const outcomes = await new Executor().results([
      { tool: toolOf(remote, 'greet'), call: { id: 'call_1', args: '{"name":"otlp"}' } },
    ]);
    expect(outcomes[0]?.result?.output).toBe('hello otlp, inner done');
  } finally {
    await remote?.close();
    await listener?.close();
    await server.close();
    // Flushes the batch processor and the metric reader to the receiver, then withdraws
    // the tracer and meter providers; the propagator and context manager go too, so that
    // other tests start clean.
    await shutdown?.();
    propagation.disable();
    context.disable();
    await receiver.close();
  }

  const { received } = receiver;
  expect(received.requests.length).toBeGreaterThan(0);
  for (const request of received.requests) expect(request.contentType).toBe('application/json');

  // Traces: the call is one trace, from the host's batch down to the tool's inner job.
  const spans = spansOf(received);
  const tree = drawTree(spans);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const innerJob = spans.find((s) => s.name === 'execute_tool inner');
  expect({ found: innerJob?.name, tree }).toEqual({ found: 'execute_tool inner', tree });
  const chain: OtlpSpan[] = [];
  for (
    let s = innerJob;
    s !== undefined;
    s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined
  ) {
    chain.push(s);
  }
  expect({ chain: chain.map((s) => `${s.name} (${KIND[s.kind]})`), tree }).toEqual({
    chain: [
      'execute_tool inner (INTERNAL)',
      'agenttool.batch (INTERNAL)',
      'tools/call greet (SERVER)',
      'tools/call greet (CLIENT)',
      'execute_tool greet (INTERNAL)',
      'agenttool.batch (INTERNAL)',
    ],
    tree,
  });
  const traceId = chain[0]?.traceId;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(chain.every((s) => s.traceId === traceId)).toBe(true);
  expect(chain.at(-1)?.parentSpanId ?? '').toBe('');

  const [, , serverSpan, clientSpan, hostJob] = chain as [
    OtlpSpan,
    OtlpSpan,
    OtlpSpan,
    OtlpSpan,
    OtlpSpan,
  ];
  // The server span's parent is the client span: the context crossed in `_meta`.
  expect(serverSpan.parentSpanId).toBe(clientSpan.spanId);
  const client = attributes(clientSpan.attributes);
  const served = attributes(serverSpan.attributes);
  for (const span of [client, served]) {
    expect(span).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
    });
  }
  expect(client['mcp.session.id']).toEqual(expect.any(String));
  expect(served['mcp.session.id']).toBe(client['mcp.session.id']);
  expect(client['jsonrpc.request.id']).toBeDefined();
  expect(served['jsonrpc.request.id']).toBe(client['jsonrpc.request.id']);
  expect(client).toMatchObject({ 'server.address': '127.0.0.1', 'network.protocol.name': 'http' });
  expect(attributes(hostJob.attributes)).toMatchObject({
    'gen_ai.tool.name': 'greet',
    'gen_ai.tool.call.id': 'call_1',
  });

  // Metrics: both operation durations, as histograms in seconds, with the call counted.
  const exported = metricsOf(received);
  for (const side of ['client', 'server']) {
    const name = `mcp.${side}.operation.duration`;
    const metric = exported.find((m) => m.name === name);
    expect({ name, names: exported.map((m) => m.name), unit: metric?.unit }).toEqual({
      name,
      names: expect.arrayContaining([name]) as unknown,
      unit: 's',
    });
    const call = metric?.histogram?.dataPoints.find(
      (p) => attributes(p.attributes)['mcp.method.name'] === 'tools/call',
    );
    expect(attributes(call?.attributes)).toMatchObject({
      'gen_ai.tool.name': 'greet',
      'mcp.protocol.version': '2025-11-25',
    });
    expect(attributes(call?.attributes)['mcp.session.id']).toBeUndefined();
    expect(Number(call?.count)).toBe(1);
  }
});
