/** The MCP server adapter: serve tools (or an app's tools) over MCP, both protocol eras. */
export {
  CANCEL_META_KEY,
  contentOf,
  type DataUrl,
  DEFAULT_ABANDON_AFTER_MS,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_MAX_PARKED_CALLS,
  DEFAULT_MAX_REQUESTS,
  DEFAULT_PROGRESS_KEEPALIVE_MS,
  parseDataUrl,
  RECORD_META_KEY,
  type RecordMeta,
  type RoundTripOptions,
} from './calls';
export { mcpDefinition } from './definition';
export { McpToolServer, serveTools } from './tool-server';
export { type ChangedTool, type ServedChanges } from './swap';
export {
  DEFAULT_MAX_SUBSCRIPTION_URI_BYTES,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT,
  type McpServerOptions,
  type ServeSource,
  type StdioConnection,
  type StdioServeOptions,
} from './server-options';
export { DEFAULT_STDIO_MESSAGE_BYTES } from '../line-bound';
export { DEFAULT_STDIO_SENT_MESSAGE_BYTES, STDIO_UNREAD_ANSWER_BYTES } from './stdio-writes';
export {
  type ErrorReporter,
  SESSION_END_METHOD,
  SESSION_META_KEY,
  SESSIONS_EXTENSION,
} from './session';
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_HEALTH_PATH,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CALLS,
  DEFAULT_MAX_CALLS_PER_SUBJECT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_STREAMS,
  type HttpHandler,
  type HttpListener,
  type HttpRequestExtras,
  type HttpServeOptions,
  type TrustProxy,
} from './http';
export { type ScaleOutOptions } from './scale';
export {
  DEFAULT_MAX_TASK_RESULT_BYTES,
  DEFAULT_MAX_TASKS_PER_SUBJECT,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  type TaskOptions,
  TASKS_EXTENSION,
} from './tasks';
export {
  type HttpAuthOptions,
  InvalidTokenError,
  jwtVerifier,
  type JwtVerifierOptions,
  type ProtectedResourceMetadata,
  type TokenVerifier,
} from './auth';
