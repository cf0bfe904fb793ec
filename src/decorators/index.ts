/**
 * Decorators that record what a class says, and the readers that turn a decorated
 * class into a core `Tool`, its parameters schema and its argument pipeline.
 */
export {
  Annotations,
  Confined,
  Param,
  Replay,
  Resource,
  Sequential,
  Strict,
  Tool,
} from './decorators';
export {
  type ConfinedFn,
  type Constructor,
  type ParamEnum,
  type ParamOptions,
  type ParamType,
  type ParamTypeName,
  type ReplayFn,
  type ToolOptions,
} from './metadata';
export { type EnumValue, type FieldPlan, type Shape } from './fields';
export { DecoratorError } from './errors';
export {
  type ArgumentsOptions,
  type ArgumentsParser,
  type SchemaOptions,
  argumentsParser,
  schemaOf,
} from './arguments';
export { type PerCall, type ToolMetadata, isToolClass } from './tool-reader';
export { toolFromInstance, toolMetadataOf } from './tool-from-instance';
