import 'reflect-metadata';
/**
 * agenttool/di: NestJS-style modules over tsyringe. Tools are classes with `@Tool`;
 * `@Module` composes them with providers; `ToolApp.create` builds one app with its own
 * container, an executor, and `close()`.
 */
export { ToolApp, type AppBatchOptions, type ToolAppOptions } from './app';
export { CallElicitor, CallRecorder, CallSession } from './facades';
export { ModuleError, type ModuleProblem } from './errors';
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
  type Constructor,
  Inject,
  Injectable,
  InjectionToken,
  type Scope,
  type Token,
  tokenName,
} from './tokens';
