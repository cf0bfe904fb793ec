import { AsyncLocalStorage } from 'node:async_hooks';
import {
  AgentToolError,
  classTool,
  type Constructor,
  isToolClass,
  type Session,
  type Tool,
  type ToolBuildOptions,
  type ToolContext,
} from 'agenttool';
import {
  ContextIdFactory,
  type DiscoveryService,
  type ExternalContextCreator,
  ModuleRef,
  type NestContainer,
} from '@nestjs/core';
import { type Type } from '@nestjs/common';
import { AGENTTOOL_CONTEXT_TYPE } from './context';
import { closeEach, madeHere } from './di-app';
import { toolFactories, type TranslatedTool } from './di-module';
import { attachSession, callBuilds } from './sessions';

/** A provider as Nest's discovery lists it. */
type Provider = ReturnType<DiscoveryService['getProviders']>[number];
type ContextId = Parameters<ModuleRef['resolve']>[1] & object;
/** A global guard or interceptor Nest builds per request (`APP_GUARD` with a request-scoped class). */
interface ScopedEnhancer {
  /** Its provider's token: `APP_GUARD (UUID: …)`, unique in the app. */
  readonly token: unknown;
}

/** The HTTP request (Express's or Fastify's) a call came with, as the endpoint saw it. */
export const requests = new AsyncLocalStorage<object>();

/** What the discovery needs of Nest. */
export interface NestParts {
  readonly discovery: DiscoveryService;
  readonly moduleRef: ModuleRef;
  readonly contextCreator: ExternalContextCreator;
  /** The session of calls that come without one. */
  readonly ownSession: Session;
}

/** A `@Tool` provider, served. */
export interface DiscoveredTool {
  readonly tool: Tool;
  /** Where it came from: `Module.Class`, for messages. */
  readonly origin: string;
  /** The singleton's `close()`, when it has one: the tool is a closer. */
  readonly close: (() => Promise<void>) | undefined;
}

interface ToolInstance {
  execute(args: object, ctx: ToolContext): unknown;
  close?(): unknown;
}

// Guards and interceptors run around each call; exception filters do not (a tool's
// failure is its call's isError result, not an HTTP response).
const ENHANCERS = { guards: true, interceptors: true, filters: false };

/**
 * Every `@Tool` provider of the app (of the `include`d modules), as tools: a singleton
 * calls Nest's instance; a request-scoped or transient provider (or one that depends on
 * such) is resolved by Nest for each call, in the context of the HTTP request that
 * carried it. Each call runs through Nest's guards and interceptors (global ones, and
 * those of the tool class and its `execute`), as a route handler does.
 */
export function discoverTools(
  nest: NestParts,
  include: readonly Type<unknown>[] | undefined,
): DiscoveredTool[] {
  const providers = nest.discovery.getProviders(
    include === undefined ? undefined : { include: [...include] },
  );
  const scoped = scopedGlobalEnhancers(nest.moduleRef);
  const found: DiscoveredTool[] = [];
  for (const provider of providers) {
    if (provider.isAlias) continue;
    const translated =
      provider.metatype === null ? undefined : toolFactories.get(provider.metatype);
    const cls = translated?.cls ?? toolClassOf(provider);
    if (cls === undefined) continue;
    const origin = `${provider.host?.name ?? 'unknown module'}.${cls.name}`;
    // A factory or value provider is served only as a singleton (toolClassOf).
    const perCall = !provider.isDependencyTreeStatic() || provider.isTransient;
    found.push(
      perCall
        ? perCallTool(nest, scoped, provider, cls, origin, translated)
        : singletonTool(nest, scoped, provider, cls, origin, translated),
    );
  }
  checkNames(found);
  return found;
}

/** Two providers serving one name: said with both, and how to fix it. */
function checkNames(found: readonly DiscoveredTool[]): void {
  const seen = new Map<string, string>();
  for (const { tool, origin } of found) {
    const first = seen.get(tool.name);
    if (first !== undefined) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `agenttool/nest: two providers serve the tool ${JSON.stringify(tool.name)}: ${first} and ${origin}; provide the class in one module (and export it where it is needed), or serve only some modules with the include option`,
      );
    }
    seen.set(tool.name, origin);
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

/**
 * The app's global guards and interceptors that Nest builds per request (an
 * `APP_GUARD` or `APP_INTERCEPTOR` whose class is request-scoped or transient). Nest's
 * context creator finds them only for a call made in a request's context, so a call
 * of a singleton tool gets one too when there are any. Nest offers them only on its
 * application config, which its container holds.
 */
function scopedGlobalEnhancers(moduleRef: ModuleRef): readonly ScopedEnhancer[] {
  const container = (moduleRef as unknown as { readonly container?: NestContainer }).container;
  const config = container?.applicationConfig;
  if (
    typeof config?.getGlobalRequestGuards !== 'function' ||
    typeof config.getGlobalRequestInterceptors !== 'function'
  ) {
    // Without them a request-scoped global guard would be skipped: refuse to serve.
    throw new AgentToolError(
      'INTERNAL',
      "agenttool/nest: this version of @nestjs/core does not expose the application's global request-scoped guards and interceptors; use @nestjs/core 12",
    );
  }
  return [...config.getGlobalRequestGuards(), ...config.getGlobalRequestInterceptors()];
}

/**
 * The context of one call, as Nest's router makes one for an HTTP request: the
 * request's context id (a new one without a request), with the call's session attached
 * (agenttool/di's session-scoped providers live in the session's context) and the
 * request registered for injection, and the global request-scoped enhancers built in it (their
 * constructors run with the request injected) before the guards are gathered.
 */
async function callContext(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  request: object | undefined,
  session: Session,
): Promise<ContextId> {
  const contextId =
    request === undefined ? ContextIdFactory.create() : ContextIdFactory.getByRequest(request);
  attachSession(contextId, session);
  if (request !== undefined) nest.moduleRef.registerRequestByContextId(request, contextId);
  await Promise.all(
    scoped.map((enhancer) =>
      nest.moduleRef.resolve(enhancer.token as string, contextId, { strict: false }),
    ),
  );
  return contextId;
}

function singletonTool(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  provider: Provider,
  cls: Constructor,
  origin: string,
  translated: TranslatedTool | undefined,
): DiscoveredTool {
  const instance = provider.instance as ToolInstance;
  const enhanced = enhance(nest, instance, cls, undefined, undefined);
  const facade = {
    execute: async (args: object, ctx: ToolContext): Promise<unknown> => {
      const request = requests.getStore();
      if (scoped.length === 0) return enhanced(request, args, ctx);
      // The instance stays the singleton; its guards and interceptors are the call's.
      const contextId = await callContext(nest, scoped, request, ctx.session ?? nest.ownSession);
      return enhance(nest, instance, cls, contextId, undefined)(request, args, ctx);
    },
  };
  // An agenttool/di module's instances are its own to close (asNestModule).
  const close =
    typeof instance.close === 'function' && !madeHere.has(instance)
      ? async () => {
          await instance.close?.();
        }
      : undefined;
  return { tool: classTool(cls, () => facade, buildOptions(translated)), origin, close };
}

function perCallTool(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  provider: Provider,
  cls: Constructor,
  origin: string,
  translated: TranslatedTool | undefined,
): DiscoveredTool {
  // Resolved in its own module, as Nest's router does: another module may provide
  // another class under the same token.
  const hostRef = provider.host?.providers.get(ModuleRef)?.instance as ModuleRef | undefined;
  if (hostRef === undefined) {
    throw new AgentToolError(
      'INTERNAL',
      `agenttool/nest: the module of the request-scoped tool provider ${origin} cannot be found`,
    );
  }
  const tool = classTool(
    cls,
    async (ctx) => {
      const request = requests.getStore();
      const session = ctx.session ?? nest.ownSession;
      const contextId = await callContext(nest, scoped, request, session);
      // What an agenttool/di module builds for this call is closed when the call ends;
      // what it builds for the call's session, when the session ends.
      const built: object[] = [];
      const resolving = callBuilds.run({ session, made: built }, () =>
        hostRef.resolve<ToolInstance>(provider.token as Constructor, contextId, { strict: true }),
      );
      let instance: ToolInstance;
      try {
        instance =
          translated?.home === 'session'
            ? await translated.app.untilSessionEnds(session, resolving, cls.name)
            : await resolving;
      } catch (error) {
        await closeEach(built.reverse());
        throw error;
      }
      const enhanced = enhance(nest, instance, cls, contextId, provider.id);
      return {
        execute: async (args: object, ctx: ToolContext): Promise<unknown> => {
          let result: unknown;
          try {
            result = await enhanced(request, args, ctx);
          } catch (error) {
            await closeEach(built.reverse());
            throw error;
          }
          const errors = await closeEach(built.reverse());
          if (errors.length > 0) throw new AggregateError(errors, 'agenttool/nest: closing failed');
          return result;
        },
      };
    },
    buildOptions(translated),
  );
  return { tool, origin, close: undefined };
}

/** How a tool is built: an agenttool/di module's with its modules' guards. */
function buildOptions(translated: TranslatedTool | undefined): ToolBuildOptions {
  return translated === undefined ? {} : translated.options();
}

/** `instance.execute` wrapped in Nest's guards and interceptors, as a handler of context type `agenttool`. */
function enhance(
  nest: NestParts,
  instance: ToolInstance,
  cls: Constructor,
  contextId: ContextId | undefined,
  inquirerId: string | undefined,
): (request: unknown, args: object, ctx: ToolContext) => Promise<unknown> {
  return nest.contextCreator.create(
    instance,
    handlerOf(cls),
    'execute',
    undefined,
    undefined,
    contextId,
    inquirerId,
    ENHANCERS,
    AGENTTOOL_CONTEXT_TYPE,
  );
}

const handlers = new WeakMap<Constructor, (...args: unknown[]) => unknown>();

/**
 * The handler Nest calls with the execution context's arguments `[request, args, ctx]`:
 * it calls `execute(args, ctx)`. It carries the metadata of `execute` (`@UseGuards`,
 * `@SetMetadata`, ...), so `context.getHandler()` reads as the method.
 */
function handlerOf(cls: Constructor): (...args: unknown[]) => unknown {
  let handler = handlers.get(cls);
  if (handler !== undefined) return handler;
  const method = (cls.prototype as Partial<ToolInstance>).execute;
  handler = function (this: ToolInstance, ...args: unknown[]): unknown {
    return this.execute(args[1] as object, args[2] as ToolContext);
  };
  if (typeof method === 'function') {
    for (const key of Reflect.getMetadataKeys(method) as unknown[]) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, method), handler);
    }
  }
  Object.defineProperty(handler, 'name', { value: 'execute' });
  handlers.set(cls, handler);
  return handler;
}
