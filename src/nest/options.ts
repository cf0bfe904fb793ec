import { type HttpServeOptions, type McpServerOptions } from 'agenttool/mcp';
import { type InjectionToken, type ModuleMetadata, type Type } from '@nestjs/common';

/** The token of the module's resolved options. */
export const AGENTTOOL_MODULE_OPTIONS = Symbol('agenttool:nest:options');

/** How the MCP endpoint is served on the app's HTTP adapter (both protocol eras). */
export type AgentToolHttpOptions = Omit<HttpServeOptions, 'host' | 'port' | 'path'>;

/** What `AgentToolModule.forRoot` serves, and how. */
export interface AgentToolModuleOptions extends McpServerOptions {
  /**
   * The endpoint's path on the app's HTTP adapter, as given (a global prefix does not
   * apply to it); `/mcp` by default.
   */
  readonly path?: string;
  /**
   * The endpoint's HTTP options: `stateless`, the Host and Origin checks (on by
   * default), `maxBodyBytes`, `idleTimeoutMs`, `maxSessions`, `resumable`; `healthPath`
   * and `auth`, whose health route and protected resource metadata are routes of the
   * app's adapter too.
   */
  readonly http?: AgentToolHttpOptions;
  /**
   * The modules whose `@Tool` providers (and prompt and resource providers) are served;
   * all modules by default. A tool, prompt or resource provided by a module left out is
   * not served.
   */
  readonly include?: readonly Type<unknown>[];
}

/** The options of `AgentToolModule.forRootAsync`, made by a factory with Nest's injection. */
export interface AgentToolModuleAsyncOptions {
  /** Modules that export the providers the factory injects. */
  readonly imports?: ModuleMetadata['imports'];
  /** The factory's parameters, by token. */
  readonly inject?: readonly InjectionToken<unknown>[];
  /** Makes the options; may be async. */
  readonly useFactory: (
    ...args: never[]
  ) => AgentToolModuleOptions | Promise<AgentToolModuleOptions>;
}
