import { AgentToolError, type Constructor } from '../core';
import { type GuardLike } from '../decorators';
import { checkedApp } from './checked-app';
import { type ModuleNode, type ProviderNode } from './graph';
import { moduleNodes } from './link';
import { type Scope, type Token } from './tokens';

/** One dependency of a provider or of a module class, as another container injects it. */
export interface InjectionDescription {
  /** The token to inject. */
  readonly token: Token;
  /** Inject `undefined` when nothing provides it (tsyringe's `@inject(token, { isOptional: true })`). */
  readonly optional: boolean;
}

/**
 * One provider or tool of a module, as agenttool reads it: enough for another
 * container to build it as {@link ToolApp} does.
 */
export interface ProviderDescription {
  /** What it is provided under (for a tool, its class). */
  readonly token: Token;
  /** A class (a tool's included), a `useValue`, a `useFactory`, or a `useExisting`. */
  readonly kind: 'class' | 'value' | 'factory' | 'alias';
  /** What errors call it: `ReadFileTool`, `the factory of "CONFIG"`. */
  readonly label: string;
  /** Its scope: stated, or `'app'`. */
  readonly scope: Scope;
  /** What it injects, in order (an alias: the token it names). */
  readonly inject: readonly InjectionDescription[];
  /**
   * Makes its value from what `inject` resolved, in order: builds the class, calls the
   * factory (whose promise the caller awaits), returns the value or the named instance.
   */
  readonly make: (...deps: unknown[]) => unknown;
  /** True when the module lists it in `tools`: its value is a `@Tool` instance. */
  readonly tool: boolean;
}

/** One module, as agenttool reads it. */
export interface ModuleDescription {
  /** The `@Module` class. */
  readonly module: Constructor;
  /** The modules it imports, each once. */
  readonly imports: readonly Constructor[];
  /**
   * Its providers, then the tools it does not also list in `providers`, each once, as
   * a NestJS module listing `providers: [...providers, ...tools]` would hold them.
   */
  readonly providers: readonly ProviderDescription[];
  /** What it exports: tokens, and imported modules it re-exports. */
  readonly exports: readonly Token[];
  /** What its class's constructor injects, in order. */
  readonly inject: readonly InjectionDescription[];
  /** Its `guards`. */
  readonly guards: readonly GuardLike[];
}

/**
 * The modules of the app of `rootModule`, read and checked as `ToolApp.create` checks
 * them (one `ModuleError` with every problem), the root first, then in the order they
 * were found (depth first): for adapters that build the same app in another container,
 * as `agenttool/nest` does in NestJS's.
 */
export function describeModules(rootModule: Constructor): ModuleDescription[] {
  const { graph } = checkedApp(rootModule);
  return graph.modules.map(describeModule);
}

function describeModule(module: ModuleNode): ModuleDescription {
  const providers = moduleNodes(module).filter(
    (node) => node.kind !== 'module' && node.module === module && !isOwnGuardOnly(module, node),
  );
  return {
    module: module.cls,
    imports: [...new Set(module.imports.map((imported) => imported.cls))],
    providers: providers.map((node) => describeProvider(node, module.tools.includes(node))),
    exports: module.options.exports,
    inject: module.self === undefined ? [] : injections(module.self),
    guards: module.options.guards,
  };
}

/** A guard class the module builds for its tools without listing it as a provider. */
function isOwnGuardOnly(module: ModuleNode, node: ProviderNode): boolean {
  return [...module.guards.values()].includes(node) && !module.own.has(node.token);
}

function describeProvider(node: ProviderNode, tool: boolean): ProviderDescription {
  const kind = node.kind === 'tool' ? 'class' : node.kind;
  if (kind === 'builtin' || kind === 'module') {
    throw new AgentToolError(
      'INTERNAL',
      `agenttool/di: ${node.label} is not a provider of a module`,
    );
  }
  return {
    token: node.token,
    kind,
    label: node.label,
    scope: node.declaredScope,
    inject: injections(node),
    make: (...deps) => node.build(deps),
    tool,
  };
}

function injections(node: ProviderNode): InjectionDescription[] {
  // A linked graph without problems has a token for every parameter.
  return node.parameters.map((parameter) => ({
    token: parameter.token!,
    optional: parameter.optional === true,
  }));
}
