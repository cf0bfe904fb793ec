import 'reflect-metadata';
/**
 * agenttool/di: NestJS-style modules over tsyringe. Tools are classes with `@Tool`;
 * `@Module` composes them with providers; `ToolApp.create` builds one app with its own
 * container, an executor, and `close()`.
 */
export { ToolApp } from './app';
export { type AppBatchOptions, type ToolAppOptions } from './app-options';
export { MCP_SERVERS, McpServersModule } from './mcp-servers-module';
export { CallAuth, CallElicitor, CallRecorder, CallSession } from './facades';
export { type CanActivate, type GuardLike, type InterceptorLike } from '../decorators';
export {
  type AppDescription,
  describeApp,
  describeModules,
  type GuardDescription,
  type HookPlace,
  type InterceptorDescription,
  type InjectionDescription,
  type ModuleDescription,
  type ProviderDescription,
} from './describe';
export { ModuleError, type ModuleProblem } from './errors';
export {
  DEFAULT_HANDLE_IDLE_MS,
  DEFAULT_HANDLES_OPEN,
  DEFAULT_HANDLES_PER_CALLER,
  type HandleOptions,
} from './handles';
export { DEFAULT_MAX_QUEUED_CALLS } from './turns';
export {
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from './lifecycle';
export { type ScopeChange } from './scope-report';
export {
  type AliasProvider,
  type ClassProvider,
  type FactoryProvider,
  Module,
  type ModuleOptions,
  type Provider,
  type ValueProvider,
  isModuleClass,
} from './module';
export {
  Inject,
  Injectable,
  type InjectableOptions,
  InjectionToken,
  type Scope,
  type Token,
  tokenName,
} from './tokens';
export { type Constructor } from '../core';
