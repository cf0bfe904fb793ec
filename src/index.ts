/**
 * agenttool: the tool contract, decorators that turn classes into tools, and the batch
 * executor. MCP adapters live in `agenttool/mcp`; modules and dependency injection in
 * `agenttool/di`.
 *
 * Every export is listed here by name: what is not listed is internal, however the
 * layers below export it to one another.
 */
import {
  type McpResource as McpResourceContract,
  type McpResourceTemplate as McpResourceTemplateContract,
  type Prompt as PromptContract,
  type Annotations as AnnotationsContract,
  type Replay as ReplayContract,
  type TaskMode,
  type TaskSupport as TaskSupportContract,
  type Tool as ToolContract,
} from './core';
import {
  McpResource as McpResourceDecorator,
  type McpResourceOptions,
  McpResourceTemplate as McpResourceTemplateDecorator,
  type McpResourceTemplateOptions,
  Prompt as PromptDecorator,
  type PromptOptions,
  Annotations as AnnotationsDecorator,
  Replay as ReplayDecorator,
  TaskSupport as TaskSupportDecorator,
  type ReplayFn,
  Tool as ToolDecorator,
  type ToolOptions,
} from './decorators';

// ── The contract: a tool and what it declares ────────────────────────────────────────

// `Tool`, `Annotations` and `Replay` are each a decorator and a type. The types are also
// exported under names of their own (`ToolContract`, `AnnotationsContract`,
// `ReplayContract`), which the API report and the signatures that take them use.
export {
  type AnnotationsContract,
  type ReplayContract,
  type TaskSupportContract,
  type ToolContract,
};

/**
 * `@Tool({ name, description, args })` marks a class as a tool (see the decorators);
 * as a type, `Tool` is the contract every tool satisfies ({@link ToolContract}). One
 * name for both: the decorator makes a class that {@link toolFromInstance} turns into a
 * `Tool`, and the two never stand in the same position.
 */
export const Tool: (options: ToolOptions) => ClassDecorator = ToolDecorator;
/** The contract every tool satisfies: {@link ToolContract}, by its shorter name. */
export type Tool = ToolContract;

/**
 * `@Annotations({...})` states a tool class's MCP hints; as a type, the hints
 * themselves ({@link AnnotationsContract}).
 */
export const Annotations: (annotations: AnnotationsContract) => ClassDecorator =
  AnnotationsDecorator;
/** MCP's behaviour hints: {@link AnnotationsContract}, by its shorter name. */
export type Annotations = AnnotationsContract;

/**
 * `@Replay('safe' | 'keyed' | fn)` states whether re-running is safe; as a type, the
 * answer ({@link ReplayContract}).
 */
export const Replay: <A = never>(replay: 'safe' | 'keyed' | ReplayFn<A>) => ClassDecorator =
  ReplayDecorator;
/** Whether running a call again is safe: {@link ReplayContract}, by its shorter name. */
export type Replay = ReplayContract;

/**
 * `@TaskSupport('optional' | 'required' | 'never', { questionsFirst })` states whether a
 * tool class's calls run as MCP tasks; as a type, the declaration itself
 * ({@link TaskSupportContract}).
 */
export const TaskSupport: (
  mode: TaskMode,
  options?: { readonly questionsFirst?: boolean },
) => ClassDecorator = TaskSupportDecorator;
/** How a tool's calls run as tasks: {@link TaskSupportContract}, by its shorter name. */
export type TaskSupport = TaskSupportContract;

export {
  type Confinement,
  OPTIONAL_TOOL_PROPERTIES,
  type StatedAnnotations,
  type ToolInit,
  annotationsOf,
  confinedBy,
  isCloser,
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
} from './core';
export {
  type LivePrimitives,
  type LiveTools,
  type ToolSetTransform,
  type ToolTransform,
  isLivePrimitives,
  isLiveTools,
  namePattern,
  transformTool,
  transformTools,
} from './core';
export { type StatedTaskSupport, type TaskMode, taskSupportOf } from './core';
export { ToolSet } from './core';
export { type Constructor } from './core';

// ── Calls, their context, results and records ────────────────────────────────────────

export {
  type AskWithoutElicitor,
  type Call,
  type ContextInit,
  type Elicitor,
  type RecordFunc,
  type RootsLister,
  type Sampler,
  type ToolContext,
  createContext,
  currentContext,
  runWithContext,
} from './core';
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
} from './core';
export {
  ProgressInfo,
  type Result,
  errorResult,
  isResult,
  parts,
  structuredResult,
  text,
  toResult,
} from './core';
export { type Recordable, type ToolRecord, isRecordable, recordOf, recordable } from './core';
export { RecordFile, type RecordMeta, type RecordMoment } from './core';
export { type Answer, CANCELLED_ANSWER, type Elicitation, type ElicitationAction } from './core';
export {
  type ClientFeature,
  type ModelPreferences,
  type Root,
  type RootsRequest,
  type SamplingContent,
  type SamplingMessage,
  type SamplingRequest,
  type SamplingResult,
} from './core';
export { type LogLevel, type LogSink, type Session } from './core';

// ── Who may call: the verified caller and the rules of each tool ─────────────────────

export {
  type AccessRequest,
  type AccessVerdict,
  type AuthInfo,
  type ToolAccess,
  type ToolGuard,
  accessOf,
  checkAccess,
} from './core';
export { Guard, Scopes } from './decorators';
export {
  type CanActivate,
  type GuardLike,
  type GuardResolver,
  type ToolBuildOptions,
} from './decorators';

// ── Interceptors: what runs around each call ────────────────────────────────────────

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
  runInterceptors,
  subjectOrSession,
  withResolver,
} from './core';
export {
  type InterceptorLike,
  type InterceptorResolver,
  UseInterceptors,
  toolInterceptors,
} from './decorators';

// ── Errors ───────────────────────────────────────────────────────────────────────────

export {
  AgentToolError,
  type AgentToolErrorCode,
  CancelledError,
  MissingCapabilityError,
  PanicError,
  ValidationError,
  type ValidationProblem,
  errorMessage,
  refuseUnknownArguments,
} from './core';
export { DecoratorError } from './decorators';

// ── JSON, schemas, arguments and definitions ─────────────────────────────────────────

export { type JsonObject, type JsonValue, MAX_JSON_DEPTH, isJsonObject } from './core';
export {
  NO_ARGS_SCHEMA,
  type Schema,
  type SchemaConstraints,
  type SchemaProperty,
  noArgsSchema,
  schemaFromJson,
  schemaToJson,
} from './core';
export {
  type Validator,
  compileSchema,
  decodeArguments,
  parseArguments,
  validateArguments,
} from './core';
export {
  type FunctionToolDefinition,
  canonicalDefinition,
  canonicalJson,
  definitionHash,
  definitionOf,
} from './core';

// ── Decorators and the readers that turn a class into a tool ─────────────────────────

export { Confined, Param, Resource, Sequential, Strict } from './decorators';
export {
  type ConfinedFn,
  type ParamEnum,
  type ParamOptions,
  type ParamType,
  type ParamTypeName,
  type ReplayFn,
  type ToolOptions,
} from './decorators';
export { type EnumValue, type FieldPlan, type Shape } from './decorators';
export { type FieldKeywords, type SchemaKeywords } from './decorators';
export {
  type ArgumentsOptions,
  type ArgumentsParser,
  type ArgumentsPipeline,
  type SchemaOptions,
  argumentsParser,
  schemaOf,
} from './decorators';
export { type ClassCheck } from './decorators';
export {
  type PerCall,
  type ToolDescriptor,
  type ToolProperties,
  isToolClass,
  toolDescriptorOf,
} from './decorators';
export { classTool, toolFromInstance } from './decorators';

// ── Prompts and resources: MCP's primitives beside tools ─────────────────────────────

/**
 * `@Prompt({ name, title, description, args })` marks a class as an MCP prompt; as a
 * type, the prompt a host serves ({@link PromptContract}).
 */
export const Prompt: (options: PromptOptions) => ClassDecorator = PromptDecorator;
/** A prompt: {@link PromptContract}, by its shorter name. */
export type Prompt = PromptContract;
/**
 * `@McpResource({ uri, name, mimeType })` marks a class as an MCP resource (data a
 * client reads; not `@Resource`, the executor's lock); as a type, the resource a host
 * serves ({@link McpResourceContract}).
 */
export const McpResource: (options: McpResourceOptions) => ClassDecorator = McpResourceDecorator;
/** A resource at one URI: {@link McpResourceContract}, by its shorter name. */
export type McpResource = McpResourceContract;
/**
 * `@McpResourceTemplate({ uriTemplate, name, vars })` marks a class as an MCP resource
 * template; as a type, the template a host serves ({@link McpResourceTemplateContract}).
 */
export const McpResourceTemplate: (options: McpResourceTemplateOptions) => ClassDecorator =
  McpResourceTemplateDecorator;
/** A resource template: {@link McpResourceTemplateContract}, by its shorter name. */
export type McpResourceTemplate = McpResourceTemplateContract;
export { type McpResourceContract, type McpResourceTemplateContract, type PromptContract };
export {
  type Completer,
  type CompletionValues,
  type ListedResource,
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
  isResourceTemplate,
} from './core';
export {
  Complete,
  type InstanceFor,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
  type PromptOptions,
  classMcpResource,
  classPrompt,
  isMcpResourceClass,
  isPromptClass,
  mcpResourceFromInstance,
  promptFromInstance,
} from './decorators';

// ── The executor ─────────────────────────────────────────────────────────────────────

export { Executor } from './executor';
export { CallBatcher, type CallBatcherOptions, type HandOver, type RunBatch } from './executor';
export { progressTaken } from './executor';
export { type ReadToolSource, readToolSource, type ToolHost, type ToolSource } from './executor';
export {
  DEFAULT_MAX_PARALLEL,
  DEFAULT_PROGRESS_BUFFER,
  type ExecuteOptions,
  type ExecutorEvent,
  type ExecutorFinalEvent,
  type ExecutorOptions,
  type ExecutorProgressEvent,
  type ExecutorRun,
  type Job,
  type JobOutcome,
  type OnStart,
} from './executor';
