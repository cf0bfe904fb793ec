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
import {
  detailedTask,
  eraOf,
  isFinal,
  type TaskEra,
  TASKS_EXTENSION,
  type TaskRecord,
} from './wire';

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
  /**
   * Asks the instance `owner` to stop the task `taskId` it runs (a 2025-11-25
   * `tasks/cancel` that reached another instance); absent alone.
   */
  stopElsewhere?(owner: string, taskId: string): Promise<void>;
  /** Runs `listener` with each task id another instance asks this one to stop. */
  onStopAsked?(listener: (taskId: string) => void): void;
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
  /** The wire the task is made on (default `modern`, 2026-07-28). */
  readonly era?: TaskEra;
  /**
   * How long the client asked the task to be kept (2025-11-25 `task.ttl`, ms): the task
   * keeps the shorter of it and the server's `ttlMs`.
   */
  readonly ttlMs?: number;
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
      // Another instance took a 2025-11-25 `tasks/cancel` of a task running here.
      place.onStopAsked?.((taskId) => void this.#local.get(taskId)?.cancel());
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
    const asked = start.ttlMs;
    const ttlMs =
      asked !== undefined && Number.isSafeInteger(asked) && asked > 0
        ? Math.min(asked, this.settings.ttlMs)
        : this.settings.ttlMs;
    const record: TaskRecord = {
      taskId: randomUuid(),
      subject: start.subject,
      ...(start.caller === undefined ? {} : { caller: start.caller }),
      tool: start.tool,
      ...(start.era === 'legacy' ? { era: 'legacy' as const } : {}),
      owner: this.#place.owner,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
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
    return detailedTask(await this.find(taskId, subject, 'modern'));
  }

  /** `tasks/update`: answers to the task's open questions (others are ignored). */
  async update(taskId: string, subject: string, responses: Record<string, unknown>): Promise<void> {
    const local = this.#mine(taskId, subject, 'modern');
    if (local !== undefined) return local.answer(responses);
    // Not running here (an instance that is gone, or unreachable): nothing takes answers.
    await this.#stored(taskId, subject, 'modern');
  }

  /** `tasks/cancel`: idempotent; a running task reads `cancelled` and its tool is stopped. */
  async cancel(taskId: string, subject: string): Promise<void> {
    const local = this.#mine(taskId, subject, 'modern');
    if (local !== undefined) return local.cancel();
    const record = await this.#stored(taskId, subject, 'modern');
    if (isFinal(record.status)) return;
    // Its instance did not take the request: the work cannot be reached, so it ends here.
    await this.#markCancelled(record);
  }

  /**
   * The task `taskId` of `subject` made on `era`'s wire, as it stands: fresher here
   * while its tool runs here. Throws the -32602 error saying there is none otherwise
   * (another caller's task, or the other wire's, does not exist).
   */
  async find(taskId: string, subject: string, era: TaskEra): Promise<TaskRecord> {
    const local = this.#mine(taskId, subject, era);
    if (local !== undefined) return local.record;
    return this.#stored(taskId, subject, era);
  }

  /** The task `taskId` of `subject` on `era`'s wire when its tool runs here. */
  local(taskId: string, subject: string, era: TaskEra): LocalTask | undefined {
    return this.#mine(taskId, subject, era);
  }

  /**
   * Waits until the task is final (2025-11-25 `tasks/result`) and answers it: at once
   * when it runs here, else polling the store at its poll interval. Rejects when
   * `signal` aborts, and with the -32602 error when the task is gone (its TTL passed).
   */
  async settled(
    taskId: string,
    subject: string,
    era: TaskEra,
    signal: AbortSignal,
  ): Promise<TaskRecord> {
    for (;;) {
      signal.throwIfAborted();
      const local = this.#mine(taskId, subject, era);
      if (local !== undefined) {
        await untilAborted(
          new Promise<void>((resolve) => local.onOver(resolve)).then(() => local.flushed()),
          signal,
        );
        if (isFinal(local.record.status)) return local.record;
        // Over without an end: its TTL passed, and the store drops it.
        throw notFound(taskId);
      }
      const record = await this.#stored(taskId, subject, era);
      if (isFinal(record.status)) return record;
      await untilAborted(pause(record.pollIntervalMs), signal);
    }
  }

  /**
   * A 2025-11-25 `tasks/cancel`: the task reads `cancelled` before this resolves, and
   * its tool is stopped (here, or by the instance running it). A final task cannot be
   * cancelled: -32602, as that revision says.
   */
  async stop(taskId: string, subject: string, era: TaskEra): Promise<TaskRecord> {
    const record = await this.find(taskId, subject, era);
    if (isFinal(record.status)) {
      throw new ProtocolError(
        INVALID_PARAMS,
        `mcp: tasks: task ${JSON.stringify(taskId)} is ${record.status} already, and a final task cannot be cancelled`,
      );
    }
    const local = this.#mine(taskId, subject, era);
    if (local !== undefined) {
      await local.cancel();
      return local.record;
    }
    const cancelled = await this.#markCancelled(record);
    if (cancelled.status === 'cancelled' && cancelled.owner !== this.#place.owner) {
      await this.#place.stopElsewhere?.(cancelled.owner, taskId).catch((error: unknown) => {
        this.#report(
          `mcp: tasks: asking instance ${cancelled.owner} to stop task ${taskId} failed`,
          error,
        );
      });
    }
    return cancelled;
  }

  /**
   * The tasks of `subject` made on `era`'s wire (2025-11-25 `tasks/list`), oldest first:
   * those its share holds (at most `maxTasksPerSubject`).
   */
  async list(subject: string, era: TaskEra): Promise<TaskRecord[]> {
    const store = await this.#storeOf();
    const records = await store.list(`subject:${subject}`);
    const mine = records.filter((record) => record.subject === subject && eraOf(record) === era);
    const current = mine.map((record) => this.#local.get(record.taskId)?.record ?? record);
    return current.sort((x, y) => Date.parse(x.createdAt) - Date.parse(y.createdAt));
  }

  /** Marks `record` cancelled in the store (a final one stays as it is) and answers what is stored. */
  async #markCancelled(record: TaskRecord): Promise<TaskRecord> {
    const store = await this.#storeOf();
    const cancelled: TaskRecord = {
      ...record,
      status: 'cancelled',
      statusMessage: 'cancelled by the client; the instance running it could not be reached',
      lastUpdatedAt: new Date().toISOString(),
    };
    await store.put(cancelled);
    return (await store.get(record.taskId)) ?? cancelled;
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

  #mine(taskId: string, subject: string, era: TaskEra): LocalTask | undefined {
    const local = this.#local.get(taskId);
    if (local?.record.subject !== subject || eraOf(local.record) !== era) return undefined;
    local.claimed = true;
    return local;
  }

  /**
   * The stored task `taskId` of `subject`, or the -32602 error saying there is none. A
   * task that should be running on an instance that is gone ends `failed` now, saying so.
   */
  async #stored(taskId: string, subject: string, era: TaskEra): Promise<TaskRecord> {
    const store = await this.#storeOf();
    const record = await store.get(taskId);
    if (record === undefined || record.subject !== subject || eraOf(record) !== era) {
      throw notFound(taskId);
    }
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
      ...(record.era === undefined ? {} : { era: record.era }),
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

/** Resolves after `ms` (a timer that does not hold the process open). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `promise`, or its rejection with `signal`'s reason once `signal` aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(
    INVALID_PARAMS,
    `mcp: tasks: no task ${JSON.stringify(taskId)} (it never was, its ttlMs has passed, or it belongs to another caller)`,
  );
}
