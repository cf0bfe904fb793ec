// Tasks: calls that run as MCP tasks (the 2026-07-28 extension and the 2025-11-25
// experimental tasks), their store in memory, their wire formats and handlers.
export { serveTasks } from './handlers';
export { serveLegacyTasks } from './legacy-handlers';
export { type LegacyChannel } from './legacy-link';
export {
  DEFAULT_MAX_TASK_RESULT_BYTES,
  DEFAULT_MAX_TASKS_PER_SUBJECT,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  type TaskOptions,
} from './options';
export { startTask, taskAfterQuestions } from './start';
export { msLeft, shareOf, TaskLimitError, type TaskStore } from './store';
export { type TaskPlace, Tasks } from './tasks';
export { listenRefusal, type TaskRecord, TASKS_EXTENSION } from './wire';
