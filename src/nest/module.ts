import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import {
  AGENTTOOL_MODULE_OPTIONS,
  type AgentToolModuleAsyncOptions,
  type AgentToolModuleOptions,
} from './options';
import { AgentToolServer } from './server';

/**
 * Serves the app's `@Tool` providers over MCP on the app's own HTTP adapter (Express or
 * Fastify), at `path` (`/mcp`), for clients of the 2026-07-28 protocol and of the 2025
 * era on one endpoint, and beside them its `@Prompt`, `@McpResource` and
 * `@McpResourceTemplate` providers. Such a class is an ordinary provider of any module:
 * Nest builds it and injects its constructor's dependencies; its scope (request,
 * transient), Nest's guards and interceptors, and its lifecycle hooks are Nest's.
 * Import it once, in the root module; imported with different options in several
 * modules it is several servers, each with its own `path`, `http.healthPath` (or
 * `false`) and `include`.
 */
@Module({})
export class AgentToolModule {
  /** The module with its options given as they are. */
  static forRoot(options: AgentToolModuleOptions = {}): DynamicModule {
    return {
      module: AgentToolModule,
      imports: [DiscoveryModule],
      providers: [{ provide: AGENTTOOL_MODULE_OPTIONS, useValue: options }, AgentToolServer],
      exports: [AgentToolServer],
    };
  }

  /** The module with its options made by a factory, with Nest's injection (a config service). */
  static forRootAsync(options: AgentToolModuleAsyncOptions): DynamicModule {
    return {
      module: AgentToolModule,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [
        {
          provide: AGENTTOOL_MODULE_OPTIONS,
          useFactory: options.useFactory,
          inject: [...(options.inject ?? [])],
        },
        AgentToolServer,
      ],
      exports: [AgentToolServer],
    };
  }
}
