import {
  type ElicitRequest,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import {
  AgentToolError,
  type Answer,
  CANCELLED_ANSWER,
  type Elicitation,
  errorMessage,
  isJsonObject,
  markForeignSchema,
  type ToolContext,
} from '../../core';
import { linkedSignal } from '../signals';
import { describedExcerpt, jsonExcerpt, quotedExcerpt } from './excerpts';

/** A call in flight, as elicitation routing sees it. */
export interface CallInFlight {
  readonly ctx: ToolContext;
  /** Aborted when the call ends, however it ends. */
  readonly ended: AbortSignal;
}

/** The question of a server's `elicitation/create`, however it arrived. */
export type ElicitParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** A caller's own answerer of server questions (it wins over routing to the call's elicitor). */
export type ElicitationHandler = (
  request: ElicitRequest,
  extra: { signal: AbortSignal },
) => ElicitResult | Promise<ElicitResult>;

const CANCEL: ElicitResult = { action: 'cancel' };

/** The question a server's `elicitation/create` puts, in core terms. */
export function elicitationOf(params: ElicitParams): Elicitation {
  if (params.mode === 'url') return { message: params.message, url: params.url };
  const schema = params.requestedSchema as unknown;
  // Written by the server: a composition that asks its client checks the answer with
  // guards (see markForeignSchema).
  return isJsonObject(schema)
    ? { message: params.message, schema: markForeignSchema(schema) }
    : { message: params.message };
}

/** The core answer as MCP's `ElicitResult`; throws for an answer MCP cannot carry. */
export function elicitResultOf(answer: Answer, form: boolean): ElicitResult {
  if (!isJsonObject(answer)) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: elicitation answer: expected an object { action, content? }, got ${describedExcerpt(answer)}`,
    );
  }
  switch (answer.action) {
    case 'decline':
    case 'cancel':
      return { action: answer.action };
    case 'accept': {
      // null content is none, as the Go binding's json.Unmarshal reads it.
      const content: unknown = answer.content;
      if (!form || content === undefined || content === null) return { action: 'accept' };
      if (!isJsonObject(answer.content)) {
        throw new AgentToolError(
          'PROTOCOL',
          `mcp: elicitation answer: content is not an object: ${jsonExcerpt(answer.content)}`,
        );
      }
      return { action: 'accept', content: answer.content as ElicitResult['content'] };
    }
    default:
      throw new AgentToolError(
        'PROTOCOL',
        `mcp: elicitation answer: unknown action ${quotedValue((answer as { action: unknown }).action)}`,
      );
  }
}

/**
 * Puts one server question to a call's elicitor (its context's `ask`), answering
 * `cancel` at once when the call ends or `signal` aborts first. An elicitor that throws
 * fails with `mcp: elicitation: <reason>`.
 */
export async function askCall(
  call: CallInFlight,
  params: ElicitParams,
  signal: AbortSignal,
): Promise<ElicitResult> {
  if (call.ctx.elicitor === undefined || call.ended.aborted || signal.aborted) return CANCEL;
  const linked = linkedSignal(call.ended, signal);
  const ctx = call.ctx.with({ signal: linked.signal });
  let stop: (() => void) | undefined;
  const stopped = new Promise<Answer>((resolve) => {
    stop = () => resolve(CANCELLED_ANSWER);
    linked.signal.addEventListener('abort', stop, { once: true });
  });
  let answer: Answer;
  try {
    answer = await Promise.race([ctx.ask(elicitationOf(params)), stopped]);
  } catch (error) {
    throw new AgentToolError('PROTOCOL', `mcp: elicitation: ${errorMessage(error)}`, {
      cause: error,
    });
  } finally {
    if (stop !== undefined) linked.signal.removeEventListener('abort', stop);
    linked.dispose();
  }
  return elicitResultOf(answer, params.mode !== 'url');
}

/**
 * Puts one question a 2026-07-28 server sent back with a call to the caller's own
 * handler, answering `cancel` at once when `signal` (the call's end, or the
 * connection's close) aborts first, as a call's elicitor is. A handler that throws
 * fails with `mcp: elicitation: <reason>`, one whose answer MCP cannot carry with
 * `mcp: elicitation answer: <reason>`, as an elicitor does.
 */
export async function askHandler(
  handler: ElicitationHandler,
  params: ElicitParams,
  signal: AbortSignal,
): Promise<ElicitResult> {
  if (signal.aborted) return CANCEL;
  let stop: () => void = () => undefined;
  const stopped = new Promise<ElicitResult>((resolve) => {
    stop = () => resolve(CANCEL);
    signal.addEventListener('abort', stop, { once: true });
  });
  let result: ElicitResult;
  try {
    result = await Promise.race([
      (async () => handler({ method: 'elicitation/create', params }, { signal }))(),
      stopped,
    ]);
  } catch (error) {
    throw new AgentToolError('PROTOCOL', `mcp: elicitation: ${errorMessage(error)}`, {
      cause: error,
    });
  } finally {
    signal.removeEventListener('abort', stop);
  }
  // Checked as an elicitor's answer is, so the server gets nothing MCP cannot carry.
  return elicitResultOf(result as Answer, params.mode !== 'url');
}

/**
 * The handler for a 2025-era server's `elicitation/create`: the question goes to the
 * elicitor of the call `owner` ties it to (by its `_meta`: the call whose response stream
 * carried it, else the one call in flight; see `RemoteCalls.owner`). With none (no call,
 * several, or one given up lately that the server may still be running: the question
 * cannot be tied to a call, and must not reach another caller's), the answer is `cancel`.
 */
export function elicitationHandler(
  owner: (meta: unknown) => { readonly call: CallInFlight | undefined },
): (request: ElicitRequest, ctx: { mcpReq: { signal: AbortSignal } }) => Promise<ElicitResult> {
  return (request, ctx) => {
    const { call } = owner(request.params._meta);
    if (call === undefined) return Promise.resolve(CANCEL);
    return askCall(call, request.params, ctx.mcpReq.signal);
  };
}

/** A value in a message, cut short: a string quoted as Go's `%q`, anything else as its JSON. */
function quotedValue(value: unknown): string {
  return typeof value === 'string' ? quotedExcerpt(value) : jsonExcerpt(value);
}
