import { AsyncLocalStorage } from 'node:async_hooks';
import { AgentToolError, type Constructor, type Session, type ToolContext } from 'agenttool';
import { HttpException } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, PIPES_METADATA } from '@nestjs/common/constants';
import {
  ContextIdFactory,
  type DiscoveryService,
  type ExternalContextCreator,
  ModuleRef,
  type NestContainer,
} from '@nestjs/core';
import { REQUEST_CONTEXT_ID } from '@nestjs/core/router/request/request-constants.js';
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

/**
 * The context id of the call running, which `ContextIdFactory.getByRequest(request)`
 * gives back inside it (see `exposeContextId`).
 */
const callContextIds = new AsyncLocalStorage<ContextId>();

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

/** A served provider's origin, with the Nest module it comes from: for the duplicate check. */
export interface ServedOrigin {
  /** `Module.Class`. */
  readonly origin: string;
  /** The Nest module that provides it: two instances of one dynamic module share a name. */
  readonly host?: Provider['host'] | undefined;
}

/**
 * The error for two providers serving one `what` (`tool "greet"`): both named, and how
 * to fix it. Two instances of one dynamic module (imported twice with different options)
 * have one name: each is told by the modules that import it.
 */
export function servedTwice(
  nest: NestParts,
  what: string,
  first: ServedOrigin,
  second: ServedOrigin,
): AgentToolError {
  if (first.origin !== second.origin || first.host === second.host) {
    return new AgentToolError(
      'INVALID_TOOL_SET',
      `agenttool/nest: two providers serve the ${what}: ${first.origin} and ${second.origin}; provide the class in one module (and export it where it is needed), or serve only some modules with the include option`,
    );
  }
  const name = first.host?.name ?? 'unknown module';
  return new AgentToolError(
    'INVALID_TOOL_SET',
    `agenttool/nest: two providers serve the ${what}: ${first.origin}, in two instances of the dynamic module ${name} (${importedBy(nest, first.host)}, and ${importedBy(nest, second.host)}), made by importing it with different options; provide the class in a module imported once (and export it where it is needed), or import ${name} once`,
  );
}

/** Which modules import `module`, for a message: `the one imported by A and B`. */
function importedBy(nest: NestParts, module: Provider['host']): string {
  const container = (nest.moduleRef as unknown as { readonly container?: NestContainer }).container;
  const importers = [...(container?.getModules().values() ?? [])]
    .filter((other) => module !== null && module !== undefined && other.imports.has(module))
    .map((other) => other.name);
  return importers.length === 0
    ? 'one imported by no module'
    : `the one imported by ${importers.join(' and ')}`;
}

/** The served classes warned about already. */
const warned = new WeakSet<Constructor>();

/**
 * Warns, once per class, that the pipes and exception filters put on a served class or
 * on its `method` (`@UsePipes`, `@UseFilters`) do not run around its calls: arguments are
 * validated by the contract, and a failure is the call's result as it is thrown, so a
 * filter meant to hide a failure's details would hide nothing.
 */
export function warnPipesAndFilters(cls: Constructor, method: string, origin: string): void {
  if (warned.has(cls)) return;
  const own = (cls.prototype as Record<string, unknown>)[method];
  const targets: object[] = typeof own === 'function' ? [cls, own] : [cls];
  const put = (key: string): boolean =>
    targets.some((target) => {
      const listed: unknown = Reflect.getMetadata(key, target);
      return Array.isArray(listed) && listed.length > 0;
    });
  const unused = [
    ...(put(PIPES_METADATA) ? ['@UsePipes'] : []),
    ...(put(EXCEPTION_FILTERS_METADATA) ? ['@UseFilters'] : []),
  ];
  if (unused.length === 0) return;
  warned.add(cls);
  process.emitWarning(
    `agenttool/nest: ${origin} has ${unused.join(' and ')}, which do not run around its ${method} calls: only guards and interceptors do (arguments are validated by the tool's contract; a failure is the call's error result as thrown)`,
    { type: 'AgentToolWarning', code: 'AGENTTOOL_NEST_NOT_RUN' },
  );
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
 * request registered for injection (merged with a `ContextIdStrategy`'s payload unless
 * `durable`, as the router merges it), and the global request-scoped enhancers built in
 * it (their constructors run with the request injected) before the guards are gathered.
 * Run what uses it in {@link inCallContext}, so that `ContextIdFactory.getByRequest`
 * gives it back.
 */
export async function callContext(
  nest: NestParts,
  scoped: readonly ScopedEnhancer[],
  request: object | undefined,
  session: Session,
  durable = false,
): Promise<ContextId> {
  const contextId =
    request === undefined ? ContextIdFactory.create() : ContextIdFactory.getByRequest(request);
  attachSession(contextId, session);
  if (request !== undefined) {
    exposeContextId(request);
    const payload = (contextId as { payload?: unknown }).payload;
    if (!durable && typeof payload === 'object' && payload !== null) {
      Object.assign(request, payload);
    }
    nest.moduleRef.registerRequestByContextId(request, contextId);
  }
  await Promise.all(
    scoped.map((enhancer) =>
      inCallContext(contextId, () =>
        nest.moduleRef.resolve(enhancer.token as string, contextId, { strict: false }),
      ),
    ),
  );
  return contextId;
}

/**
 * Runs `fn` as part of the call of `contextId`: `ContextIdFactory.getByRequest(request)`
 * in it (Nest's way to resolve a request-scoped provider with `ModuleRef.resolve`) gives
 * that context id, where the request's `REQUEST` and the call's instances are.
 */
export function inCallContext<T>(contextId: ContextId | undefined, fn: () => T): T {
  return contextId === undefined ? fn() : callContextIds.run(contextId, fn);
}

/**
 * Has `request` tell Nest the context id of the call running, as Nest's router marks a
 * request with its context id: without it `ContextIdFactory.getByRequest(request)` in a
 * call would make a new one, without the call's `REQUEST` or instances. The router keeps
 * one id per request; here each call has its own (a request may carry a batch of them),
 * so the mark is a getter of the running call's. A mark already there (a request-scoped
 * middleware's) stays: its id is every call's then.
 */
function exposeContextId(request: object): void {
  if (Object.getOwnPropertyDescriptor(request, REQUEST_CONTEXT_ID) !== undefined) return;
  Object.defineProperty(request, REQUEST_CONTEXT_ID, {
    get: () => callContextIds.getStore(),
    enumerable: false,
    // Nest's router or middleware, finding no id here outside a call, may define its own.
    configurable: true,
  });
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
    const durable = provider.isDependencyTreeDurable();
    const contextId = await callContext(nest, scoped, request, session, durable);
    // What an agenttool/di module builds for this call is closed when the call ends;
    // what it builds for the call's session, when the session ends.
    const built: object[] = [];
    const resolving = callBuilds.run({ session, made: built }, () =>
      inCallContext(contextId, () =>
        hostRef.resolve<T>(provider.token as Constructor, contextId, { strict: true }),
      ),
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
 * wrapped in Nest's guards and interceptors, as a handler of context type `agenttool`,
 * run in the call of `contextId` (see {@link inCallContext}). An `HttpException` whose
 * response lists its messages (`new BadRequestException(['a', 'b'])`) fails with them.
 */
export function enhance(
  nest: NestParts,
  instance: object,
  handler: (...args: unknown[]) => unknown,
  contextId: ContextId | undefined,
  inquirerId: string | undefined,
): (...args: unknown[]) => Promise<unknown> {
  const enhanced = nest.contextCreator.create(
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
  return async (...args) => {
    try {
      return (await inCallContext(contextId, () => enhanced(...args))) as unknown;
    } catch (error) {
      throw listedMessages(error);
    }
  };
}

/**
 * `error`, or, for an `HttpException` whose response lists its messages (what Nest's
 * exception filter would send as `message: [...]`), an error with them all: its own
 * message is then the class's title (`Bad Request Exception`), which says nothing.
 */
function listedMessages(error: unknown): unknown {
  if (!(error instanceof HttpException)) return error;
  const response: unknown = error.getResponse();
  const listed =
    typeof response === 'object' && response !== null
      ? (response as { message?: unknown }).message
      : undefined;
  if (!Array.isArray(listed) || listed.length === 0) return error;
  return new Error(listed.map(String).join('; '), { cause: error });
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
