import { AsyncLocalStorage } from 'node:async_hooks';
import { AgentToolError, type Constructor, type Session, type ToolContext } from 'agenttool';
import {
  ContextIdFactory,
  type DiscoveryService,
  type ExternalContextCreator,
  ModuleRef,
  type NestContainer,
} from '@nestjs/core';
import { AGENTTOOL_CONTEXT_TYPE } from './context';
import { closeEach } from './session-scope';
import { type TranslatedClass } from './di-module';
import { attachSession, callBuilds } from './sessions';

// What a call of a served class (a tool's execute, a prompt's get, a resource's read)
// needs of Nest: the request it came with, its context id, its per-call instance, and
// Nest's guards and interceptors around the method.

/** A provider as Nest's discovery lists it. */
export type Provider = ReturnType<DiscoveryService['getProviders']>[number];
export type ContextId = Parameters<ModuleRef['resolve']>[1] & object;

/** A global guard or interceptor Nest builds per request (`APP_GUARD` with a request-scoped class). */
export interface ScopedEnhancer {
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

// Guards and interceptors run around each call; exception filters do not (a tool's
// failure is its call's isError result, not an HTTP response).
const ENHANCERS = { guards: true, interceptors: true, filters: false };

/**
 * The providers of the app (of the `include`d modules) as discovery lists them, each
 * with where it came from (`Module.Class`, for messages), aliases left out.
 */
export function providersOf(
  nest: NestParts,
  include: readonly Constructor[] | undefined,
): Provider[] {
  return nest.discovery
    .getProviders(include === undefined ? undefined : { include: [...include] })
    .filter((provider) => !provider.isAlias);
}

/** Where a provider came from: `Module.Class`, for messages. */
export function originOf(provider: Provider, cls: Constructor): string {
  return `${provider.host?.name ?? 'unknown module'}.${cls.name}`;
}

/** True when Nest builds the provider per call: request-scoped, transient, or depending on such. */
export function isPerCall(provider: Provider): boolean {
  return !provider.isDependencyTreeStatic() || provider.isTransient;
}

/**
 * The app's global guards and interceptors that Nest builds per request (an
 * `APP_GUARD` or `APP_INTERCEPTOR` whose class is request-scoped or transient). Nest's
 * context creator finds them only for a call made in a request's context, so a call
 * of a singleton tool gets one too when there are any. Nest offers them only on its
 * application config, which its container holds.
 */
export function scopedGlobalEnhancers(moduleRef: ModuleRef): readonly ScopedEnhancer[] {
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
export async function callContext(
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

/** An instance Nest resolved for one call, with its context and what it built to close. */
export interface CallInstance<T> {
  readonly instance: T;
  readonly contextId: ContextId;
  readonly request: object | undefined;
  /**
   * Closes what an agenttool/di module built for this call (not what it built for the
   * call's session, which the session's end closes); gives back the failures.
   */
  readonly close: () => Promise<unknown[]>;
}

/**
 * Resolves a request-scoped or transient provider for one call, in its own module (as
 * Nest's router does: another module may provide another class under the same token),
 * in the context of the HTTP request that carried the call.
 */
export function perCallResolver<T>(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  provider: Provider,
  cls: Constructor,
  origin: string,
  translated: TranslatedClass | undefined,
): (ctx: ToolContext) => Promise<CallInstance<T>> {
  const hostRef = provider.host?.providers.get(ModuleRef)?.instance as ModuleRef | undefined;
  if (hostRef === undefined) {
    throw new AgentToolError(
      'INTERNAL',
      `agenttool/nest: the module of the request-scoped provider ${origin} cannot be found`,
    );
  }
  return async (ctx) => {
    const request = requests.getStore();
    const session = ctx.session ?? nest.ownSession;
    const contextId = await callContext(nest, scoped, request, session);
    // What an agenttool/di module builds for this call is closed when the call ends;
    // what it builds for the call's session, when the session ends.
    const built: object[] = [];
    const resolving = callBuilds.run({ session, made: built }, () =>
      hostRef.resolve<T>(provider.token as Constructor, contextId, { strict: true }),
    );
    try {
      const instance =
        translated?.home === 'session'
          ? await translated.app.untilSessionEnds(session, resolving, cls.name)
          : await resolving;
      return { instance, contextId, request, close: () => closeEach(built.reverse()) };
    } catch (error) {
      await closeEach(built.reverse());
      throw error;
    }
  };
}

/**
 * `handler` (a function Nest calls on `instance` with the execution context's arguments)
 * wrapped in Nest's guards and interceptors, as a handler of context type `agenttool`.
 */
export function enhance(
  nest: NestParts,
  instance: object,
  handler: (...args: unknown[]) => unknown,
  contextId: ContextId | undefined,
  inquirerId: string | undefined,
): (...args: unknown[]) => Promise<unknown> {
  return nest.contextCreator.create(
    instance,
    handler,
    handler.name,
    undefined,
    undefined,
    contextId,
    inquirerId,
    ENHANCERS,
    AGENTTOOL_CONTEXT_TYPE,
  );
}

/**
 * A handler Nest calls for `method` of `cls`: `call` maps the execution context's
 * arguments to the method's. It carries the method's metadata (`@UseGuards`,
 * `@SetMetadata`, ...) and its name, so `context.getHandler()` reads as the method.
 */
export function methodHandler(
  cls: Constructor,
  method: string,
  call: (instance: object, args: readonly unknown[]) => unknown,
): (...args: unknown[]) => unknown {
  const own = (cls.prototype as Record<string, unknown>)[method];
  const handler = function (this: object, ...args: unknown[]): unknown {
    return call(this, args);
  };
  if (typeof own === 'function') {
    for (const key of Reflect.getMetadataKeys(own) as unknown[]) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, own), handler);
    }
  }
  Object.defineProperty(handler, 'name', { value: method });
  return handler;
}
