/**
 * The MCP client adapter: any MCP server's tools as agenttool tools, and its prompts,
 * resources and completions.
 */
export { type ConnectOptions } from './connect-options';
export {
  DEFAULT_CALL_TIMEOUT,
  DEFAULT_NOTIFICATION_GRACE,
  RemoteTools,
  SESSION_END_TIMEOUT_MS,
  type ServerInfo,
  connectMcp,
} from './remote';
export {
  type CompletionArgument,
  type CompletionContext,
  type ListOptions,
  MAX_LIST_PAGES,
  type PrimitiveRequestOptions,
} from './primitives';
export { type RootsHandler, type SamplingHandler } from './sampling-and-roots';
export { type HttpTarget, type McpTarget, type StdioTarget } from './transport';
export {
  type ConfinedDeclaration,
  type ConfinedFunc,
  type Declarations,
  type ResourceDeclaration,
  remoteAnnotations,
} from './tool-mapping';
export { audioName, resultOf } from './result';
// The record `_meta` key is spelt in ./record as RECORD_META_KEY; `agenttool/mcp` exports
// the server's spelling of the same string (two star exports of one name would clash).
export { RemoteRecord } from './record';
export { CONNECTION_CLOSED, RemoteToolError } from './errors';
export { ServerBusyError } from './refusals';
export {
  MemoryTokenStore,
  type StoredGrant,
  type TokenKey,
  type TokenStore,
} from './oauth/token-store';
export { FileTokenStore } from './oauth/file-token-store';
export { StoredAuthProvider, type StoredAuthProviderOptions } from './oauth/stored-auth-provider';
