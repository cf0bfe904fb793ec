/**
 * Decorators that record what a class says, and the readers that turn a decorated
 * class into a core `Tool`, its parameters schema and its argument pipeline.
 */
export {
  Annotations,
  Confined,
  Guard,
  Param,
  Replay,
  Resource,
  Scopes,
  Sequential,
  Strict,
  TaskSupport,
  Tool,
} from './decorators';
export {
  type ConfinedFn,
  type ParamEnum,
  type ParamOptions,
  type ParamType,
  type ParamTypeName,
  type ReplayFn,
  type ToolOptions,
} from './metadata';
export { type FieldPlan } from './class-plan';
export { type EnumValue, type Shape } from './shape';
export { type FieldKeywords, type SchemaKeywords } from './constraint-keywords';
export { DecoratorError } from './errors';
export { requireExperimentalDecorators } from './experimental-only';
export {
  type ArgumentsOptions,
  type ArgumentsParser,
  type ArgumentsPipeline,
  type SchemaOptions,
  argumentsParser,
  schemaOf,
} from './arguments';
export { type ClassCheck } from './class-validation';
export {
  type PerCall,
  type ToolDescriptor,
  type ToolProperties,
  isToolClass,
  toolDescriptorOf,
} from './descriptor';
export { classTool, toolFromInstance, toolInterceptors } from './class-tool';
export {
  type InterceptorLike,
  type InterceptorResolver,
  UseInterceptors,
  interceptorObjects,
  interceptorProblem,
  interceptorsOf,
  isInterceptorClass,
} from './interceptors';
export {
  type CanActivate,
  type GuardLike,
  type GuardResolver,
  type ToolBuildOptions,
  guardFunctions,
  guardProblem,
  isGuardClass,
} from './guards';
export {
  Complete,
  McpResource,
  type McpResourceOptions,
  McpResourceTemplate,
  type McpResourceTemplateOptions,
  Prompt,
  type PromptOptions,
  declaredGuards,
  isMcpResourceClass,
  isPromptClass,
  primitiveNameOf,
} from './primitive-decorators';
export {
  type InstanceFor,
  classMcpResource,
  classPrompt,
  mcpResourceFromInstance,
  promptFromInstance,
  templateVariables,
} from './primitives';
