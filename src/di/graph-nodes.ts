import { type Constructor, type Interceptor } from '../core';
import { type CanActivate } from '../decorators';
import { type HandleOptions } from './handles';
import { type ModuleRecord } from './module';
import { type ParameterToken } from './constructor-tokens';
import { type Scope, type Token } from './tokens';
import { type NodeKey } from './tsyringe-adapter';

// The nodes of an app's graph: its modules, and the providers that build its values.

/** A module of the app, once: its own providers and what it imports. */
export interface ModuleNode {
  readonly cls: Constructor;
  readonly name: string;
  readonly options: ModuleRecord;
  readonly imports: ModuleNode[];
  /** Own providers by token; a later entry for the same token replaces an earlier one. */
  readonly own: Map<Token, ProviderNode>;
  /**
   * Its tools, each once: the node of its own provider of the class when it lists the
   * class in `providers` too (one instance), else a node of the tool's own.
   */
  readonly tools: ProviderNode[];
  /** Its prompt classes, each once, as {@link ModuleNode.tools}. */
  readonly prompts: ProviderNode[];
  /** Its MCP resource and template classes, each once, as {@link ModuleNode.tools}. */
  readonly resources: ProviderNode[];
  /**
   * The guard classes its `guards` and its tools' `@Guard`s name, one node each: its own
   * provider of the class when it lists one, else an instance of its own.
   */
  readonly guards: Map<Constructor<CanActivate>, ProviderNode>;
  /**
   * The interceptor classes its `interceptors` (and the app's, for the root module) and
   * its tools' `@UseInterceptors` name, one node each, as {@link ModuleNode.guards}.
   */
  readonly interceptors: Map<Constructor<Interceptor>, ProviderNode>;
  /** The module class itself, built with its constructor's dependencies, hooked last. */
  self: ProviderNode | undefined;
  /**
   * The longest import path from the root module (1 for the root), as NestJS 12.5
   * measures it (`TopologyTree`: an import that closes a cycle is left out).
   */
  distance: number;
}

export type ProviderKind = 'class' | 'value' | 'factory' | 'alias' | 'builtin' | 'tool' | 'module';

/** One thing the app can build: a provider, a tool class, or a built-in facade. */
export interface ProviderNode {
  readonly module: ModuleNode | undefined;
  readonly token: Token;
  readonly kind: ProviderKind;
  /** What errors call it: `ReadFileTool` or `the factory of "CONFIG"`. */
  readonly label: string;
  /** The scope it declares, or `app` when it declares none. */
  readonly declaredScope: Scope;
  /** True when the scope was stated (a `scope` option, `@Injectable({ scope })`, `@singleton()`). */
  readonly scopeStated?: boolean;
  /** The handle its session-scoped instances are reachable by, when it declares one. */
  readonly handle?: HandleOptions | undefined;
  readonly parameters: readonly ParameterToken[];
  /** Builds the instance (or the factory's value) from the dependencies, in order. */
  readonly build: (args: unknown[]) => unknown;
  /** The key it is registered under in the app's container: its own, never a user token. */
  readonly key: NodeKey;
  /**
   * A provider class with no decorator of ours (`@Injectable`, `@Tool`): TypeScript
   * emits no parameter types for such a class, so errors suggest `@Injectable()`.
   */
  readonly undecorated?: boolean;
  /**
   * The nodes the parameters resolve to (same order), undefined for an optional
   * parameter nothing provides; filled by `linkGraph`.
   */
  deps: (ProviderNode | undefined)[];
}
