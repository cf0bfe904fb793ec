import { msLeft, shareOf, TaskLimitError, type TaskStore } from './store';
import { isFinal, type TaskRecord } from './wire';

interface Kept {
  record: TaskRecord;
  readonly timer: NodeJS.Timeout;
}

/**
 * The default task store: this process's memory, at most `maxTasksPerSubject` tasks per
 * caller (see {@link shareOf}), each dropped when its TTL has passed. A final task stays final: a later write
 * of it is ignored (a task cancelled while its tool was finishing stays cancelled).
 */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Kept>();
  /** The ids of each caller's tasks, by its share (see {@link shareOf}). */
  readonly #byCaller = new Map<string, Set<string>>();
  readonly #limit: number;

  constructor(maxTasksPerSubject: number) {
    this.#limit = maxTasksPerSubject;
  }

  create(record: TaskRecord): Promise<void> {
    const share = shareOf(record);
    const own = this.#byCaller.get(share) ?? new Set<string>();
    if (own.size >= this.#limit) {
      return Promise.reject(new TaskLimitError(record, this.#limit));
    }
    // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
    const timer = setTimeout(
      () => this.#expire(record.taskId),
      Math.min(Math.max(msLeft(record), 0), 2 ** 31 - 1),
    );
    timer.unref();
    own.add(record.taskId);
    this.#byCaller.set(share, own);
    this.#tasks.set(record.taskId, { record, timer });
    return Promise.resolve();
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.#tasks.get(taskId)?.record);
  }

  put(record: TaskRecord): Promise<void> {
    const kept = this.#tasks.get(record.taskId);
    if (kept !== undefined && !isFinal(kept.record.status)) kept.record = record;
    return Promise.resolve();
  }

  list(share: string): Promise<TaskRecord[]> {
    const ids = [...(this.#byCaller.get(share) ?? [])];
    const kept = ids.map((id) => this.#tasks.get(id)?.record);
    return Promise.resolve(kept.filter((record) => record !== undefined));
  }

  close(): Promise<void> {
    for (const kept of this.#tasks.values()) clearTimeout(kept.timer);
    this.#tasks.clear();
    this.#byCaller.clear();
    return Promise.resolve();
  }

  #expire(taskId: string): void {
    const kept = this.#tasks.get(taskId);
    if (kept === undefined) return;
    this.#tasks.delete(taskId);
    const share = shareOf(kept.record);
    const own = this.#byCaller.get(share);
    own?.delete(taskId);
    if (own?.size === 0) this.#byCaller.delete(share);
  }
}
