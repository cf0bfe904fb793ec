import { type CallToolResult, type InputRequests } from '@modelcontextprotocol/server';
import { isJsonObject, type JsonObject } from '../../../core';

/** The MCP tasks extension's identifier (SEP-2663), under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The `_meta` key naming the task a 2025-11-25 message belongs to: on the requests a
 * task makes of its client and on `tasks/result`; never on a 2026-07-28 inlined result.
 */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/**
 * The wire a task was made on: `legacy` for the 2025-11-25 experimental tasks
 * (`capabilities.tasks`), `modern` for the 2026-07-28 extension. Each wire sees its own
 * tasks only.
 */
export type TaskEra = 'legacy' | 'modern';

/** The status of a task: `working` and `input_required` go on, the others are final. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The JSON-RPC error a `failed` task carries. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * One task as a store keeps it: what `tasks/get` answers, the caller it belongs to and
 * the instance running it. Plain JSON, so a store may keep it anywhere.
 */
export interface TaskRecord {
  readonly taskId: string;
  /** The auth subject that created the task ("" for a caller without credentials). */
  readonly subject: string;
  /**
   * The caller whose share of tasks the task counts against, over HTTP (as the
   * endpoint's fair shares count callers): `subject:<subject>`, or without authorization
   * `address:<client address>`. Absent elsewhere (stdio): the subject's share.
   */
  readonly caller?: string;
  /** The tool the task runs. */
  readonly tool: string;
  /** The wire the task was made on; absent: `modern` (2026-07-28). */
  readonly era?: 'legacy';
  /** The instance running the task ("" when the server does not scale out). */
  readonly owner: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** How long the task is kept from its creation (ms). */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** The questions open while `input_required`. */
  readonly inputRequests?: InputRequests;
  /** The tool's result once `completed`. */
  readonly result?: JsonObject;
  /** The JSON-RPC error once `failed`. */
  readonly error?: TaskError;
}

/** The wire `record` was made on. */
export function eraOf(record: TaskRecord): TaskEra {
  return record.era ?? 'modern';
}

/** True for a status no task leaves. */
export function isFinal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The task's fields every answer about it carries (SEP-2663 `Task`). */
function taskFields(record: TaskRecord): JsonObject {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/**
 * The `CreateTaskResult` a `tools/call` answers with (`resultType: "task"`): the task's
 * fields, flat, and nothing of its outcome. Typed as the call's result, which is what it
 * stands for on the wire (the SDK adds the empty `content` every tool result carries).
 */
export function createTaskResult(record: TaskRecord): CallToolResult {
  return { resultType: 'task', ...taskFields(record) } as unknown as CallToolResult;
}

/** The `tasks/get` answer: the task with its open questions, its result or its error inlined. */
export function detailedTask(record: TaskRecord): JsonObject {
  const detail = taskFields(record);
  if (record.status === 'input_required' && record.inputRequests !== undefined) {
    detail.inputRequests = record.inputRequests as unknown as JsonObject;
  }
  if (record.status === 'completed' && record.result !== undefined) detail.result = record.result;
  if (record.status === 'failed' && record.error !== undefined) {
    detail.error = record.error as unknown as JsonObject;
  }
  return detail;
}

/** The `_meta` key a 2026-07-28 request declares its client's capabilities under. */
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** The `_meta` key naming a 2026-07-28 request's protocol version. */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * The JSON-RPC error a 2026-07-28 `subscriptions/listen` gets when it asks for task
 * notifications (`notifications.taskIds`) without declaring the tasks extension in its
 * client capabilities: -32021 naming the extension, as the spec says it must. Undefined
 * for any other message, which is served as it is. A listen that declares the extension
 * is acknowledged without `taskIds` (the SDK's listen router honors no task filter):
 * this server sends no `notifications/tasks`, which the spec allows, and clients poll.
 */
export function listenRefusal(message: unknown): JsonObject | undefined {
  if (!isJsonObject(message) || message.method !== 'subscriptions/listen') return undefined;
  const params = message.params;
  if (!isJsonObject(params) || !isJsonObject(params.notifications)) return undefined;
  if (params.notifications.taskIds === undefined) return undefined;
  const meta = params._meta;
  if (!isJsonObject(meta) || !(PROTOCOL_VERSION_META_KEY in meta)) return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  const extensions = isJsonObject(capabilities) ? capabilities.extensions : undefined;
  if (isJsonObject(extensions) && extensions[TASKS_EXTENSION] !== undefined) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32021,
      message: `mcp: tasks: notifications.taskIds asks for task notifications, and this request does not declare the ${TASKS_EXTENSION} extension in its client capabilities (_meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions)`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    },
  };
}
