/**
 * One server made of many: the MCP servers of an `mcpServers` configuration (the shape
 * Claude Desktop, Cursor and VS Code use) as one live set of tools, prompts and
 * resources, each server's under its prefix.
 */
export {
  type CheckedConfig,
  type CheckedServer,
  type ConfigReadOptions,
  DEFAULT_RETRY,
  type McpHttpServerEntry,
  type McpServerEntry,
  type McpServersConfig,
  type McpStdioServerEntry,
  type McpTransportServerEntry,
  type RetryOptions,
  type RetryPolicy,
  checkMcpServersConfig,
} from './config';
export { DEFAULT_CONNECT_TIMEOUT_MS, McpServers, type McpServersOptions } from './mcp-servers';
export { type McpServerState, type McpServerStatus } from './supervised-server';
export { DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS } from './upstream-subscriptions';
