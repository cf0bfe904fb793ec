/**
 * agenttool: the tool contract, decorators that turn classes into tools, and the batch
 * executor. MCP adapters live in `agenttool/mcp`; modules and dependency injection in
 * `agenttool/di`.
 */
import { type Tool as ToolContract } from './core';
import { Tool as ToolDecorator } from './decorators';

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
