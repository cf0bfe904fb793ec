import {
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  type Result,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { telemetryNames as N } from '../../../core';
import { meteringApi, type Otel, tracingApi } from '../../../core/otel';
import { operationInstruments } from '../../operation-instruments';
import { SESSION_META_KEY } from '../session';
import { RequestFirstServer } from './request-first-server';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;
type Attributes = import('@opentelemetry/api').Attributes;
type Span = import('@opentelemetry/api').Span;

/** The most of a tool's failure text a span's status carries (characters). */
const STATUS_LIMIT = 256;

/**
 * The SDK's low-level `Server` whose request handlers each run in a span and are timed,
 * as the MCP semantic conventions say, when OpenTelemetry is set up in the process (a
 * tracer or meter provider registered); otherwise it is the SDK's `Server` (which tells
 * requests first, see {@link RequestFirstServer}), apart from one check per request.
 * Every handler passes the SDK's own hook for wrapping handlers (`_wrapHandler`), so
 * `initialize` and `ping` are served in spans too.
 */
export class TracedServer extends RequestFirstServer {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const inner = super._wrapHandler(method, handler);
    return (request, ctx) => {
      const tracing = tracingApi();
      const metering = tracing === undefined ? meteringApi() : tracing;
      if (metering === undefined) return inner(request, ctx);
      return serveObserved(this, metering, tracing !== undefined, method, request, ctx, inner);
    };
  }
}

async function serveObserved(
  server: Server,
  api: Otel,
  traced: boolean,
  method: string,
  request: JSONRPCRequest,
  ctx: ServerContext,
  inner: Handler,
): Promise<Result> {
  const started = performance.now();
  const params = request.params as Record<string, unknown> | undefined;
  const named = typeof params?.name === 'string' ? params.name : undefined;
  const tool = method === 'tools/call' ? named : undefined;
  const attributes = operationAttributes(server, method, tool, ctx);
  // A prompt is named in the span's name, as a tool is; a resource's URI only in an
  // attribute (URIs are many).
  const prompt = method === 'prompts/get' ? named : undefined;
  if (prompt !== undefined) attributes[N.ATTR_GEN_AI_PROMPT_NAME] = prompt;
  if (method.startsWith('resources/') && typeof params?.uri === 'string') {
    attributes[N.ATTR_MCP_RESOURCE_URI] = params.uri;
  }
  let span: Span | undefined;
  let run = (): Promise<Result> => inner(request, ctx);
  if (traced) {
    const parent = parentOf(api, params?._meta);
    span = startServerSpan(api, method, tool ?? prompt, attributes, request, parent);
    const active = api.trace.setSpan(parent, span);
    run = () => api.context.with(active, () => inner(request, ctx));
  }
  let failure: { type: string; code?: string; message: string } | undefined;
  try {
    const result = await run();
    if ((result as { isError?: unknown }).isError === true) {
      failure = { type: N.TOOL_ERROR, message: toolErrorText(result) };
    }
    return result;
  } catch (error) {
    failure = thrownFailure(error);
    throw error;
  } finally {
    const metricAttributes = { ...attributes };
    if (failure !== undefined) {
      metricAttributes[N.ATTR_ERROR_TYPE] = failure.type;
      if (failure.code !== undefined)
        metricAttributes[N.ATTR_RPC_RESPONSE_STATUS_CODE] = failure.code;
    }
    delete metricAttributes[N.ATTR_MCP_SESSION_ID];
    const instruments = meteringApi() === undefined ? undefined : operationInstruments(api);
    instruments?.server.record((performance.now() - started) / 1000, metricAttributes);
    if (span !== undefined) {
      if (failure !== undefined) {
        span.setAttribute(N.ATTR_ERROR_TYPE, failure.type);
        if (failure.code !== undefined)
          span.setAttribute(N.ATTR_RPC_RESPONSE_STATUS_CODE, failure.code);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
      }
      span.end();
    }
  }
}

/** The attributes of a request's span and of its duration metric. */
function operationAttributes(
  server: Server,
  method: string,
  tool: string | undefined,
  ctx: ServerContext,
): Attributes {
  const attributes: Attributes = { [N.ATTR_MCP_METHOD_NAME]: method };
  if (tool !== undefined) {
    attributes[N.ATTR_GEN_AI_TOOL_NAME] = tool;
    attributes[N.ATTR_GEN_AI_OPERATION_NAME] = N.EXECUTE_TOOL;
  }
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[PROTOCOL_VERSION_META_KEY];
  // The revision a 2026-07-28 request names, else the one the connection negotiated.
  const version = typeof declared === 'string' ? declared : server.getNegotiatedProtocolVersion();
  if (version !== undefined) attributes[N.ATTR_MCP_PROTOCOL_VERSION] = version;
  const handle = ctx.mcpReq._meta?.[SESSION_META_KEY];
  const session = ctx.sessionId ?? (typeof handle === 'string' ? handle : undefined);
  if (session !== undefined && session !== '') attributes[N.ATTR_MCP_SESSION_ID] = session;
  if (ctx.http !== undefined) {
    attributes[N.ATTR_NETWORK_TRANSPORT] = 'tcp';
    attributes[N.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  }
  return attributes;
}

function startServerSpan(
  api: Otel,
  method: string,
  target: string | undefined,
  attributes: Attributes,
  request: JSONRPCRequest,
  parent: import('@opentelemetry/api').Context,
): Span {
  // The caller's trace is the parent; the span current here (an HTTP server span of
  // the host's instrumentation) is linked, as the conventions ask.
  const ambient = api.trace.getSpan(api.context.active());
  const links =
    ambient !== undefined && parent !== api.context.active()
      ? [{ context: ambient.spanContext() }]
      : [];
  const span = api.trace.getTracer('agenttool').startSpan(
    target === undefined ? method : `${method} ${target}`,
    {
      kind: api.SpanKind.SERVER,
      attributes: { ...attributes, [N.ATTR_JSONRPC_REQUEST_ID]: String(request.id) },
      links,
    },
    parent,
  );
  return span;
}

/**
 * The parent of a request's span: the caller's span when the request's `_meta` carries
 * a valid trace context (`traceparent`, `tracestate`; baggage too, as the registered
 * propagator reads them), else the context active here.
 */
function parentOf(api: Otel, meta: unknown): import('@opentelemetry/api').Context {
  const active = api.context.active();
  if (typeof meta !== 'object' || meta === null) return active;
  const extracted = api.propagation.extract(active, meta);
  const remote = api.trace.getSpanContext(extracted);
  return remote !== undefined && api.trace.isSpanContextValid(remote) && remote.isRemote === true
    ? extracted
    : active;
}

function toolErrorText(result: Result): string {
  const content = (result as { content?: unknown }).content;
  const first = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined) : undefined;
  const text = typeof first?.text === 'string' ? first.text : 'tool error';
  return text.length <= STATUS_LIMIT ? text : `${text.slice(0, STATUS_LIMIT)}…`;
}

function thrownFailure(error: unknown): { type: string; code?: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (ProtocolError.isInstance(error)) {
    const code = String(error.code);
    return { type: code, code, message };
  }
  const name = error instanceof Error ? error.constructor.name : '';
  return { type: name === '' ? '_OTHER' : name, message };
}
