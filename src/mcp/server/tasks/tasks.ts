import {
  type ClientCapabilities,
  MissingRequiredClientCapabilityError,
  ProtocolError,
} from '@modelcontextprotocol/server';
import { type StatedTaskSupport, taskSupportOf, type Tool } from '../../../core';
import { randomUuid } from '../../random';
import { type ErrorReporter } from '../session';
import { LocalTask } from './local-task';
import { MemoryTaskStore } from './memory-store';
import { type TaskOptions, type TaskSettings, taskSettings } from './options';
import { type TaskStore } from './store';
import { detailedTask, isFinal, TASKS_EXTENSION, type TaskRecord } from './wire';

/** JSON-RPC "Invalid params": what a task id that names no task of the caller gets. */
const INVALID_PARAMS = -32602;

/** Where a server's tasks live and how it tells whether another instance still runs. */
export interface TaskPlace {
  /** This instance's name among its peers ("" alone). */
  readonly owner: string;
  /** The store (in Redis when the server scales out), holding `maxTasksPerSubject` per caller. */
  store(maxTasksPerSubject: number): Promise<TaskStore>;
  /** True while the instance `owner` is up (always true alone). */
  alive(owner: string): Promise<boolean>;
}

/** What a new task is made of. */
export interface TaskStart {
  readonly tool: string;
  readonly subject: string;
  /** The caller whose share the task counts against over HTTP (see `TaskRecord.caller`). */
  readonly caller: string | undefined;
  readonly abort: (reason: unknown) => void;
  /** The client capabilities of the request that makes the task (what its tool may ask). */
  readonly capabilities: ClientCapabilities | undefined;
}

/**
 * The tasks of one server: which calls become tasks, the tasks whose tools run here, and
 * the answers to `tasks/get`, `tasks/update` and `tasks/cancel` for any task in the
 * store. A task belongs to the subject that created it: to anyone else it does not exist.
 */
export class Tasks {
  readonly settings: TaskSettings;
  readonly #place: TaskPlace;
  #store: Promise<TaskStore> | undefined;
  readonly #report: ErrorReporter;
  readonly #local = new Map<string, LocalTask>();
  #stopped: string | undefined;

  constructor(options: TaskOptions | undefined, report: ErrorReporter, place?: TaskPlace) {
    this.settings = taskSettings(options);
    this.#report = report;
    if (place !== undefined) {
      this.#place = place;
    } else {
      const memory = new MemoryTaskStore(this.settings.maxTasksPerSubject);
      this.#place = {
        owner: '',
        store: () => Promise.resolve(memory),
        alive: () => Promise.resolve(true),
      };
    }
  }

  /**
   * How a 2026-07-28 call of `tool` runs for a client declaring `capabilities`: as a task
   * (its declaration), or not at all a task (undefined). A tool that requires a task,
   * called by a client that takes none, is refused with -32021 naming the extension.
   */
  plan(tool: Tool, capabilities: ClientCapabilities | undefined): StatedTaskSupport | undefined {
    const support = taskSupportOf(tool);
    if (support.mode === 'never') return undefined;
    if (takesTasks(capabilities)) return support;
    if (support.mode === 'optional') return undefined;
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `mcp: tool ${JSON.stringify(tool.name)} runs only as a task, and this request does not declare the ${TASKS_EXTENSION} extension in its client capabilities`,
    );
  }

  /**
   * Creates a task, stored for good before this resolves (a `tasks/get` finds it), whose
   * tool runs here. Fails with `TaskLimitError` when its caller holds too many.
   */
  async create(start: TaskStart): Promise<LocalTask> {
    if (this.#stopped !== undefined) throw new Error(this.#stopped);
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: randomUuid(),
      subject: start.subject,
      ...(start.caller === undefined ? {} : { caller: start.caller }),
      tool: start.tool,
      owner: this.#place.owner,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.settings.ttlMs,
      pollIntervalMs: this.settings.pollIntervalMs,
    };
    const store = await this.#storeOf();
    await store.create(record);
    const task = new LocalTask({
      record,
      store,
      settings: this.settings,
      report: this.#report,
      abort: start.abort,
      capabilities: start.capabilities,
    });
    this.#local.set(record.taskId, task);
    // Kept here until its final state is stored: meanwhile the store still says it runs.
    task.onOver(() => void task.flushed().then(() => this.#local.delete(record.taskId)));
    return task;
  }

  /** `tasks/get`: the task with its questions, result or error inlined. */
  async get(taskId: string, subject: string): Promise<Record<string, unknown>> {
    const local = this.#mine(taskId, subject);
    if (local !== undefined) return detailedTask(local.record);
    return detailedTask(await this.#stored(taskId, subject));
  }

  /** `tasks/update`: answers to the task's open questions (others are ignored). */
  async update(taskId: string, subject: string, responses: Record<string, unknown>): Promise<void> {
    const local = this.#mine(taskId, subject);
    if (local !== undefined) return local.answer(responses);
    // Not running here (an instance that is gone, or unreachable): nothing takes answers.
    await this.#stored(taskId, subject);
  }

  /** `tasks/cancel`: idempotent; a running task reads `cancelled` and its tool is stopped. */
  async cancel(taskId: string, subject: string): Promise<void> {
    const local = this.#mine(taskId, subject);
    if (local !== undefined) return local.cancel();
    const record = await this.#stored(taskId, subject);
    if (isFinal(record.status)) return;
    // Its instance did not take the request: the work cannot be reached, so it ends here.
    const store = await this.#storeOf();
    await store.put({
      ...record,
      status: 'cancelled',
      statusMessage: 'cancelled by the client; the instance running it could not be reached',
      lastUpdatedAt: new Date().toISOString(),
    });
  }

  /** The tasks whose tools run here. */
  get running(): number {
    return this.#local.size;
  }

  /** The server stops: every task running here ends `failed`, saying so, and is stopped. */
  stopAll(message: string): void {
    this.#stopped = message;
    for (const task of [...this.#local.values()]) task.stop(message);
  }

  /** Waits for the last states to be stored, then closes the store. */
  async close(): Promise<void> {
    await Promise.all([...this.#local.values()].map((task) => task.flushed()));
    // A store never opened (no task was made) has nothing to close.
    await this.#store?.then(
      (store) => store.close(),
      () => undefined,
    );
  }

  #storeOf(): Promise<TaskStore> {
    this.#store ??= this.#place.store(this.settings.maxTasksPerSubject);
    // A failed connection is tried again by the next request.
    this.#store.catch(() => (this.#store = undefined));
    return this.#store;
  }

  #mine(taskId: string, subject: string): LocalTask | undefined {
    const local = this.#local.get(taskId);
    if (local?.record.subject !== subject) return undefined;
    local.claimed = true;
    return local;
  }

  /**
   * The stored task `taskId` of `subject`, or the -32602 error saying there is none. A
   * task that should be running on an instance that is gone ends `failed` now, saying so.
   */
  async #stored(taskId: string, subject: string): Promise<TaskRecord> {
    const store = await this.#storeOf();
    const record = await store.get(taskId);
    if (record === undefined || record.subject !== subject) throw notFound(taskId);
    if (isFinal(record.status) || record.owner === this.#place.owner) {
      return record.owner === this.#place.owner && !isFinal(record.status)
        ? this.#orphaned(store, record, 'this instance no longer runs it (it was restarted)')
        : record;
    }
    if (await this.#place.alive(record.owner)) return record;
    return this.#orphaned(
      store,
      record,
      `the instance running it (${record.owner}) stopped before it finished`,
    );
  }

  async #orphaned(store: TaskStore, record: TaskRecord, why: string): Promise<TaskRecord> {
    const message = `mcp: task ${record.taskId} of tool ${JSON.stringify(record.tool)} failed: ${why}; its work is lost, so call the tool again if running it twice is safe`;
    const failed: TaskRecord = {
      taskId: record.taskId,
      subject: record.subject,
      tool: record.tool,
      owner: record.owner,
      status: 'failed',
      statusMessage: message,
      createdAt: record.createdAt,
      lastUpdatedAt: new Date().toISOString(),
      ttlMs: record.ttlMs,
      pollIntervalMs: record.pollIntervalMs,
      error: { code: -32603, message },
    };
    await store.put(failed);
    return (await store.get(record.taskId)) ?? failed;
  }
}

/** True when a 2026-07-28 request declares the tasks extension in its capabilities. */
export function takesTasks(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return (
    typeof extensions === 'object' &&
    extensions !== null &&
    (extensions as Record<string, unknown>)[TASKS_EXTENSION] !== undefined
  );
}

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(
    INVALID_PARAMS,
    `mcp: tasks: no task ${JSON.stringify(taskId)} (it never was, its ttlMs has passed, or it belongs to another caller)`,
  );
}
