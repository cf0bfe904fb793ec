import {
  AgentToolError,
  type Constructor,
  type Interceptor,
  runInterceptors,
  type Tool,
  type ToolBuildOptions,
  type ToolContext,
  toolInterceptors,
} from 'agenttool';
import { methodHandler, type NestParts } from './calls';
import { providerResolver } from './tool-build';

// agenttool's interceptors of a tool served by NestJS: its module's (an agenttool/di
// module through asNestModule) and its class's `@UseInterceptors`, run inside NestJS's
// handler, so NestJS's guards come first and its interceptors (global, then the class's,
// then the method's) around them, as in any NestJS app guards come before interceptors.

/** What a call of a tool's `execute` needs of agenttool's interceptors. */
export interface ToolChain {
  /** The interceptors, in order; empty when the tool has none. */
  readonly interceptors: readonly Interceptor[];
  /** How the tool is built: it runs none of them itself (they run in NestJS's handler). */
  readonly options: ToolBuildOptions;
}

/**
 * The interceptors of `cls` as NestJS serves it: `options` (a translated module's,
 * with theirs) and the class's own, an interceptor class of its own found in NestJS's
 * container (a provider of any module), else built with `new`; `context.resolve`
 * finds providers anywhere in the NestJS app unless the module's options say otherwise.
 */
export function toolChain(nest: NestParts, cls: Constructor, options: ToolBuildOptions): ToolChain {
  const resolved: ToolBuildOptions = {
    resolveInterceptor: (interceptor) => nestInstance(nest, cls, interceptor),
    resolveProvider: providerResolver(() => nest.moduleRef),
    ...options,
  };
  return {
    interceptors: toolInterceptors(cls, resolved),
    options: { ...resolved, intercept: false },
  };
}

/**
 * The handler NestJS calls with the execution context's arguments `[request, args, ctx]`:
 * `execute(args, ctx)` inside `chain`'s interceptors (none: `execute` alone), carrying the
 * metadata of `execute`. `tool` gives the tool made of the class, once it is made.
 */
export function toolHandler(
  cls: Constructor,
  chain: ToolChain,
  tool: () => Tool,
): (...args: unknown[]) => unknown {
  const { interceptors, options } = chain;
  return methodHandler(cls, 'execute', (instance, args) => {
    const target = instance as { execute(args: object, ctx: ToolContext): unknown };
    const validated = args[1] as object;
    const ctx = args[2] as ToolContext;
    if (interceptors.length === 0) return target.execute(validated, ctx);
    return runInterceptors(
      interceptors,
      {
        tool: tool(),
        toolClass: cls,
        call: ctx.call,
        args: validated,
        ctx,
        resolve: options.resolveProvider,
      },
      (current) => target.execute(validated, current),
    );
  });
}

/** An interceptor class NestJS provides, else one built with `new` (it cannot take parameters then). */
function nestInstance(
  nest: NestParts,
  tool: Constructor,
  cls: Constructor<Interceptor>,
): Interceptor {
  try {
    return nest.moduleRef.get(cls, { strict: false });
  } catch {
    if (cls.length === 0) return Reflect.construct(cls, []) as Interceptor;
    throw new AgentToolError(
      'INVALID_DECORATOR',
      `agenttool/nest: ${tool.name}'s interceptor ${cls.name} takes constructor parameters, but no NestJS module provides it; add ${cls.name} to a module's providers`,
    );
  }
}
