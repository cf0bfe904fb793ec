/** The MCP server adapter: serve tools (or an app's tools) over MCP. */
export { RECORD_META_KEY, type RecordMeta } from './record-meta';
export { contentOf, type DataUrl, parseDataUrl } from './content';
export { mcpDefinition } from './definition';
export { McpToolServer, type McpServerOptions, type ServeSource, serveTools } from './tool-server';
export { type ErrorReporter } from './session';
export { type HttpListener, type HttpServeOptions } from './http';
