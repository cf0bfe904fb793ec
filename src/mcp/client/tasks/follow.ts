import {
  AgentToolError,
  goQuote,
  isJsonObject,
  type JsonObject,
  ProgressInfo,
  type ToolContext,
} from '../../../core';
import { excerpt, jsonExcerpt } from '../excerpts';

/** The MCP tasks extension's identifier: a client declares it to take tasks. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** JSON-RPC MissingRequiredClientCapability: a failed task carries it as a call would. */
const MISSING_CAPABILITY = -32021;

/** The shortest and longest pause between two polls of a task, whatever the server asks (ms). */
const MIN_POLL_MS = 20;
const MAX_POLL_MS = 10_000;
/** How long a cancel of an abandoned task may take before the call gives up on it (ms). */
const CANCEL_GRACE_MS = 5000;

/** What following a task needs of the connection. */
export interface TaskLine {
  /** Sends one request of the task (`tasks/get`, `tasks/update`, `tasks/cancel`). */
  request(method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject>;
  /** Puts one of the task's questions to whoever answers the call's. */
  answer(request: unknown, signal: AbortSignal): Promise<unknown>;
}

/**
 * Follows a task a server answered a call with, to the call's result: it polls
 * `tasks/get` at the server's `pollIntervalMs`, reports each new status message as the
 * call's progress, puts each new question (`input_required`) to the call's elicitor and
 * sends the answers with `tasks/update`, and resolves with the completed task's result.
 * A failed task is an error saying so; a cancelled one too. When `signal` aborts, or
 * following fails while the task runs on (a question it cannot answer, a request that
 * fails), the task is cancelled (`tasks/cancel`, best effort, bounded) before this
 * rejects. A task not ended within `timeoutMs` (the `callTimeout`; 0 for none) is given
 * up the same way: a server answering each poll with "working" must not hold the call
 * past the bound its caller set.
 */
export async function followTask(
  remote: string,
  created: JsonObject,
  ctx: ToolContext,
  line: TaskLine,
  signal: AbortSignal,
  timeoutMs = 0,
): Promise<JsonObject> {
  const taskId = created.taskId;
  if (typeof taskId !== 'string' || taskId === '') {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: call ${goQuote(remote)}: the server answered with a task without a taskId`,
    );
  }
  const expired = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  try {
    return await follow(
      remote,
      created,
      ctx,
      line,
      expired === undefined ? signal : AbortSignal.any([signal, expired]),
    );
  } catch (error) {
    if (expired?.aborted !== true || signal.aborted) throw error;
    throw new AgentToolError(
      'TIMEOUT',
      `mcp: call ${goQuote(remote)}: the task did not end within ${timeoutMs} ms (the callTimeout option); it was cancelled`,
      { cause: error },
    );
  }
}

async function follow(
  remote: string,
  created: JsonObject,
  ctx: ToolContext,
  line: TaskLine,
  signal: AbortSignal,
): Promise<JsonObject> {
  const taskId = created.taskId as string;
  let message: unknown;
  let task = created;
  let final = false;
  try {
    for (let polls = 0; ; polls++) {
      if (polls > 0) await pause(pollMs(task), signal);
      task = await line.request('tasks/get', { taskId }, signal);
      if (typeof task.statusMessage === 'string' && task.statusMessage !== message) {
        message = task.statusMessage;
        ctx.progress(new ProgressInfo(polls + 1, 0, task.statusMessage));
      }
      final =
        task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
      switch (task.status) {
        case 'completed':
          return resultOf(remote, task);
        case 'failed':
          throw new AgentToolError(
            'PROTOCOL',
            `mcp: call ${goQuote(remote)}: the task failed: ${errorText(task)}`,
          );
        case 'cancelled':
          throw new AgentToolError(
            'CANCELLED',
            `mcp: call ${goQuote(remote)}: the server cancelled the task`,
          );
        case 'input_required':
          await answerOpen(task, line, taskId, signal);
          break;
        default:
          break;
      }
    }
  } catch (error) {
    // A call given up (aborted, or failed while the task runs on: an answer it could not
    // give, a request that failed) cancels its task, rather than leave it to its TTL.
    if (!final) await cancel(line, taskId);
    throw error;
  }
}

/**
 * Answers the task's open requests, all at once, in one `tasks/update`. Each is one not
 * answered before: an update takes the keys it answers off the task's open requests
 * before it is acknowledged, so a key open on a later poll is a new request (a tool may
 * ask again under the same key of its own, `user_name`).
 */
async function answerOpen(
  task: JsonObject,
  line: TaskLine,
  taskId: string,
  signal: AbortSignal,
): Promise<void> {
  const requests = isJsonObject(task.inputRequests) ? Object.entries(task.inputRequests) : [];
  if (requests.length === 0) return;
  const answers = await Promise.all(
    requests.map(async ([key, request]) => [key, await line.answer(request, signal)] as const),
  );
  await line.request(
    'tasks/update',
    { taskId, inputResponses: Object.fromEntries(answers) as JsonObject },
    signal,
  );
}

async function cancel(line: TaskLine, taskId: string): Promise<void> {
  try {
    await line.request('tasks/cancel', { taskId }, AbortSignal.timeout(CANCEL_GRACE_MS));
  } catch {
    // The call ends either way; a task not cancelled expires at its TTL.
  }
}

function resultOf(remote: string, task: JsonObject): JsonObject {
  const result = task.result;
  if (!isJsonObject(result)) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: call ${goQuote(remote)}: the completed task carries no result`,
    );
  }
  const { resultType: _complete, ...rest } = result;
  return rest;
}

/** Why a task failed, as the server says it: cut at 8 KiB, what it sent cut short (see excerpts.ts). */
function errorText(task: JsonObject): string {
  const error = task.error;
  if (isJsonObject(error) && error.code === MISSING_CAPABILITY && isJsonObject(error.data)) {
    // As a plain call's -32021 reads: what the connection would have to declare.
    const needed = jsonExcerpt(error.data.requiredCapabilities ?? {});
    const said = typeof error.message === 'string' ? excerpt(error.message) : 'no reason given';
    return `the server needs a client capability this connection does not declare, ${needed} (connectMcp's elicitation, sampling and roots options declare them): ${said} (${MISSING_CAPABILITY})`;
  }
  if (isJsonObject(error) && typeof error.message === 'string') {
    const said = excerpt(error.message);
    return typeof error.code === 'number' ? `${said} (${error.code})` : said;
  }
  return typeof task.statusMessage === 'string' ? excerpt(task.statusMessage) : 'no reason given';
}

function pollMs(task: JsonObject): number {
  const asked = task.pollIntervalMs;
  const ms = typeof asked === 'number' && Number.isFinite(asked) ? asked : 1000;
  return Math.min(Math.max(ms, MIN_POLL_MS), MAX_POLL_MS);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Where a task a server answered a call with rides to the call, inside a result the
 * SDK's client takes: the SDK's `Client` refuses `resultType: "task"` (only `complete`
 * and `input_required` are its results), so {@link acceptTaskResults} turns such an
 * answer into an empty complete result carrying the task here.
 */
export const TASK_RESULT_META_KEY = 'io.github.christopherdavenport.agenttool/task';

/**
 * Lets the SDK client on `transport` (connected already) take a task as a call's answer:
 * each response whose result is a `CreateTaskResult` reaches the client as an empty
 * complete result with the task under `_meta[TASK_RESULT_META_KEY]`, which the call
 * then follows (see {@link followTask}). Every other message passes unchanged.
 */
export function acceptTaskResults(transport: {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}): void {
  const inner = transport.onmessage as ((message: unknown, extra?: unknown) => void) | undefined;
  if (inner === undefined) return;
  transport.onmessage = (message: unknown, extra?: unknown) => inner(carryTask(message), extra);
}

function carryTask(message: unknown): unknown {
  if (!isJsonObject(message) || !isJsonObject(message.result)) return message;
  if (message.result.resultType !== 'task') return message;
  return {
    ...message,
    result: {
      resultType: 'complete',
      content: [],
      _meta: { [TASK_RESULT_META_KEY]: message.result },
    },
  };
}

/** The task a call's answer carries (see {@link acceptTaskResults}), if it is one. */
export function carriedTask(result: JsonObject): JsonObject | undefined {
  const meta = result._meta;
  const task = isJsonObject(meta) ? meta[TASK_RESULT_META_KEY] : undefined;
  return isJsonObject(task) ? task : undefined;
}
