import 'reflect-metadata';
import { type Constructor } from '../core';
import { type GuardLike, type InterceptorLike, requireExperimentalDecorators } from '../decorators';
import { type HandleOptions } from './handles';
import { type Scope, type Token } from './tokens';

/** A provider given as a class: registered under the class itself. */
export interface ClassProvider<T = unknown> {
  readonly provide: Token<T>;
  readonly useClass: Constructor<T>;
  readonly scope?: Scope | undefined;
  /** With `scope: 'session'`: its instances are reachable by a handle too (see {@link HandleOptions}). */
  readonly handle?: HandleOptions | undefined;
}

/**
 * A provider of a ready value. Values are never closed by the app: their owner closes
 * them. Their lifecycle hooks (`onModuleInit`, ...) are called, as NestJS calls them.
 */
export interface ValueProvider<T = unknown> {
  readonly provide: Token<T>;
  readonly useValue: T;
}

/**
 * A provider built by a function, sync or async, from the tokens listed in `inject`.
 * The function runs, and its promise settles, before anything that needs the value is
 * built. What it makes is the app's (hooked, closed); what it passes on (one of its
 * arguments, a `useValue` value, an instance the app or the session already has) stays
 * its owner's, as with `useExisting`.
 */
export interface FactoryProvider<T = unknown> {
  readonly provide: Token<T>;
  /** Takes the values of `inject`, in order (a parameter list of `never` accepts any). */
  readonly useFactory: (...deps: never[]) => T | Promise<T>;
  readonly inject?: readonly Token[] | undefined;
  readonly scope?: Scope | undefined;
  /** With `scope: 'session'`: its instances are reachable by a handle too (see {@link HandleOptions}). */
  readonly handle?: HandleOptions | undefined;
}

/** Another name for a token that is provided elsewhere. */
export interface AliasProvider<T = unknown> {
  readonly provide: Token<T>;
  readonly useExisting: Token<T>;
}

/** Anything a module's `providers` may list. */
export type Provider<T = unknown> =
  Constructor<T> | ClassProvider<T> | ValueProvider<T> | FactoryProvider<T> | AliasProvider<T>;

/** What `@Module` takes. */
export interface ModuleOptions {
  /** Modules whose exports this module's providers and tools may inject. */
  readonly imports?: readonly Constructor[] | undefined;
  /** Tool classes (each with `@Tool`) this module contributes to the app. */
  readonly tools?: readonly Constructor[] | undefined;
  /** Prompt classes (each with `@Prompt`) this module contributes, built and injected as tools are. */
  readonly prompts?: readonly Constructor[] | undefined;
  /**
   * MCP resource classes (each with `@McpResource` or `@McpResourceTemplate`) this module
   * contributes, built and injected as tools are. (Not the executor's `@Resource` lock.)
   */
  readonly resources?: readonly Constructor[] | undefined;
  /** Providers this module's tools and providers may inject. */
  readonly providers?: readonly Provider[] | undefined;
  /**
   * What importers may inject: tokens this module provides or imports, or imported
   * modules (re-exporting all they export). What is not exported is private.
   */
  readonly exports?: readonly Token[] | undefined;
  /**
   * Guards every tool of this module and of the modules it imports must pass, asked
   * before a tool's own `@Guard`s (the root module's first): functions, objects with
   * `canActivate`, or classes of them, built with this module's providers injected.
   */
  readonly guards?: readonly GuardLike[] | undefined;
  /**
   * Interceptors around every call of the tools of this module and of the modules it
   * imports, run after the app's and the importing modules' and before a tool's own
   * `@UseInterceptors` (the root module's first): objects with `intercept(context, next)`,
   * functions, or classes of them, built once with this module's providers injected.
   */
  readonly interceptors?: readonly InterceptorLike[] | undefined;
  /**
   * Tokens of app-scoped providers (this module's or its imports' exports) whose
   * instances are `LiveTools`: tools that change while the app runs, such as the remote
   * tools of `McpServersModule`. Their tools join the app's, after the modules' own, and
   * the app follows their changes (see `ToolApp.onToolsChanged`); so do the prompts and
   * resources of those that are also `LivePrimitives` (see `ToolApp.onPrimitivesChanged`).
   */
  readonly liveTools?: readonly Token[] | undefined;
}

/** The options of a module as the app reads them: every list present. */
export interface ModuleRecord {
  readonly imports: readonly Constructor[];
  readonly tools: readonly Constructor[];
  readonly prompts: readonly Constructor[];
  readonly resources: readonly Constructor[];
  readonly providers: readonly Provider[];
  readonly exports: readonly Token[];
  readonly guards: readonly GuardLike[];
  readonly interceptors: readonly InterceptorLike[];
  readonly liveTools: readonly Token[];
}

const MODULE_KEY = 'io.github.christopherdavenport.agenttool/di:module';

/**
 * `@Module({ imports, tools, providers, exports, guards, interceptors, liveTools })` composes
 * tools and providers, as
 * NestJS modules do. It only records its options; `ToolApp.create` reads them.
 */
export function Module(options: ModuleOptions): ClassDecorator {
  return (target, ...rest: unknown[]) => {
    requireExperimentalDecorators('Module', rest[0]);
    const record: ModuleRecord = {
      imports: [...(options.imports ?? [])],
      tools: [...(options.tools ?? [])],
      prompts: [...(options.prompts ?? [])],
      resources: [...(options.resources ?? [])],
      providers: [...(options.providers ?? [])],
      exports: [...(options.exports ?? [])],
      guards: [...(options.guards ?? [])],
      interceptors: [...(options.interceptors ?? [])],
      liveTools: [...(options.liveTools ?? [])],
    };
    Reflect.defineMetadata(MODULE_KEY, record, target);
  };
}

/** The options a class declared with `@Module`, or undefined when it is not a module. */
export function moduleOptionsOf(cls: unknown): ModuleRecord | undefined {
  if (typeof cls !== 'function') return undefined;
  return Reflect.getOwnMetadata(MODULE_KEY, cls) as ModuleRecord | undefined;
}

/** True for a class decorated with `@Module`. */
export function isModuleClass(cls: unknown): cls is Constructor {
  return moduleOptionsOf(cls) !== undefined;
}
