import { type Constructor } from '../core';
import type * as Mcp from '../mcp';
import type { McpServers, McpServersConfig, McpServersOptions } from '../mcp';
import { Module } from './module';
import { InjectionToken } from './tokens';

/**
 * The token of the `McpServers` (of `agenttool/mcp`) an `McpServersModule` provides and exports:
 * `@Inject(MCP_SERVERS) servers: McpServers` reads where each server stands (`status`).
 */
export const MCP_SERVERS = new InjectionToken<McpServers>('MCP_SERVERS');

/**
 * The MCP servers of an `mcpServers` configuration as a module: import
 * `McpServersModule.from(config)` beside the app's own modules, and the servers' tools
 * (`<name>__<tool>`) join the app's tools, their prompts and resources its prompts and
 * resources. The module provides and exports {@link MCP_SERVERS}; the app starts the
 * servers (connecting to each) and closes them.
 *
 * ```ts
 * @Module({ imports: [FilesModule, McpServersModule.from({ mcpServers: { ... } })] })
 * class AppModule {}
 * ```
 */
export class McpServersModule {
  private constructor() {}

  /**
   * A module connecting to the servers of `config` when the app starts (see
   * `McpServers.start`: a server that fails is reported through `options.onWarning`, or
   * a process warning, and tried again; a malformed configuration fails the start,
   * naming the entry and the field). Each call makes a module of its own.
   */
  static from(config: McpServersConfig, options: McpServersOptions = {}): Constructor {
    @Module({
      providers: [
        {
          provide: MCP_SERVERS,
          // Loaded when an app starts servers: an app without them never loads the client.
          useFactory: () => loadMcp().McpServers.start(config, options),
        },
      ],
      exports: [MCP_SERVERS],
      liveTools: [MCP_SERVERS],
    })
    class McpServersOf {}
    const names = Object.keys(config?.mcpServers ?? config?.servers ?? {});
    Object.defineProperty(McpServersOf, 'name', {
      value: `McpServersModule(${names.join(', ')})`,
    });
    return McpServersOf;
  }
}

/**
 * `agenttool/mcp` by the package's own name, when an app starts servers. The name is a
 * value the bundler cannot read, so it leaves the require as it is: `agenttool/di` then
 * loads the MCP entry (its chunk builds the SDK's schemas as it loads, some 70 ms) only
 * when it is needed, and the entry's chunks are the ones `agenttool/di` shares (one core).
 */
const MCP_ENTRY = 'agenttool/mcp';
function loadMcp(): typeof Mcp {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
  return require(MCP_ENTRY) as typeof Mcp;
}
