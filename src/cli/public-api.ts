/**
 * What the command uses of agenttool, all through the package's public entries (the
 * layer rule for src/cli): `agenttool`, `agenttool/di` and `agenttool/mcp`, which node
 * resolves through package.json `exports` to the built output, the same files a user's
 * module file loads.
 */
export {
  AgentToolError,
  type AgentToolErrorCode,
  type Answer,
  annotationsOf,
  CANCELLED_ANSWER,
  CancelledError,
  compileSchema,
  type ContentPart,
  createContext,
  definitionHash,
  definitionOf,
  type Elicitation,
  type Elicitor,
  errorMessage,
  Executor,
  type ExecutorEvent,
  type FunctionToolDefinition,
  isCloser,
  isJsonObject,
  isSequential,
  isStrict,
  isTextPart,
  type Job,
  type JsonObject,
  type JsonValue,
  outputText,
  parseArguments,
  ProgressInfo,
  RecordFile,
  type RecordFunc,
  recordOf,
  resourceOf,
  type Result,
  schemaFromJson,
  type StatedAnnotations,
  type Tool,
  type ToolRecord,
  ValidationError,
} from 'agenttool';
export { type Constructor, isModuleClass, ToolApp } from 'agenttool/di';
export {
  connectMcp,
  FileTokenStore,
  type HttpAuthOptions,
  type HttpListener,
  type HttpTarget,
  jwtVerifier,
  serveTools,
  StoredAuthProvider,
  type TokenVerifier,
} from 'agenttool/mcp';
