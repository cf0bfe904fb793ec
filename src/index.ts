/**
 * agenttool: the tool contract, decorators that turn classes into tools, and the batch
 * executor. MCP adapters live in `agenttool/mcp`; modules and dependency injection in
 * `agenttool/di`.
 */
import {
  type Annotations as AnnotationsContract,
  type Replay as ReplayContract,
  type Tool as ToolContract,
} from './core';
import {
  Annotations as AnnotationsDecorator,
  Replay as ReplayDecorator,
  Tool as ToolDecorator,
} from './decorators';

export * from './core';
export * from './decorators';
export * from './executor';

/**
 * `@Tool({ name, description, args })` marks a class as a tool (see the decorators);
 * as a type, `Tool` is the contract every tool satisfies.
 */
export const Tool = ToolDecorator;
/** The contract every tool satisfies: a definition and `execute`, plus optional properties. */
export type Tool = ToolContract;

/** `@Annotations({...})` states a tool class's MCP hints; as a type, the hints themselves. */
export const Annotations = AnnotationsDecorator;
/** MCP's behaviour hints. A policy may use them to be stricter, never alone to allow. */
export type Annotations = AnnotationsContract;

/** `@Replay('safe' | 'keyed' | fn)` states whether re-running is safe; as a type, the answer. */
export const Replay = ReplayDecorator;
/** Whether running a call again is safe: `unknown`, `safe` or `keyed`. */
export type Replay = ReplayContract;
