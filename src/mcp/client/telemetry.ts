import { type Client, type Transport } from '@modelcontextprotocol/client';
import { INSTRUMENTATION_SCOPE, secondsSince, telemetryNames as N } from '../../core';
import { meteringApi, type Otel, propagationApi, tracingApi } from '../../core/otel';
import { operationInstruments } from '../operation-instruments';
import { SESSION_META_KEY } from './session-extension';
import { clientSdk } from './sdk-modules';
import { type McpTarget } from './transport';

type Attributes = import('@opentelemetry/api').Attributes;

/** Where a transport made for a target leads: the attributes of the peer. */
const peers = new WeakMap<Transport, Attributes>();

/**
 * Remembers where `transport` (made for `target`) leads, for the spans of its requests:
 * a command is a pipe, a URL a TCP connection to its host and port.
 */
export function notePeer(transport: Transport, target: McpTarget): void {
  if (transport === target) return;
  if ('command' in target) {
    peers.set(transport, { [N.ATTR_NETWORK_TRANSPORT]: 'pipe' });
  } else if ('url' in target) {
    const url = new URL(target.url);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    peers.set(transport, {
      [N.ATTR_NETWORK_TRANSPORT]: 'tcp',
      [N.ATTR_NETWORK_PROTOCOL_NAME]: 'http',
      [N.ATTR_SERVER_ADDRESS]: url.hostname,
      [N.ATTR_SERVER_PORT]: port,
    });
  }
}

type Params = Record<string, unknown> | undefined;

/**
 * Makes every request `client` sends a client span as the MCP semantic conventions
 * say (`tools/call <tool>`, kind CLIENT, child of the span active where the request is
 * made), with the span's trace context in the request's `_meta` (`traceparent`,
 * `tracestate`, as the registered propagator writes them), and times it
 * (`mcp.client.operation.duration`); times the connection too
 * (`mcp.client.session.duration`). Each request checks whether OpenTelemetry is set up
 * and goes out untouched when it is not.
 */
export function traceClient(client: Client, transport: Transport): void {
  const request = client.request.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const traced = (...args: unknown[]): Promise<unknown> => {
    const tracing = tracingApi();
    const api = tracing ?? meteringApi();
    if (api === undefined) return request(...args);
    return sendObserved(api, tracing !== undefined, client, transport, request, args);
  };
  client.request = traced;
  timeConnection(transport);
}

function sendObserved(
  api: Otel,
  traced: boolean,
  client: Client,
  transport: Transport,
  request: (...args: unknown[]) => Promise<unknown>,
  args: unknown[],
): Promise<unknown> {
  const started = performance.now();
  const sent = args[0] as { method: string; params?: Params };
  const method = sent.method;
  const params = sent.params;
  const tool =
    method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
  const attributes: Attributes = { [N.ATTR_MCP_METHOD_NAME]: method, ...peers.get(transport) };
  if (tool !== undefined) {
    attributes[N.ATTR_GEN_AI_TOOL_NAME] = tool;
    attributes[N.ATTR_GEN_AI_OPERATION_NAME] = N.EXECUTE_TOOL;
  }
  const version = client.getNegotiatedProtocolVersion();
  if (version !== undefined) attributes[N.ATTR_MCP_PROTOCOL_VERSION] = version;
  const spanAttributes: Attributes = { ...attributes };
  const handle = (params?._meta as Params)?.[SESSION_META_KEY];
  const session = transport.sessionId ?? (typeof handle === 'string' ? handle : undefined);
  if (session !== undefined && session !== '') spanAttributes[N.ATTR_MCP_SESSION_ID] = session;
  // The SDK numbers requests in order and gives this one the next number (checked in
  // test/telemetry against the server span's id).
  const id = (client as unknown as { _requestMessageId?: unknown })._requestMessageId;
  if (typeof id === 'number') spanAttributes[N.ATTR_JSONRPC_REQUEST_ID] = String(id);
  let out = args;
  let finish: ((failure: Failure | undefined) => void) | undefined;
  let promise: Promise<unknown>;
  if (traced) {
    const span = api.trace
      .getTracer(INSTRUMENTATION_SCOPE)
      .startSpan(tool === undefined ? method : `${method} ${tool}`, {
        kind: api.SpanKind.CLIENT,
        attributes: spanAttributes,
      });
    const active = api.trace.setSpan(api.context.active(), span);
    const meta: Record<string, unknown> = { ...(params?._meta as Params) };
    propagationApi()?.propagation.inject(active, meta);
    out = [{ ...sent, params: { ...params, _meta: meta } }, ...args.slice(1)];
    finish = (failure) => {
      if (failure !== undefined) {
        span.setAttribute(N.ATTR_ERROR_TYPE, failure.type);
        if (failure.code !== undefined) {
          span.setAttribute(N.ATTR_RPC_RESPONSE_STATUS_CODE, failure.code);
        }
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
      }
      span.end();
    };
    promise = api.context.with(active, () => request(...out));
  } else {
    promise = request(...out);
  }
  const settle = (failure: Failure | undefined): void => {
    finish?.(failure);
    if (meteringApi() === undefined) return;
    const metric = { ...attributes };
    if (failure !== undefined) {
      metric[N.ATTR_ERROR_TYPE] = failure.type;
      if (failure.code !== undefined) metric[N.ATTR_RPC_RESPONSE_STATUS_CODE] = failure.code;
    }
    operationInstruments(api).client.record(secondsSince(started), metric);
  };
  promise.then(
    (result) =>
      settle(isToolError(result) ? { type: N.TOOL_ERROR, message: 'tool error' } : undefined),
    (error: unknown) => settle(failureOf(error)),
  );
  return promise;
}

interface Failure {
  readonly type: string;
  readonly code?: string;
  readonly message: string;
}

function isToolError(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  );
}

function failureOf(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  const sdk = clientSdk();
  if (sdk.ProtocolError.isInstance(error)) {
    const code = String(error.code);
    return { type: code, code, message };
  }
  if (error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout) {
    return { type: 'timeout', message };
  }
  const name = error instanceof Error ? error.constructor.name : '';
  return { type: name === '' ? '_OTHER' : name, message };
}

/** Times the connection from now until its transport closes, when metered. */
function timeConnection(transport: Transport): void {
  if (meteringApi() === undefined) return;
  const started = performance.now();
  // The client chains its own handler after this one when it connects.
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    const api = meteringApi();
    if (api !== undefined) {
      operationInstruments(api).clientSession.record(secondsSince(started), {
        ...peers.get(transport),
      });
    }
  };
}
