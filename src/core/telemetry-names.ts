// The names agenttool's spans, events and metrics carry. Those of the OpenTelemetry
// semantic conventions (GenAI, MCP, JSON-RPC, network) are spelt here rather than read
// from @opentelemetry/semantic-conventions, which would become a dependency; a test
// compares each with the package's constant. Names of agenttool's own are under
// `agenttool.`.

/** `gen_ai.operation.name`: `execute_tool` on every span of a tool call. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** The prompt a `prompts/get` renders (MCP semantic conventions). */
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
/** The resource a `resources/*` request names (MCP semantic conventions). */
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';

export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';
export const METRIC_MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
export const METRIC_MCP_CLIENT_SESSION_DURATION = 'mcp.client.session.duration';
export const METRIC_MCP_SERVER_SESSION_DURATION = 'mcp.server.session.duration';

/** The value of `gen_ai.operation.name` for a tool call. */
export const EXECUTE_TOOL = 'execute_tool';
/** The value of `error.type` for a `tools/call` answered with `isError` (the MCP conventions). */
export const TOOL_ERROR = 'tool_error';

// agenttool's own: the batch and its jobs.
export const SPAN_BATCH = 'agenttool.batch';
export const ATTR_BATCH_SIZE = 'agenttool.batch.size';
export const ATTR_BATCH_BOUND = 'agenttool.batch.bound';
export const ATTR_BATCH_SERIAL = 'agenttool.batch.serial';
export const ATTR_BATCH_CHAINS = 'agenttool.batch.chains';
export const ATTR_BATCH_CANCELLED = 'agenttool.batch.cancelled';
export const ATTR_JOB_INDEX = 'agenttool.job.index';
export const ATTR_JOB_RESOURCE = 'agenttool.job.resource';
export const ATTR_JOB_SEQUENTIAL = 'agenttool.job.sequential';
export const ATTR_JOB_CONFINED = 'agenttool.job.confined';
export const ATTR_JOB_CONFINED_BY = 'agenttool.job.confined_by';
/** How a job ended: `ok`, `error` or `cancelled`. */
export const ATTR_JOB_OUTCOME = 'agenttool.job.outcome';
/** False on the span of a job cancelled before its tool was handed the call. */
export const ATTR_JOB_STARTED = 'agenttool.job.started';
export const ATTR_JOB_CANCELLED = 'agenttool.job.cancelled';
/** An event's place among all the events of its batch, counting from 1. */
export const ATTR_EVENT_SEQ = 'agenttool.event.seq';
/** What a job waits on: `chain` (its resource's previous job) or `slot` (the bound). */
export const ATTR_WAIT_ON = 'agenttool.wait.on';
export const ATTR_WAIT_RESOURCE = 'agenttool.wait.resource';
/** The call id of the job a chained job waits for. */
export const ATTR_WAIT_AFTER = 'agenttool.wait.after_call_id';
export const ATTR_WAIT_AFTER_INDEX = 'agenttool.wait.after_index';
export const ATTR_WAIT_BOUND = 'agenttool.wait.bound';
export const ATTR_PROGRESS_MESSAGE = 'agenttool.progress.message';
export const ATTR_PROGRESS_VALUE = 'agenttool.progress.value';
export const ATTR_PROGRESS_TOTAL = 'agenttool.progress.total';
export const ATTR_ASK_MESSAGE = 'agenttool.ask.message';
export const ATTR_ASK_ACTION = 'agenttool.ask.action';
export const EVENT_QUEUED = 'queued';
export const EVENT_WAITING = 'waiting';
export const EVENT_STARTED = 'started';
export const EVENT_PROGRESS = 'progress';
export const EVENT_ASKED = 'asked';
export const EVENT_ANSWERED = 'answered';
export const EVENT_FINAL = 'final';
export const METRIC_EXECUTOR_QUEUE_DURATION = 'agenttool.executor.queue.duration';
export const METRIC_EXECUTOR_JOB_DURATION = 'agenttool.executor.job.duration';

// agenttool's own: the MCP server's state and its tasks.
export const ATTR_TASK_ID = 'agenttool.task.id';
export const SPAN_TASK_RUN = 'agenttool.task.run';
export const METRIC_ACTIVE_SESSIONS = 'agenttool.mcp.server.active_sessions';
export const METRIC_PARKED_CALLS = 'agenttool.mcp.server.parked_calls';
export const METRIC_OPEN_TASKS = 'agenttool.mcp.server.open_tasks';
