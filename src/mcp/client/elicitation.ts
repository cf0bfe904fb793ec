import {
  type ElicitRequest,
  type ElicitResult,
  McpError,
  ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Answer,
  CANCELLED_ANSWER,
  type Elicitation,
  errorMessage,
  isJsonObject,
  type ToolContext,
} from '../../core';
import { linkedSignal } from './signals';

/** A call in flight, as elicitation routing sees it. */
export interface CallInFlight {
  readonly ctx: ToolContext;
  /** Aborted when the call ends, however it ends. */
  readonly ended: AbortSignal;
}

const CANCEL: ElicitResult = { action: 'cancel' };

/** The question a server's `elicitation/create` puts, in core terms. */
export function elicitationOf(params: ElicitRequest['params']): Elicitation {
  if (params.mode === 'url') return { message: params.message, url: params.url };
  const schema = params.requestedSchema as unknown;
  return isJsonObject(schema) ? { message: params.message, schema } : { message: params.message };
}

/** The core answer as MCP's `ElicitResult`; throws for an answer MCP cannot carry. */
export function elicitResultOf(answer: Answer, form: boolean): ElicitResult {
  switch (answer.action) {
    case 'decline':
    case 'cancel':
      return { action: answer.action };
    case 'accept': {
      if (!form || answer.content === undefined) return { action: 'accept' };
      if (!isJsonObject(answer.content)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `mcp: elicitation answer: content is not an object: ${JSON.stringify(answer.content)}`,
        );
      }
      return { action: 'accept', content: answer.content as ElicitResult['content'] };
    }
    default:
      throw new McpError(
        ErrorCode.InvalidParams,
        `mcp: elicitation answer: unknown action ${JSON.stringify((answer as { action: unknown }).action)}`,
      );
  }
}

/**
 * The handler for a server's `elicitation/create`: the question goes to the elicitor of
 * the one call in flight (its context's `ask`). With no call, or more than one (the
 * question cannot be tied to a call), or no elicitor, the answer is `cancel`; when the
 * call ends or the server withdraws the question first, the answer is `cancel` at once.
 * An elicitor that throws fails the server's request with `mcp: elicitation: <reason>`.
 */
export function elicitationHandler(
  callsInFlight: () => readonly CallInFlight[],
): (request: ElicitRequest, extra: { signal: AbortSignal }) => Promise<ElicitResult> {
  return async (request, extra) => {
    const calls = callsInFlight();
    const only = calls.length === 1 ? calls[0] : undefined;
    if (only === undefined || only.ctx.elicitor === undefined || only.ended.aborted) return CANCEL;
    const linked = linkedSignal(only.ended, extra.signal);
    const signal = linked.signal;
    const ctx = only.ctx.with({ signal });
    const form = request.params.mode !== 'url';
    let stop: (() => void) | undefined;
    const stopped = new Promise<Answer>((resolve) => {
      stop = () => resolve(CANCELLED_ANSWER);
      signal.addEventListener('abort', stop, { once: true });
    });
    let answer: Answer;
    try {
      answer = await Promise.race([ctx.ask(elicitationOf(request.params)), stopped]);
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, `mcp: elicitation: ${errorMessage(error)}`);
    } finally {
      if (stop !== undefined) signal.removeEventListener('abort', stop);
      linked.dispose();
    }
    return elicitResultOf(answer, form);
  };
}
