import { type JsonObject } from '../../../core';
import { RELATED_TASK_META_KEY, type TaskRecord } from './wire';

/**
 * The `tasks` capability a server declares in its 2025-era `initialize` answer
 * (2025-11-25 experimental tasks): task-augmented `tools/call`, `tasks/cancel`, and
 * `tasks/list` when the server can tell its callers apart (`listing`).
 */
export function legacyTasksCapability(listing: boolean): JsonObject {
  return {
    ...(listing ? { list: {} } : {}),
    cancel: {},
    requests: { tools: { call: {} } },
  };
}

/**
 * The 2025-11-25 `Task`: what `tasks/get`, `tasks/cancel`, `tasks/list` and
 * `notifications/tasks/status` carry (`ttl` and `pollInterval` in ms; never the
 * outcome, which `tasks/result` answers).
 */
export function legacyTask(record: TaskRecord): JsonObject {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

/**
 * The 2025-11-25 `CreateTaskResult` a task-augmented `tools/call` answers with: the task
 * under `task`. The SDK checks a `tools/call` answer as a tool result, which needs
 * `content`: an empty one rides along (a result's extra members are allowed).
 */
export function legacyCreateTaskResult(record: TaskRecord): JsonObject {
  return { content: [], task: legacyTask(record) };
}

/** `_meta` with the related-task member naming `taskId` added. */
export function withRelatedTask(meta: unknown, taskId: string): JsonObject {
  const base = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {};
  return { ...(base as JsonObject), [RELATED_TASK_META_KEY]: { taskId } };
}
