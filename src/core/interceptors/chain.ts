import { type Constructor } from '../constructor';
import { type Call, type ToolContext } from '../context';
import { runWithContext } from '../current-context';
import { AgentToolError, toolFailure } from '../errors';
import { goQuote } from '../quote';
import { isResult, type Result, toResult } from '../result';
import { type Tool } from '../tool';

/** What `ToolExecutionContext.resolve` takes besides the token. */
export interface ResolveOptions {
  /** Resolve to `undefined` when nothing provides the token, instead of failing. */
  readonly optional?: boolean | undefined;
}

/**
 * Finds a provider of the app for an interceptor: `token` as the module that lists the
 * interceptor sees it, built in the scope of `ctx` (its session's, for a session-scoped
 * provider). Made by the host that builds the tool (a `ToolApp`).
 */
export type ProviderResolver = (
  token: unknown,
  ctx: ToolContext,
  options: ResolveOptions,
) => Promise<unknown>;

/**
 * One call as an interceptor sees it (NestJS's `ExecutionContext`, for a tool call): the
 * tool, the call, its validated arguments, the call's context, and the app's providers.
 */
export interface ToolExecutionContext {
  /**
   * The tool called: its definition (`name`, `description`, `parameters`) and its
   * properties, read through the readers (`annotationsOf(context.tool)?.readOnly`, ...).
   */
  readonly tool: Tool;
  /**
   * The `@Tool` class the tool was made from (NestJS's `getClass()`); undefined for
   * another tool (a remote server's, in an app).
   */
  readonly toolClass: Constructor | undefined;
  /** The call: its id and its arguments as the model wrote them (`call.args`, `call.value`). */
  readonly call: Call;
  /**
   * The arguments as the tool receives them, validated already: the instance of its
   * arguments class (the decoded object for a tool without one). Shared with the tool.
   * For a tool without a class that validates its own arguments after the chain (a
   * remote server's tool in an app), the arguments as the model wrote them, decoded.
   */
  readonly args: unknown;
  /**
   * The call's context: its signal (cancellation), the caller (`auth`, `session`), and
   * `progress`, `record`, `ask`. An interceptor that hands `next.handle(ctx)` a context
   * of its own (`ctx.with({ ... })`) runs the rest of the chain and the tool with it.
   */
  readonly ctx: ToolContext;
  /**
   * A provider of the app, as the module that lists this interceptor sees it (the root
   * module for the app's own interceptors), in the call's session when it is
   * session-scoped: NestJS's `moduleRef`. Fails with `MISSING_PROVIDER` when nothing
   * provides it (undefined with `{ optional: true }`), and for a tool outside an app.
   */
  resolve<T>(token: Constructor<T>, options?: ResolveOptions): Promise<T>;
  /** An `InjectionToken<T>` of `agenttool/di` (whose phantom member carries `T`). */
  resolve<T>(token: { readonly __type?: T }, options?: ResolveOptions): Promise<T>;
  /** A string or symbol token; `T` says what the caller expects it to be. */
  resolve<T = unknown>(token: string | symbol, options?: ResolveOptions): Promise<T>;
}

/** The rest of the chain and the tool (NestJS's `CallHandler`). */
export interface CallHandler {
  /**
   * Runs the interceptors after this one, then the tool, and gives the tool's result
   * (a programming fault of the tool as its `PanicError`). With `ctx`, they run with
   * that context instead, as the current context too (e.g. one whose signal is aborted
   * sooner). May be called again (a retry), or not at all (a cached result).
   */
  handle(ctx?: ToolContext): Promise<Result>;
}

/**
 * Runs around a tool's calls, as a NestJS interceptor runs around a route handler: it
 * may act before and after `next.handle()`, change or replace its result, or throw
 * instead. What it throws fails the call like a tool's own error (`Error: <message>`
 * once to the model; a programming fault as the tool's panic). It returns a promise
 * (NestJS's return an Observable) of a `Result`; anything else it returns is converted
 * as a tool's return value is (`toResult`), but `undefined`, which is a fault.
 */
export interface Interceptor {
  /** Runs around one call: `next.handle()` is the rest; what this resolves to is the call's result. */
  intercept(context: ToolExecutionContext, next: CallHandler): Result | Promise<Result>;
}

/** An interceptor as a function. */
export type InterceptorFunction = (
  context: ToolExecutionContext,
  next: CallHandler,
) => Result | Promise<Result>;

/** What {@link runInterceptors} runs a call with, besides the interceptors. */
export interface InterceptedCall {
  /** The tool called (`context.tool`). */
  readonly tool: Tool;
  /** Its `@Tool` class, when it has one (`context.toolClass`). */
  readonly toolClass?: Constructor | undefined;
  /** The call (`context.call`). */
  readonly call: Call;
  /** The arguments as the tool receives them, validated unless the tool validates them itself (`context.args`). */
  readonly args: unknown;
  /** The call's context (`context.ctx`), current while the chain runs. */
  readonly ctx: ToolContext;
  /** How `context.resolve` finds providers; without one it fails (the tool is outside an app). */
  readonly resolve?: ProviderResolver | undefined;
}

/**
 * An interceptor whose `context.resolve` finds providers through `resolve` (the module
 * that lists it), whatever the tool's own: how an app binds a module's interceptors.
 */
export function withResolver(
  interceptor: Interceptor | InterceptorFunction,
  resolve: ProviderResolver,
): Interceptor {
  const target = asInterceptor(interceptor);
  const intercept: InterceptorFunction = (context, next) =>
    target.intercept(
      context instanceof ExecutionContext ? context.withResolver(resolve) : context,
      next,
    );
  // Errors name the interceptor bound, not the binding.
  Object.defineProperty(intercept, 'name', { value: interceptorName(interceptor) });
  return { intercept };
}

/**
 * Runs `call` through `interceptors` in order (the first outermost), then `handler`
 * (the tool), with the call's context current. Results come back in reverse order.
 * Each interceptor's return value is converted as a tool's is; `undefined` is a fault
 * (a `TypeError` naming the interceptor). The handler's programming faults reach the
 * interceptors as the tool's `PanicError`; what an interceptor throws is left as it is,
 * for the host to convert once (a `@Tool` class's tool does).
 */
export function runInterceptors(
  interceptors: readonly (Interceptor | InterceptorFunction)[],
  call: InterceptedCall,
  handler: (ctx: ToolContext) => unknown,
): Promise<Result> {
  const chain = interceptors.map(asInterceptor);
  const name = call.tool.name;
  const inner = async (ctx: ToolContext): Promise<Result> => {
    try {
      const returned = await handler(ctx);
      return isResult(returned) ? returned : toResult(returned);
    } catch (error) {
      throw toolFailure(name, error);
    }
  };
  const step = async (i: number, context: ExecutionContext): Promise<Result> => {
    const interceptor = chain[i];
    if (interceptor === undefined) return inner(context.ctx);
    const next: CallHandler = {
      handle: (ctx) => {
        if (ctx === undefined || ctx === context.ctx) return step(i + 1, context);
        const changed = context.withContext(ctx);
        return runWithContext(ctx, () => step(i + 1, changed));
      },
    };
    const returned: unknown = await interceptor.intercept(context, next);
    if (returned === undefined) {
      throw new TypeError(
        `interceptor ${interceptorName(interceptors[i])} of tool ${goQuote(name)} returned undefined; return the result of next.handle() (or a Result of its own)`,
      );
    }
    return isResult(returned) ? returned : toResult(returned);
  };
  return step(0, new ExecutionContext(call, call.ctx, call.resolve));
}

/** An interceptor object for an interceptor or a function. */
function asInterceptor(interceptor: Interceptor | InterceptorFunction): Interceptor {
  return typeof interceptor === 'function' ? { intercept: interceptor } : interceptor;
}

/** What errors call an interceptor: its class's or function's name. */
export function interceptorName(interceptor: unknown): string {
  if (typeof interceptor === 'function') return interceptor.name || 'function';
  if (typeof interceptor === 'object' && interceptor !== null) {
    const name = (interceptor.constructor as { name?: unknown } | undefined)?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Object') return name;
    // A plain object: its function's name, when it has one.
    const own = (interceptor as { intercept?: { name?: unknown } }).intercept?.name;
    return typeof own === 'string' && own !== '' && own !== 'intercept' ? own : 'object';
  }
  return typeof interceptor;
}

/** The context each interceptor of one call gets; a copy for a changed context or resolver. */
class ExecutionContext implements ToolExecutionContext {
  readonly tool: Tool;
  readonly toolClass: Constructor | undefined;
  readonly call: Call;
  readonly args: unknown;
  readonly #resolver: ProviderResolver | undefined;

  constructor(
    parts: Omit<InterceptedCall, 'ctx' | 'resolve'>,
    readonly ctx: ToolContext,
    resolver: ProviderResolver | undefined,
  ) {
    this.tool = parts.tool;
    this.toolClass = parts.toolClass;
    this.call = parts.call;
    this.args = parts.args;
    this.#resolver = resolver;
  }

  withContext(ctx: ToolContext): ExecutionContext {
    return new ExecutionContext(this, ctx, this.#resolver);
  }

  withResolver(resolver: ProviderResolver): ExecutionContext {
    return new ExecutionContext(this, this.ctx, resolver);
  }

  resolve<T>(token: unknown, options: ResolveOptions = {}): Promise<T> {
    if (this.#resolver === undefined) {
      if (options.optional === true) return Promise.resolve(undefined as T);
      return Promise.reject(
        new AgentToolError(
          'MISSING_PROVIDER',
          `tool ${goQuote(this.tool.name)}: an interceptor asked for ${tokenText(token)}, but the tool is not part of an app; serve it from a ToolApp, or give the interceptor what it needs`,
        ),
      );
    }
    return this.#resolver(token, this.ctx, options) as Promise<T>;
  }
}

function tokenText(token: unknown): string {
  if (typeof token === 'function') return token.name || 'a class';
  if (typeof token === 'string') return JSON.stringify(token);
  if (typeof token === 'symbol') return token.toString();
  return String(token);
}
