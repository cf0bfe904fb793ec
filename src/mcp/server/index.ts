/** The MCP server adapter: serve tools (or an app's tools) over MCP, both protocol eras. */
export { RECORD_META_KEY, type RecordMeta } from './record-meta';
export { contentOf, type DataUrl, parseDataUrl } from './content';
export { mcpDefinition } from './definition';
export { McpToolServer, serveTools } from './tool-server';
export { type McpServerOptions, type ServeSource, type StdioConnection } from './server-options';
export { type ErrorReporter } from './session';
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_STREAMS,
  type HttpHandler,
  type HttpListener,
  type HttpRequestExtras,
  type HttpServeOptions,
} from './http-options';
export { type TrustProxy } from './client-address';
export { SESSION_END_METHOD, SESSION_META_KEY, SESSIONS_EXTENSION } from './session';
export { type ScaleOutOptions } from './scale/options';
export { DEFAULT_DRAIN_GRACE_MS } from './stopping';
export {
  DEFAULT_MAX_TASK_RESULT_BYTES,
  DEFAULT_MAX_TASKS_PER_SUBJECT,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  type TaskOptions,
} from './tasks/options';
export { TASKS_EXTENSION } from './tasks/wire';
export { DEFAULT_HEALTH_PATH } from './health';
export {
  CANCEL_META_KEY,
  DEFAULT_ABANDON_AFTER_MS,
  DEFAULT_MAX_PARKED_CALLS,
  DEFAULT_MAX_REQUESTS,
  type RoundTripOptions,
} from './round-trips';
export {
  type HttpAuthOptions,
  InvalidTokenError,
  type ProtectedResourceMetadata,
  type TokenVerifier,
} from './auth/options';
export { type JwtVerifierOptions, jwtVerifier } from './auth/jwt';
