import { AgentToolError } from '../../../core';

/** How long a task is kept from its creation, by default (1 hour). */
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client is asked to poll a task, by default (1 second). */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;
/** How many tasks one caller (auth subject) holds at most, by default (100). */
export const DEFAULT_MAX_TASKS_PER_SUBJECT = 100;
/** How large a task's result may be, by default (1 MiB of JSON). */
export const DEFAULT_MAX_TASK_RESULT_BYTES = 1024 * 1024;

/**
 * How a server runs calls as MCP tasks (the `io.modelcontextprotocol/tasks` extension,
 * 2026-07-28 clients that take it; the 2025-11-25 experimental tasks, 2025-era
 * sessions; see docs/tasks.md). Every limit is per server instance's store, both wires'
 * tasks alike: in memory by default, in Redis when the server scales out.
 */
export interface TaskOptions {
  /**
   * How long a task is kept from its creation (ms; default 1 hour): a client can poll
   * its result until then. A task whose tool still runs then is stopped (its
   * `ctx.signal` aborts) and dropped. Make it longer than your longest tool runs.
   */
  readonly ttlMs?: number;
  /** How often clients are asked to poll (ms; default 1000). */
  readonly pollIntervalMs?: number;
  /**
   * How many tasks one caller holds at once, at most (default 100): a task counts until
   * its TTL has passed. A caller is counted as the HTTP endpoint's fair shares count
   * them: the auth subject, or without authorization the client address (see
   * `trustProxy`). A call that would make one more is refused with an isError result
   * saying so.
   */
  readonly maxTasksPerSubject?: number;
  /**
   * How large a task's result may be, as JSON (bytes; default 1 MiB). A larger one ends
   * the task `completed` with an isError result saying how large it was.
   */
  readonly maxResultBytes?: number;
}

/** {@link TaskOptions} with every default applied, checked. */
export interface TaskSettings {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly maxTasksPerSubject: number;
  readonly maxResultBytes: number;
}

/** The settings `options` make; throws `INVALID_OPTIONS` naming a value that is no count. */
export function taskSettings(options: TaskOptions = {}): TaskSettings {
  return {
    ttlMs: whole('ttlMs', options.ttlMs, DEFAULT_TASK_TTL_MS),
    pollIntervalMs: whole('pollIntervalMs', options.pollIntervalMs, DEFAULT_TASK_POLL_INTERVAL_MS),
    maxTasksPerSubject: whole(
      'maxTasksPerSubject',
      options.maxTasksPerSubject,
      DEFAULT_MAX_TASKS_PER_SUBJECT,
    ),
    maxResultBytes: whole('maxResultBytes', options.maxResultBytes, DEFAULT_MAX_TASK_RESULT_BYTES),
  };
}

function whole(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: tasks.${name} must be a positive whole number, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
  }
  return value;
}
