/**
 * The names agenttool's spans and metrics carry are those of the OpenTelemetry semantic
 * conventions: each constant agenttool spells for itself (so that the conventions'
 * package is no dependency) equals the package's own, from its `incubating` entry. And
 * the global slot agenttool reads to know whether OpenTelemetry is set up, without
 * loading the API, is where the installed API registers a provider.
 */
import { metrics, propagation, trace } from '@opentelemetry/api';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import * as N from '../../src/core/telemetry-names';
import { meteringApi, propagationApi, tracingApi } from '../../src/core/otel';
import { setUpTelemetry } from './otel';

const PAIRS: [ours: string, theirs: string][] = [
  [N.ATTR_GEN_AI_OPERATION_NAME, semconv.ATTR_GEN_AI_OPERATION_NAME],
  [N.ATTR_GEN_AI_TOOL_NAME, semconv.ATTR_GEN_AI_TOOL_NAME],
  [N.ATTR_GEN_AI_PROMPT_NAME, semconv.ATTR_GEN_AI_PROMPT_NAME],
  [N.ATTR_MCP_RESOURCE_URI, semconv.ATTR_MCP_RESOURCE_URI],
  [N.ATTR_GEN_AI_TOOL_CALL_ID, semconv.ATTR_GEN_AI_TOOL_CALL_ID],
  [N.ATTR_GEN_AI_TOOL_TYPE, semconv.ATTR_GEN_AI_TOOL_TYPE],
  [N.ATTR_MCP_METHOD_NAME, semconv.ATTR_MCP_METHOD_NAME],
  [N.ATTR_MCP_SESSION_ID, semconv.ATTR_MCP_SESSION_ID],
  [N.ATTR_MCP_PROTOCOL_VERSION, semconv.ATTR_MCP_PROTOCOL_VERSION],
  [N.ATTR_JSONRPC_REQUEST_ID, semconv.ATTR_JSONRPC_REQUEST_ID],
  [N.ATTR_RPC_RESPONSE_STATUS_CODE, semconv.ATTR_RPC_RESPONSE_STATUS_CODE],
  [N.ATTR_ERROR_TYPE, semconv.ATTR_ERROR_TYPE],
  [N.ATTR_NETWORK_TRANSPORT, semconv.ATTR_NETWORK_TRANSPORT],
  [N.ATTR_NETWORK_PROTOCOL_NAME, semconv.ATTR_NETWORK_PROTOCOL_NAME],
  [N.ATTR_SERVER_ADDRESS, semconv.ATTR_SERVER_ADDRESS],
  [N.ATTR_SERVER_PORT, semconv.ATTR_SERVER_PORT],
  [N.METRIC_MCP_CLIENT_OPERATION_DURATION, semconv.METRIC_MCP_CLIENT_OPERATION_DURATION],
  [N.METRIC_MCP_SERVER_OPERATION_DURATION, semconv.METRIC_MCP_SERVER_OPERATION_DURATION],
  [N.METRIC_MCP_CLIENT_SESSION_DURATION, semconv.METRIC_MCP_CLIENT_SESSION_DURATION],
  [N.METRIC_MCP_SERVER_SESSION_DURATION, semconv.METRIC_MCP_SERVER_SESSION_DURATION],
  [N.EXECUTE_TOOL, semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL],
];

test.each(PAIRS)('%s is the conventions’ name', (ours, theirs) => {
  expect(ours).toBe(theirs);
});

test('agenttool sees a provider the API registers, and none once it is withdrawn', async () => {
  expect([tracingApi(), meteringApi(), propagationApi()]).toEqual([
    undefined,
    undefined,
    undefined,
  ]);
  const otel = setUpTelemetry();
  try {
    expect(tracingApi()?.trace).toBe(trace);
    expect(meteringApi()?.metrics).toBe(metrics);
    expect(propagationApi()?.propagation).toBe(propagation);
  } finally {
    await otel.shutdown();
  }
  expect([tracingApi(), meteringApi(), propagationApi()]).toEqual([
    undefined,
    undefined,
    undefined,
  ]);
});
