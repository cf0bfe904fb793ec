import { AgentToolError } from '../../../core';
import { type TaskRecord } from './wire';

/**
 * Where a server keeps its tasks: in this process's memory by default, in Redis when
 * the server scales out. A task is kept `ttlMs` from its creation, then dropped.
 */
export interface TaskStore {
  /**
   * Stores a new task once it is stored for good (a `tasks/get` finds it). Fails with a
   * {@link TaskLimitError} when its subject already holds `maxTasksPerSubject` tasks.
   */
  create(record: TaskRecord): Promise<void>;
  /** The task `taskId`, or undefined when none is kept (never was, or expired). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Writes the task's new state (a task past its TTL is not written back). */
  put(record: TaskRecord): Promise<void>;
  /** The tasks kept that count against the share `share` (see {@link shareOf}). */
  list(share: string): Promise<TaskRecord[]>;
  /** Stops the store's timers and connections. */
  close(): Promise<void>;
}

/** A store that holds as many tasks of a caller as it may: no new task until one expires. */
export class TaskLimitError extends AgentToolError {
  constructor(record: TaskRecord, limit: number) {
    super(
      'INVALID_OPTIONS',
      `mcp: tasks: ${holderName(shareOf(record))} already holds ${limit} tasks, the most a caller may (the server's tasks.maxTasksPerSubject); a task is kept until its ttlMs has passed, so wait for older tasks to expire, or ask the operator to raise the limit`,
    );
    this.name = 'TaskLimitError';
  }
}

/**
 * The share a task counts against: its caller's over HTTP (the subject, or without
 * authorization the client address), else its subject's.
 */
export function shareOf(record: TaskRecord): string {
  return record.caller ?? `subject:${record.subject}`;
}

function holderName(share: string): string {
  if (share === 'subject:') return 'this caller';
  if (share.startsWith('subject:')) return `subject ${JSON.stringify(share.slice(8))}`;
  if (share.startsWith('address:')) return `client address ${share.slice(8)}`;
  return 'this caller';
}

/** Milliseconds left before `record` expires (0 or less: expired). */
export function msLeft(record: TaskRecord, now = Date.now()): number {
  return Date.parse(record.createdAt) + record.ttlMs - now;
}
