import {
  classTool,
  type Constructor,
  isToolClass,
  type Tool,
  type ToolBuildOptions,
  type ToolContext,
} from 'agenttool';
import { type Type } from '@nestjs/common';
import {
  callContext,
  enhance,
  isPerCall,
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
import { madeHere } from './call-made';
import { servedFactories, type TranslatedClass } from './di-module';
import { toolChain, toolHandler } from './interceptors';

/** A `@Tool` provider, served. */
export interface DiscoveredTool {
  readonly tool: Tool;
  /** Where it came from: `Module.Class`, for messages. */
  readonly origin: string;
  /** The Nest module that provides it, for the duplicate check. */
  readonly host?: Provider['host'];
  /** The singleton's `close()`, when it has one: the tool is a closer. */
  readonly close: (() => Promise<void>) | undefined;
}

interface ToolInstance {
  execute(args: object, ctx: ToolContext): unknown;
  close?(): unknown;
}

/**
 * Every `@Tool` provider of the app (of the `include`d modules), as tools: a singleton
 * calls Nest's instance; a request-scoped or transient provider (or one that depends on
 * such) is resolved by Nest for each call, in the context of the HTTP request that
 * carried it. Each call runs through Nest's guards and interceptors (global ones, and
 * those of the tool class and its `execute`), as a route handler does, and inside them
 * agenttool's interceptors of the tool (its agenttool/di module's, its `@UseInterceptors`).
 */
export function discoverTools(
  nest: NestParts,
  include: readonly Type<unknown>[] | undefined,
): DiscoveredTool[] {
  const scoped = scopedGlobalEnhancers(nest.moduleRef);
  const found: DiscoveredTool[] = [];
  for (const provider of providersOf(nest, include)) {
    const translated =
      provider.metatype === null ? undefined : servedFactories.get(provider.metatype);
    if (translated !== undefined && translated.kind !== 'tool') continue;
    const cls = translated?.cls ?? toolClassOf(provider);
    if (cls === undefined) continue;
    const origin = originOf(provider, cls);
    warnPipesAndFilters(cls, 'execute', origin);
    // A factory or value provider is served only as a singleton (toolClassOf).
    const served = isPerCall(provider)
      ? perCallTool(nest, scoped, provider, cls, origin, translated)
      : singletonTool(nest, scoped, provider, cls, origin, translated);
    found.push({ ...served, host: provider.host });
  }
  checkNames(nest, found);
  return found;
}

/** Two providers serving one name: said with both, and how to fix it. */
function checkNames(nest: NestParts, found: readonly DiscoveredTool[]): void {
  const seen = new Map<string, DiscoveredTool>();
  for (const served of found) {
    const first = seen.get(served.tool.name);
    if (first !== undefined) {
      throw servedTwice(nest, `tool ${JSON.stringify(served.tool.name)}`, first, served);
    }
    seen.set(served.tool.name, served);
  }
}

/** The `@Tool` class a provider makes, if it makes one. */
function toolClassOf(provider: Provider): Constructor | undefined {
  if (!provider.isNotMetatype && isToolClass(provider.metatype)) return provider.metatype;
  // A factory or value provider: its instance tells, when it is a singleton.
  const instance: unknown = provider.isDependencyTreeStatic() ? provider.instance : undefined;
  if (typeof instance !== 'object' || instance === null) return undefined;
  const cls = instance.constructor;
  return isToolClass(cls) ? cls : undefined;
}

function singletonTool(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  provider: Provider,
  cls: Constructor,
  origin: string,
  translated: TranslatedClass | undefined,
): DiscoveredTool {
  const instance = provider.instance as ToolInstance;
  const chain = toolChain(nest, cls, buildOptions(translated));
  const handler = toolHandler(cls, chain, () => tool);
  const enhanced = enhance(nest, instance, handler, undefined, undefined);
  const facade = {
    execute: async (args: object, ctx: ToolContext): Promise<unknown> => {
      const request = requests.getStore();
      if (scoped.length === 0) return enhanced(request, args, ctx);
      // The instance stays the singleton; its guards and interceptors are the call's.
      const contextId = await callContext(nest, scoped, request, ctx.session ?? nest.ownSession);
      return enhance(nest, instance, handler, contextId, undefined)(request, args, ctx);
    },
  };
  // An agenttool/di module's instances are its own to close (asNestModule).
  const close =
    typeof instance.close === 'function' && !madeHere.has(instance)
      ? async () => {
          await instance.close?.();
        }
      : undefined;
  const tool = classTool(cls, () => facade, chain.options);
  return { tool, origin, close };
}

function perCallTool(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  provider: Provider,
  cls: Constructor,
  origin: string,
  translated: TranslatedClass | undefined,
): DiscoveredTool {
  const resolve = perCallResolver<ToolInstance>(nest, scoped, provider, cls, origin, translated);
  const chain = toolChain(nest, cls, buildOptions(translated));
  const handler = toolHandler(cls, chain, () => tool);
  const tool = classTool(
    cls,
    async (ctx) => {
      const { instance, contextId, request, close } = await resolve(ctx);
      const enhanced = enhance(nest, instance, handler, contextId, provider.id);
      return {
        execute: async (args: object, ctx: ToolContext): Promise<unknown> => {
          let result: unknown;
          try {
            result = await enhanced(request, args, ctx);
          } catch (error) {
            await close();
            throw error;
          }
          const errors = await close();
          if (errors.length > 0) throw new AggregateError(errors, 'agenttool/nest: closing failed');
          return result;
        },
      };
    },
    chain.options,
  );
  return { tool, origin, close: undefined };
}

/** How a class is built: an agenttool/di module's with its modules' guards. */
export function buildOptions(translated: TranslatedClass | undefined): ToolBuildOptions {
  return translated === undefined ? {} : translated.options();
}
