/** agenttool/mcp: serve tools over MCP, and use any MCP server's tools as tools. */
export * from './server';
export * from './client';
export * from './compose';
