import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  type ServerNotification,
  type ServerRequest,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Call,
  createContext,
  errorMessage,
  isJsonObject,
  isResult,
  type JsonObject,
  type LogSink,
  outputText,
  PanicError,
  ProgressInfo,
  type RecordFunc,
  type Result,
  runWithContext,
  type Tool,
  toolFailure,
  toResult,
} from '../../core';
import { type ArgumentsCheck } from './arguments';
import { contentOf } from './content';
import { outputSchemaOf } from './definition';
import { elicitorFor } from './elicit';
import { recordMeta } from './record-meta';
import { type ErrorReporter, type McpSession } from './session';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool as the server keeps it: the tool, its compiled arguments check, its definition. */
export interface ServedTool {
  readonly tool: Tool;
  readonly check: ArgumentsCheck;
  readonly definition: McpTool;
}

/** What a call is served with besides the request. */
export interface CallEnvironment {
  readonly session: McpSession;
  readonly capabilities: ClientCapabilities | undefined;
  readonly report: ErrorReporter;
  readonly recorder: RecordFunc | undefined;
}

// Process-wide, as in the Go binding: call ids are `mcp_1`, `mcp_2`, …
let calls = 0;

/**
 * Serves one `tools/call`. Every failure a tool can cause (unknown tool, invalid
 * arguments, a thrown error, a panic-equivalent) is an `isError` result whose one text
 * block is the message once, without an `Error:` prefix: the consumer's harness adds it.
 * A panic-equivalent's stack goes to the error reporter only.
 */
export async function serveCall(
  name: string,
  served: ServedTool | undefined,
  args: Record<string, unknown> | undefined,
  extra: Extra,
  env: CallEnvironment,
): Promise<CallToolResult> {
  if (served === undefined) return failure(`unknown tool ${JSON.stringify(name)}`);
  const value = args ?? {};
  let invalid;
  try {
    invalid = served.check(value);
  } catch (thrown) {
    // A validator that crashes is a fault of ours, reported like a tool's panic.
    const error = toolFailure(served.tool.name, thrown);
    env.report(error.message, error);
    return failure(errorMessage(error));
  }
  if (invalid !== undefined) return failure(invalid.message);

  const pending: Promise<void>[] = [];
  const send = (notification: ServerNotification): void => {
    // Best effort: a notification the client cannot take does not fail the call.
    pending.push(extra.sendNotification(notification).catch(() => undefined));
  };
  let finished = false;
  const token = extra._meta?.progressToken;
  const call = servedCall(
    `mcp_${++calls}`,
    value,
    token === undefined ? undefined : progressForwarder(token, (n) => !finished && send(n)),
  );
  const log: LogSink = (level, data, logger) => {
    if (finished || !env.session.logs(level)) return;
    send({
      method: 'notifications/message',
      params: { level, data, ...(logger === undefined ? {} : { logger }) },
    });
  };
  const ctx = createContext({
    signal: extra.signal,
    call,
    session: env.session,
    elicitor: elicitorFor(env.capabilities, extra),
    recorder: env.recorder,
    log,
  });

  const tool = served.tool;
  let result: CallToolResult;
  try {
    const returned: unknown = await runWithContext(ctx, () => tool.execute(call, ctx));
    result = successOf(tool, isResult(returned) ? returned : toResult(returned));
  } catch (thrown) {
    const error = toolFailure(tool.name, thrown);
    if (error instanceof PanicError) env.report(error.message, error);
    result = failure(errorMessage(error), (error as { details?: unknown }).details);
  } finally {
    finished = true;
  }
  // Progress and log lines go out before the result; most calls send none, and an
  // await of nothing still costs a turn of the microtask queue.
  if (pending.length > 0) await Promise.all(pending);
  return result;
}

/**
 * The call a served tool receives. Flat arguments (every member a string, a finite
 * number, a boolean or null) are handed over decoded as `value`, a frozen copy, with
 * `args` written from it on first read: nothing can change them, so `JSON.parse(args)`
 * equals `value` whenever it is read, and a tool that uses `value` parses nothing.
 * Other arguments are written at once and not handed over decoded, since an arguments
 * instance may share their nested objects and a tool may change those.
 */
function servedCall(
  id: string,
  value: Record<string, unknown>,
  onUpdate: ((update: Result) => void) | undefined,
): Call {
  const flat = flatCopy(value);
  if (flat === undefined) {
    const args = JSON.stringify(value);
    return onUpdate === undefined ? { id, args } : { id, args, onUpdate };
  }
  const call = Object.defineProperty({ id }, 'args', ARGS_FROM_VALUE) as DecodedCall;
  call.value = flat;
  if (onUpdate !== undefined) call.onUpdate = onUpdate;
  return call;
}

type DecodedCall = { -readonly [K in 'value' | 'onUpdate']?: Call[K] } & Pick<Call, 'id' | 'args'>;

// `args` of a call handed over decoded: an own, enumerable getter (a spread copies the
// text) shared by every call, written from the frozen `value` on first read. A getter in
// an object literal would cost a closure and a runtime call per call.
const texts = new WeakMap<object, string>();
const ARGS_FROM_VALUE: PropertyDescriptor = {
  get(this: { readonly value: JsonObject }): string {
    let text = texts.get(this);
    if (text === undefined) {
      text = JSON.stringify(this.value);
      texts.set(this, text);
    }
    return text;
  },
  enumerable: true,
  configurable: true,
};

function flatCopy(value: Record<string, unknown>): JsonObject | undefined {
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) {
    // Assigning `__proto__` would set the prototype, not a member.
    if (key === '__proto__') return undefined;
    const member = value[key];
    if (
      typeof member === 'string' ||
      typeof member === 'boolean' ||
      member === null ||
      (typeof member === 'number' && Number.isFinite(member))
    ) {
      copy[key] = member;
    } else return undefined;
  }
  return Object.freeze(copy);
}

function successOf(tool: Tool, result: Result): CallToolResult {
  const served: CallToolResult = { content: contentOf(result.output) };
  if (outputSchemaOf(tool) !== undefined) {
    const structured = structuredOf(result);
    if (structured === undefined) {
      return failure(
        `mcp: tool ${JSON.stringify(tool.name)} declares an output schema and returned no JSON object`,
        result.details,
      );
    }
    served.structuredContent = structured;
  }
  // Most results carry no details; recordMeta's guard costs a try block per call.
  const meta = result.details === undefined ? undefined : recordMeta(result.details);
  if (meta !== undefined) served._meta = meta;
  return served;
}

function structuredOf(result: Result): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(outputText(result.output));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The result of a call in a session whose `onSession` hook failed. */
export function sessionFailure(error: unknown): CallToolResult {
  return failure(`mcp: session setup failed: ${errorMessage(error)}`);
}

function failure(message: string, details?: unknown): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: message }], isError: true };
  const meta = recordMeta(details);
  if (meta !== undefined) result._meta = meta;
  return result;
}

/**
 * Turns a call's progress updates into `notifications/progress`: progress 1, 2, 3, …
 * with the update's text as the message, or the numbers (and message, when it has
 * one) of a {@link ProgressInfo} in the update's details. A total of 0 is not sent.
 */
function progressForwarder(
  token: string | number,
  send: (notification: ServerNotification) => void,
): (update: Result) => void {
  let count = 0;
  return (update) => {
    count++;
    let progress = count;
    let total: number | undefined;
    let message = outputText(update.output);
    if (update.details instanceof ProgressInfo) {
      progress = update.details.progress;
      if (update.details.total > 0) total = update.details.total;
      if (update.details.message !== '') message = update.details.message;
    }
    send({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === '' ? {} : { message }),
      },
    });
  };
}
