/**
 * agenttool: the tool contract, decorators that turn classes into tools, and the batch
 * executor. MCP adapters live in `agenttool/mcp`; modules and dependency injection in
 * `agenttool/di`.
 */
export * from './core';
export * from './decorators';
export * from './executor';
