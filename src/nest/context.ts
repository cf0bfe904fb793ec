import { type Constructor, isToolClass, type ToolContext, toolDescriptorOf } from 'agenttool';
import { type ExecutionContext } from '@nestjs/common';

/** What `ExecutionContext.getType()` answers in a guard or interceptor around a tool call. */
export const AGENTTOOL_CONTEXT_TYPE = 'agenttool';

/** The prompt and resource classes served, with what they are served as. */
export const servedNames = new WeakMap<
  Constructor,
  { readonly kind: 'prompt' | 'resource'; readonly name: string }
>();

/**
 * One tool call, prompt get or resource read as a guard or interceptor sees it: what is
 * used (its kind and name), its arguments (the arguments class's instance, already
 * validated), the request's `ToolContext`, and the HTTP request that carried it
 * (Express's or Fastify's request object; undefined when the call came another way,
 * e.g. over stdio).
 */
export interface ToolCallContext {
  /** What is used: a tool's `execute`, a prompt's `get`, or a resource's `read`. */
  readonly kind: 'tool' | 'prompt' | 'resource';
  /** The tool's, prompt's or resource's name, as served. */
  readonly tool: string;
  /**
   * The call's arguments: the instance of the tool's arguments class, of the prompt's
   * `args` class, of the template's `vars` class (or its variables), validated; `{}` for
   * a resource at one URI.
   */
  readonly args: object;
  /** The call's context: its call (`ctx.call.id`), signal, session, `ask`, `record`. */
  readonly ctx: ToolContext;
  /** The HTTP request that carried the call (Express's or Fastify's); undefined over stdio. */
  readonly request: unknown;
  /** The URI read, for a resource template's read; undefined otherwise. */
  readonly uri?: string | undefined;
}

/**
 * The tool call, prompt get or resource read a guard or interceptor runs around, when
 * `context.getType()` is `'agenttool'`; undefined for any other context (an HTTP route,
 * a resolver). The context's arguments are `[request, args, ctx]` (a template's read
 * adds the URI), so `context.switchToHttp().getRequest()` is the HTTP request as in a
 * controller, and guards written for routes work unchanged.
 */
export function toolCallOf(context: ExecutionContext): ToolCallContext | undefined {
  if (context.getType<string>() !== AGENTTOOL_CONTEXT_TYPE) return undefined;
  const [request, args, ctx, uri] = context.getArgs<[unknown, object, ToolContext, unknown]>();
  const cls = context.getClass();
  const served = servedNames.get(cls);
  if (served !== undefined) {
    return {
      kind: served.kind,
      tool: served.name,
      args,
      ctx,
      request,
      ...(typeof uri === 'string' ? { uri } : {}),
    };
  }
  return {
    kind: 'tool',
    tool: isToolClass(cls) ? toolDescriptorOf(cls).name : '',
    args,
    ctx,
    request,
  };
}
