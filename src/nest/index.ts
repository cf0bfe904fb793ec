/**
 * agenttool/nest: a NestJS module that serves the app's `@Tool` providers (and its
 * `@Prompt`, `@McpResource` and `@McpResourceTemplate` providers) over MCP on the app's
 * own HTTP adapter. Needs the peer dependencies `@nestjs/common` and
 * `@nestjs/core` (12.x).
 */
import { checkNestPeers } from './peer';

checkNestPeers();

export { AgentToolModule } from './module';
export { asNestModule, type AsNestModuleOptions } from './di-module';
export { AgentToolServer } from './server';
export {
  AGENTTOOL_MODULE_OPTIONS,
  type AgentToolHttpOptions,
  type AgentToolModuleAsyncOptions,
  type AgentToolModuleOptions,
} from './options';
export { AGENTTOOL_CONTEXT_TYPE, type ToolCallContext, toolCallOf } from './context';
