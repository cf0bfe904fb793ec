import { isToolClass, type ToolContext, toolDescriptorOf } from 'agenttool';
import { type ExecutionContext } from '@nestjs/common';

/** What `ExecutionContext.getType()` answers in a guard or interceptor around a tool call. */
export const AGENTTOOL_CONTEXT_TYPE = 'agenttool';

/**
 * One tool call as a guard or interceptor sees it: the tool's name, its arguments (the
 * arguments class's instance, already validated), the call's `ToolContext`, and the
 * HTTP request that carried it (Express's or Fastify's request object; undefined when
 * the call came another way, e.g. over stdio).
 */
export interface ToolCallContext {
  /** The tool's name, as served. */
  readonly tool: string;
  /** The call's arguments: the instance of the tool's arguments class, validated. */
  readonly args: object;
  /** The call's context: its call (`ctx.call.id`), signal, session, `ask`, `record`. */
  readonly ctx: ToolContext;
  /** The HTTP request that carried the call (Express's or Fastify's); undefined over stdio. */
  readonly request: unknown;
}

/**
 * The tool call a guard or interceptor runs around, when `context.getType()` is
 * `'agenttool'`; undefined for any other context (an HTTP route, a resolver). The
 * context's arguments are `[request, args, ctx]`, so `context.switchToHttp().getRequest()`
 * is the HTTP request as in a controller, and guards written for routes work unchanged.
 */
export function toolCallOf(context: ExecutionContext): ToolCallContext | undefined {
  if (context.getType<string>() !== AGENTTOOL_CONTEXT_TYPE) return undefined;
  const [request, args, ctx] = context.getArgs<[unknown, object, ToolContext]>();
  const cls = context.getClass();
  return { tool: isToolClass(cls) ? toolDescriptorOf(cls).name : '', args, ctx, request };
}
