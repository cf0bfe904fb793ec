import { type RedisClient } from './redis';
import { msLeft, shareOf, TaskLimitError, type TaskRecord, type TaskStore } from '../tasks';

// Creates a task unless its caller holds `limit` live ones (an index per caller, by
// expiry), in one step so two instances cannot both take the last place.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1`;

// Writes a task's new state, keeping its expiry, unless it expired or is final already.
const PUT = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local status = cjson.decode(current)['status']
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`;

/**
 * Tasks in the Redis a scaled-out deployment shares (`<prefix>task:<id>`, expiring at
 * the task's TTL), so any instance answers `tasks/get`. A final task stays final.
 */
export class RedisTaskStore implements TaskStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #limit: number;

  constructor(redis: RedisClient, prefix: string, maxTasksPerSubject: number) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#limit = maxTasksPerSubject;
  }

  async create(record: TaskRecord): Promise<void> {
    const now = Date.now();
    const ttl = Math.max(msLeft(record, now), 1);
    const created = await this.#redis.eval(
      CREATE,
      2,
      this.#key(record.taskId),
      `${this.#prefix}task-caller:${shareOf(record)}`,
      String(now),
      String(now + ttl),
      String(this.#limit),
      JSON.stringify(record),
      String(ttl),
      record.taskId,
    );
    if (created !== 1) throw new TaskLimitError(record, this.#limit);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const text = await this.#redis.get(this.#key(taskId));
    return text === null ? undefined : (JSON.parse(text) as TaskRecord);
  }

  async put(record: TaskRecord): Promise<void> {
    await this.#redis.eval(PUT, 1, this.#key(record.taskId), JSON.stringify(record));
  }

  async list(share: string): Promise<TaskRecord[]> {
    // The caller's index holds each live task's id, scored by its expiry.
    const ids = await this.#redis.zrangebyscore(
      `${this.#prefix}task-caller:${share}`,
      Date.now(),
      '+inf',
    );
    if (ids.length === 0) return [];
    const texts = await this.#redis.mget(...ids.map((id) => this.#key(id)));
    return texts.filter((text) => text !== null).map((text) => JSON.parse(text) as TaskRecord);
  }

  /** The connection is the scale-out's: nothing to close here. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  #key(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }
}
