import {
  AgentToolError,
  type Constructor,
  type Interceptor,
  type ProviderResolver,
  type ToolContext,
  withResolver,
} from '../core';
import {
  type InterceptorLike,
  interceptorObjects,
  interceptorProblem,
  isInterceptorClass,
  type ToolBuildOptions,
  toolDescriptorOf,
} from '../decorators';
import { type AppGraph, classNode, type ModuleNode, type ProviderNode } from './graph';
import { type Home, sharingOf, visibleIn } from './link';
import { guardChain } from './module-guards';
import { type InstanceScope } from './scope';
import { isToken, tokenName } from './tokens';

// Interceptors in an app: the app's own (`ToolAppOptions.interceptors`), each module's
// (`@Module({ interceptors })`) and each tool's (`@UseInterceptors`), their classes built
// once for the app as guard classes are, chained the app's first, then the modules' as
// their guards are (`guardChain`), then the tool's.

/** The app's own interceptors, read with its graph (they belong to its root module). */
const appInterceptors = new WeakMap<AppGraph, readonly InterceptorLike[]>();

/**
 * Adds a node for each interceptor class the app's options, a module's `interceptors` or
 * its tools' `@UseInterceptors` name (the app's to the root module), and reports an entry
 * that is not an interceptor. One class is one node in its module, shared with a guard or
 * a provider of that class. A tool class that cannot be read is left to the tool checks.
 */
export function addInterceptorNodes(graph: AppGraph, own: readonly InterceptorLike[]): void {
  appInterceptors.set(graph, own);
  if (!Array.isArray(own)) {
    graph.problems.push({
      code: 'INVALID_OPTIONS',
      message: 'options.interceptors must be a list of interceptors',
    });
    appInterceptors.set(graph, []);
  }
  for (const module of graph.modules) {
    const classes: Constructor<Interceptor>[] = [];
    const check = (
      list: readonly unknown[],
      where: string,
      code: 'INVALID_MODULE' | 'INVALID_OPTIONS',
    ): void =>
      list.forEach((entry, i) => {
        const problem = interceptorProblem(entry);
        if (problem !== undefined)
          graph.problems.push({ code, message: `${where}[${i}]: ${problem}` });
        else if (isInterceptorClass(entry)) classes.push(entry);
      });
    if (module === graph.root && Array.isArray(own))
      check(own, 'options.interceptors', 'INVALID_OPTIONS');
    check(module.options.interceptors, `${module.name} interceptors`, 'INVALID_MODULE');
    for (const tool of module.tools) {
      try {
        const declared = toolDescriptorOf(tool.token as Constructor).properties.interceptors;
        for (const entry of declared) if (isInterceptorClass(entry)) classes.push(entry);
      } catch {
        continue;
      }
    }
    for (const cls of classes) {
      if (module.interceptors.has(cls)) continue;
      const shared = module.own.get(cls) ?? module.guards.get(cls as never);
      module.interceptors.set(
        cls,
        shared ?? classNode(module, cls, cls, 'class', `interceptor ${cls.name}`),
      );
    }
  }
}

/**
 * An interceptor runs for every caller of every session, so it is built once for the
 * app: one that needs a session-scoped provider is a problem.
 */
export function checkInterceptorScopes(
  graph: AppGraph,
  homes: ReadonlyMap<ProviderNode, Home>,
): void {
  for (const module of graph.modules) {
    for (const node of module.interceptors.values()) {
      if (homes.get(node) !== 'session') continue;
      graph.problems.push({
        code: 'INVALID_MODULE',
        message: `${module.name}: ${node.label} needs a session-scoped provider, but an interceptor is built once for the app; inject CallAuth or CallSession to read the current caller, or find the provider per call with context.resolve()`,
      });
    }
  }
}

/** Where an app's interceptors find their providers, and what they are built from. */
export interface InterceptorSources {
  readonly graph: AppGraph;
  readonly homes: ReadonlyMap<ProviderNode, Home>;
  readonly appScope: InstanceScope;
  readonly scopeOf: (ctx: ToolContext) => InstanceScope;
}

/** The interceptors each module's tools run: the app's, every importing module's, the root's first, then its own. */
export class ModuleInterceptors {
  readonly #resolvers = new Map<ModuleNode, ProviderResolver>();

  constructor(
    private readonly sources: InterceptorSources,
    private readonly instances: ReadonlyMap<ProviderNode, Interceptor>,
  ) {}

  /** How the tools of `module` are built: the chain before their own, and how their own are found. */
  buildOptions(module: ModuleNode): ToolBuildOptions {
    const { graph } = this.sources;
    const bound = (m: ModuleNode, list: readonly InterceptorLike[]): Interceptor[] => {
      const resolve = this.#resolver(m);
      return interceptorObjects(list, m.name, (cls) => this.#instance(m, cls)).map((i) =>
        withResolver(i, resolve),
      );
    };
    const interceptors = [
      ...bound(graph.root, appInterceptors.get(graph) ?? []),
      ...guardChain(graph, module).flatMap((m) => bound(m, m.options.interceptors)),
    ];
    return {
      interceptors,
      resolveInterceptor: (cls) => this.#instance(module, cls),
      resolveProvider: this.#resolver(module),
    };
  }

  #instance(module: ModuleNode, cls: Constructor<Interceptor>): Interceptor {
    const node = module.interceptors.get(cls);
    const instance = node === undefined ? undefined : this.instances.get(node);
    if (instance === undefined) {
      throw new AgentToolError('INTERNAL', `agenttool/di: interceptor ${cls.name} was not built`);
    }
    return instance;
  }

  /**
   * `context.resolve` for the interceptors a module lists: a token as the module sees it,
   * the app's instance, or the call's session's for a session-scoped provider.
   */
  #resolver(module: ModuleNode): ProviderResolver {
    let resolver = this.#resolvers.get(module);
    if (resolver === undefined) {
      const { homes, appScope, scopeOf } = this.sources;
      resolver = async (token, ctx, options) => {
        const node = isToken(token) ? visibleIn(module, token) : undefined;
        const name = tokenName(token);
        if (node === undefined) {
          if (options.optional === true) return undefined;
          throw new AgentToolError(
            'MISSING_PROVIDER',
            `${module.name}: an interceptor asked for ${name}, but no provider of it is visible in ${module.name}; add a provider of ${name} to ${module.name}'s providers, or import a module that exports it`,
          );
        }
        const sharing = sharingOf(node);
        if (sharing !== 'shared') {
          throw new AgentToolError(
            'INVALID_OPTIONS',
            `${module.name}: an interceptor asked for ${name}, which is ${sharing === 'transient' ? 'transient' : 'resolution-scoped'}: there is no one instance of it to give; inject it into the interceptor's constructor instead`,
          );
        }
        return (homes.get(node) === 'session' ? scopeOf(ctx) : appScope).resolve(node);
      };
      this.#resolvers.set(module, resolver);
    }
    return resolver;
  }
}

/** The app's interceptors, each interceptor class resolved from the app. */
export async function moduleInterceptors(sources: InterceptorSources): Promise<ModuleInterceptors> {
  const instances = new Map<ProviderNode, Interceptor>();
  for (const module of sources.graph.modules) {
    for (const node of module.interceptors.values()) {
      if (!instances.has(node)) {
        instances.set(node, (await sources.appScope.resolve(node)) as Interceptor);
      }
    }
  }
  return new ModuleInterceptors(sources, instances);
}
