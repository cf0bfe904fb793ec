import {
  classMcpResource,
  classPrompt,
  type Constructor,
  type InstanceFor,
  isMcpResourceClass,
  isPromptClass,
  isResourceTemplate,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type ToolContext,
} from 'agenttool';
import { type Type } from '@nestjs/common';
import {
  callContext,
  type ContextId,
  enhance,
  inCallContext,
  isPerCall,
  methodHandler,
  type NestParts,
  originOf,
  perCallResolver,
  type Provider,
  providersOf,
  requests,
  type ScopedEnhancer,
  scopedGlobalEnhancers,
  servedTwice,
  warnPipesAndFilters,
} from './calls';
import { servedNames } from './context';
import { servedFactories, type TranslatedClass } from './di-module';
import { buildOptions } from './tools';

// MCP's prompts, resources and resource templates as Nest providers: discovered as the
// tools are, built by Nest's injector, their `get` and `read` run through Nest's guards
// and interceptors as a tool's `execute` is.

/** The prompts and MCP resources of the app's providers, served beside its tools. */
export interface DiscoveredPrimitives {
  readonly prompts: Prompt[];
  readonly resources: (McpResource | McpResourceTemplate)[];
}

type Kind = 'prompt' | 'resource';

/** One served primitive with where it came from, for the duplicate check. */
interface Found {
  readonly kind: Kind;
  readonly entry: Prompt | McpResource | McpResourceTemplate;
  readonly origin: string;
  readonly host: Provider['host'];
}

/**
 * Every `@Prompt`, `@McpResource` and `@McpResourceTemplate` provider of the app (of the
 * `include`d modules): a singleton serves every request; a request-scoped or transient
 * one (or one that depends on such) is resolved by Nest for each request (a `get`, a
 * `read`, a template's `list`, a completion), in the context of the HTTP request that
 * carried it. Each `get` and `read` runs through Nest's guards and interceptors, as a
 * tool's `execute` does; `@Scopes` and `@Guard` decide who lists and uses it, as for
 * a tool.
 */
export function discoverPrimitives(
  nest: NestParts,
  include: readonly Type<unknown>[] | undefined,
): DiscoveredPrimitives {
  const scoped = scopedGlobalEnhancers(nest.moduleRef);
  const found: Found[] = [];
  for (const provider of providersOf(nest, include)) {
    const translated =
      provider.metatype === null ? undefined : servedFactories.get(provider.metatype);
    if (translated?.kind === 'tool') continue;
    const served =
      translated === undefined
        ? primitiveClassOf(provider)
        : { kind: translated.kind, cls: translated.cls };
    if (served === undefined) continue;
    const { kind, cls } = served;
    const origin = originOf(provider, cls);
    warnPipesAndFilters(cls, kind === 'prompt' ? 'get' : 'read', origin);
    const serve = new Served(nest, scoped, cls, kind);
    const instanceFor = isPerCall(provider)
      ? serve.perCall(provider, origin, translated)
      : serve.singleton(provider.instance as object);
    const options = buildOptions(translated);
    const entry =
      kind === 'prompt'
        ? classPrompt(cls, instanceFor, options)
        : classMcpResource(cls, instanceFor, options);
    serve.template = kind === 'resource' && isResourceTemplate(entry as McpResource);
    servedNames.set(cls, { kind, name: entry.name });
    found.push({ kind, entry, origin, host: provider.host });
  }
  checkUnique(nest, found);
  return {
    prompts: found.flatMap((f) => (f.kind === 'prompt' ? [f.entry as Prompt] : [])),
    resources: found.flatMap((f) =>
      f.kind === 'resource' ? [f.entry as McpResource | McpResourceTemplate] : [],
    ),
  };
}

/** The primitive class a provider makes, if it makes one. */
function primitiveClassOf(provider: Provider): { kind: Kind; cls: Constructor } | undefined {
  const kindOf = (cls: unknown): Kind | undefined =>
    isPromptClass(cls) ? 'prompt' : isMcpResourceClass(cls) ? 'resource' : undefined;
  if (!provider.isNotMetatype) {
    const kind = kindOf(provider.metatype);
    if (kind !== undefined) return { kind, cls: provider.metatype as Constructor };
  }
  // A factory or value provider: its instance tells, when it is a singleton.
  const instance: unknown = provider.isDependencyTreeStatic() ? provider.instance : undefined;
  if (typeof instance !== 'object' || instance === null) return undefined;
  const cls = instance.constructor as Constructor;
  const kind = kindOf(cls);
  return kind === undefined ? undefined : { kind, cls };
}

/**
 * Two providers serving one prompt name, resource name, URI or URI template: said with
 * both, and how to fix it.
 */
function checkUnique(nest: NestParts, found: readonly Found[]): void {
  const seen = new Map<string, Found>();
  const claim = (key: string, what: string, served: Found): void => {
    const first = seen.get(key);
    if (first !== undefined) throw servedTwice(nest, what, first, served);
    seen.set(key, served);
  };
  for (const served of found) {
    const { kind, entry } = served;
    claim(`${kind}:${entry.name}`, `${kind} ${JSON.stringify(entry.name)}`, served);
    if (kind !== 'resource') continue;
    const resource = entry as McpResource | McpResourceTemplate;
    const uri = isResourceTemplate(resource) ? resource.uriTemplate : resource.uri;
    claim(`uri:${uri}`, `resource URI ${JSON.stringify(uri)}`, served);
  }
}

/**
 * How the requests of one primitive class reach its instance: `get` (a prompt) or
 * `read` (a resource) through Nest's guards and interceptors, with the execution
 * context's arguments `[request, args, ctx]` (`[request, vars, ctx, uri]` for a
 * template's read, `[request, {}, ctx]` for a resource's); its other methods (a
 * template's `list`, its completers) called as they are.
 */
class Served {
  /** True for a resource template; known once the class is read. */
  template = false;
  readonly #method: 'get' | 'read';
  readonly #handler: (...args: unknown[]) => unknown;

  constructor(
    private readonly nest: NestParts,
    private readonly scoped: readonly ScopedEnhancer[],
    private readonly cls: Constructor,
    kind: Kind,
  ) {
    this.#method = kind === 'prompt' ? 'get' : 'read';
    this.#handler = methodHandler(cls, this.#method, (instance, args) => {
      const target = instance as Record<string, (...a: unknown[]) => unknown>;
      if (kind === 'prompt') return target.get!(args[1], args[2]);
      return this.template ? target.read!(args[1], args[3], args[2]) : target.read!(args[2]);
    });
  }

  /** The execution context's arguments of one call of the method, and its call context. */
  #nestArgs(args: readonly unknown[]): { nestArgs: unknown[]; ctx: ToolContext } {
    const request = requests.getStore();
    if (this.#method === 'get') {
      return { nestArgs: [request, args[0], args[1]], ctx: args[1] as ToolContext };
    }
    if (this.template) {
      return { nestArgs: [request, args[0], args[2], args[1]], ctx: args[2] as ToolContext };
    }
    return { nestArgs: [request, {}, args[0]], ctx: args[0] as ToolContext };
  }

  /** Serves every request with the singleton `instance`. */
  singleton(instance: object): InstanceFor {
    const enhanced = enhance(this.nest, instance, this.#handler, undefined, undefined);
    const facade = this.#facade(instance, async (args) => {
      const { nestArgs, ctx } = this.#nestArgs(args);
      if (this.scoped.length === 0) return enhanced(...nestArgs);
      // The instance stays the singleton; its guards and interceptors are the request's.
      const request = nestArgs[0] as object | undefined;
      const session = ctx.session ?? this.nest.ownSession;
      const contextId = await callContext(this.nest, this.scoped, request, session);
      return enhance(this.nest, instance, this.#handler, contextId, undefined)(...nestArgs);
    });
    return () => facade;
  }

  /**
   * Resolves an instance for each request; what an agenttool/di module built for it is
   * closed once the method the request calls settles.
   */
  perCall(
    provider: Provider,
    origin: string,
    translated: TranslatedClass | undefined,
  ): InstanceFor {
    const resolve = perCallResolver<object>(
      this.nest,
      this.scoped,
      provider,
      this.cls,
      origin,
      translated,
    );
    return async (ctx) => {
      const { instance, contextId, close } = await resolve(ctx);
      const enhanced = enhance(this.nest, instance, this.#handler, contextId, provider.id);
      return this.#facade(
        instance,
        (args) => enhanced(...this.#nestArgs(args).nestArgs),
        close,
        contextId,
      );
    };
  }

  /**
   * `instance` with its method (`get` or `read`) replaced by `call`, and its other
   * methods bound to it (run in the call of `contextId`, when there is one); with
   * `close`, each method closes what was built for the request once it settles.
   */
  #facade(
    instance: object,
    call: (args: readonly unknown[]) => Promise<unknown>,
    close?: () => Promise<unknown[]>,
    contextId?: ContextId,
  ): object {
    const method = this.#method;
    const settle = async (run: () => unknown): Promise<unknown> => {
      let result: unknown;
      try {
        result = await run();
      } catch (error) {
        await close?.();
        throw error;
      }
      const errors = (await close?.()) ?? [];
      if (errors.length > 0) throw new AggregateError(errors, 'agenttool/nest: closing failed');
      return result;
    };
    return new Proxy(instance, {
      get(target, key) {
        if (key === method) return (...args: unknown[]) => settle(() => call(args));
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        const fn = value as (...args: unknown[]) => unknown;
        if (close === undefined) return fn.bind(target);
        return (...args: unknown[]) =>
          settle(() => inCallContext(contextId, () => fn.apply(target, args)));
      },
    });
  }
}
