export { goQuote } from './quote';
export { MCP_TOOL_NAME, toolNameProblem } from './tool-name';
export { type Constructor } from './constructor';
export {
  type JsonObject,
  type JsonValue,
  MAX_JSON_DEPTH,
  depthExceeded,
  depthExceededText,
  copyJson,
  isJsonObject,
  jsonValueAt,
  scalarText,
  setMember,
} from './json';
export {
  AgentToolError,
  type AgentToolErrorCode,
  CancelledError,
  MissingCapabilityError,
  PanicError,
  ValidationError,
  type ValidationProblem,
  errorMessage,
  isProgrammingFault,
  toolFailure,
} from './errors';
export {
  type ContentPart,
  type FilePart,
  type ImagePart,
  type Output,
  type RefusalPart,
  type TextPart,
  type TextPartType,
  filePart,
  imagePart,
  isContentPart,
  isTextPart,
  mediaTypeOf,
  outputText,
  textPart,
} from './content';
export {
  ProgressInfo,
  type Result,
  errorResult,
  isResult,
  parts,
  structuredResult,
  text,
  toResult,
} from './result';
export { type Recordable, type ToolRecord, isRecordable, recordOf, recordable } from './records';
export {
  type Answer,
  CANCELLED_ANSWER,
  type Elicitation,
  type ElicitationAction,
} from './elicitation';
export {
  type ClientFeature,
  type ModelPreferences,
  type Root,
  type RootsRequest,
  type SamplingContent,
  type SamplingMessage,
  type SamplingRequest,
  type SamplingResult,
} from './client-features';
export { type LogLevel, type LogSink, type Session } from './session';
export {
  type AccessRequest,
  type AccessVerdict,
  type AuthInfo,
  type ToolAccess,
  type ToolGuard,
} from './auth';
export { checkAccess } from './access';
export {
  type AskWithoutElicitor,
  type Call,
  type ContextInit,
  contextForCall,
  type Elicitor,
  type RecordFunc,
  type RootsLister,
  type Sampler,
  type SignalSource,
  type ToolContext,
  createContext,
  createContextWithSignalSource,
} from './context';
export {
  type ContextRunner,
  contextRunner,
  currentContext,
  runWithContext,
} from './current-context';
export {
  type Annotations,
  type Confinement,
  OPTIONAL_TOOL_PROPERTIES,
  type Replay,
  type StatedAnnotations,
  type Tool,
  type ToolInit,
  accessOf,
  annotationsOf,
  confinedBy,
  isCloser,
  isObjectSchema,
  isSequential,
  isStrict,
  newTool,
  outputSchemaOf,
  handleArgumentOf,
  replayOf,
  resourceOf,
  tagsOf,
  unwrap,
  validatesOwnArguments,
  wrap,
} from './tool';
export {
  type LivePrimitives,
  type LiveTools,
  ToolListeners,
  isLivePrimitives,
  isLiveTools,
} from './live-tools';
export {
  type ToolSetTransform,
  type ToolTransform,
  namePattern,
  transformTool,
  transformTools,
} from './transform';
export {
  type StatedTaskSupport,
  type TaskMode,
  type TaskSupport,
  taskSupportOf,
} from './task-support';
export {
  CONSTRAINT_KEYWORDS,
  NO_ARGS_SCHEMA,
  type Schema,
  type SchemaConstraints,
  type SchemaProperty,
  isForeignSchema,
  markForeignSchema,
  noArgsSchema,
  schemaFromJson,
  schemaToJson,
} from './schema';
export {
  type Validator,
  asWritten,
  compileSchema,
  decodeArguments,
  describe as describeValue,
  parseArguments,
  validateArguments,
} from './validate';
export {
  type FunctionToolDefinition,
  canonicalDefinition,
  canonicalJson,
  definitionHash,
  definitionOf,
} from './definition';
export { ToolSet } from './tool-set';
export { refuseUnknownArguments } from './unknown-arguments';
export { nodeCrypto } from './node-crypto';
export {
  type CallerKey,
  type CallHandler,
  type CallLogEntry,
  CallLogSink,
  type InterceptedCall,
  type Interceptor,
  type InterceptorFunction,
  LoggingInterceptor,
  type LoggingOptions,
  type ProviderResolver,
  RateLimitError,
  RateLimitInterceptor,
  type RateLimitOptions,
  type ResolveOptions,
  ResultCacheInterceptor,
  type ResultCacheOptions,
  ResultSizeInterceptor,
  type ResultSizeOptions,
  ResultTooLargeError,
  TimeoutInterceptor,
  type TimeoutOptions,
  type ToolExecutionContext,
  credentialsOrSession,
  interceptorName,
  runInterceptors,
  subjectOrSession,
  withResolver,
} from './interceptors';
export {
  type Completer,
  type CompletionValues,
  type ListedResource,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type PromptArgument,
  type PromptContent,
  type PromptMessage,
  type PromptReply,
  type ResourceAnnotations,
  type ResourceBody,
  type ResourceContents,
  type ResourceDescription,
  type ResourceReply,
  type StopFollowing,
  hasUriScheme,
  isResourceTemplate,
} from './primitives';
export {
  type ConvertField,
  type CopiedField,
  type Instantiate,
  generateInstantiator,
  interpretInstantiator,
  jsonEqual,
} from './generated-code';
export { RecordFile, type RecordMeta, type RecordMoment, recordLine } from './record-file';
// The OpenTelemetry API's loader (./otel) is imported by path: its declarations name an
// optional peer, and every entry's declarations reach this index.
export {
  activeTraceIds,
  DURATION_BUCKETS,
  INSTRUMENTATION_SCOPE,
  secondsSince,
  withTraceData,
  withTraceIds,
} from './telemetry';
export * as telemetryNames from './telemetry-names';
