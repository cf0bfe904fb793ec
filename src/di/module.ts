import 'reflect-metadata';
import { type Constructor, type Scope, type Token } from './tokens';

/** A provider given as a class: registered under the class itself. */
export interface ClassProvider<T = unknown> {
  readonly provide: Token<T>;
  readonly useClass: Constructor<T>;
  readonly scope?: Scope;
}

/** A provider of a ready value. Values are never closed by the app: their owner closes them. */
export interface ValueProvider<T = unknown> {
  readonly provide: Token<T>;
  readonly useValue: T;
}

/** A provider built by a function, sync or async, from the tokens listed in `inject`. */
export interface FactoryProvider<T = unknown> {
  readonly provide: Token<T>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the factory's parameters follow `inject`
  readonly useFactory: (...deps: any[]) => T | Promise<T>;
  readonly inject?: readonly Token[];
  readonly scope?: Scope;
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
  readonly imports?: readonly Constructor[];
  /** Tool classes (each with `@Tool`) this module contributes to the app. */
  readonly tools?: readonly Constructor[];
  /** Providers this module's tools and providers may inject. */
  readonly providers?: readonly Provider[];
  /**
   * What importers may inject: tokens this module provides or imports, or imported
   * modules (re-exporting all they export). What is not exported is private.
   */
  readonly exports?: readonly (Token | Constructor)[];
}

const MODULE_KEY = 'io.github.christopherdavenport.agenttool/di:module';

/**
 * `@Module({ imports, tools, providers, exports })` composes tools and providers, as
 * NestJS modules do. It only records its options; `ToolApp.create` reads them.
 */
export function Module(options: ModuleOptions): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(
      MODULE_KEY,
      {
        imports: [...(options.imports ?? [])],
        tools: [...(options.tools ?? [])],
        providers: [...(options.providers ?? [])],
        exports: [...(options.exports ?? [])],
      } satisfies Required<ModuleOptions>,
      target,
    );
  };
}

/** The options a class declared with `@Module`, or undefined when it is not a module. */
export function moduleOptionsOf(cls: unknown): Required<ModuleOptions> | undefined {
  if (typeof cls !== 'function') return undefined;
  return Reflect.getOwnMetadata(MODULE_KEY, cls) as Required<ModuleOptions> | undefined;
}

/** True for a class decorated with `@Module`. */
export function isModuleClass(cls: unknown): cls is Constructor {
  return moduleOptionsOf(cls) !== undefined;
}
