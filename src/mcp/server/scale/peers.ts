import { type ErrorReporter } from '../session';
import { type RedisClient } from './redis';

/** How long an instance's entry outlives its last refresh (seconds). */
const ENTRY_TTL_S = 15;
/** How often a live instance refreshes its entry (ms). */
const REFRESH_MS = 5000;

/** Where a peer instance serves, and whether it still takes new work. */
export interface Peer {
  readonly url: string;
  readonly draining: boolean;
}

/**
 * The instances of one deployment, by name, in Redis: each writes its MCP endpoint's
 * address under `<prefix>instance:<id>`, refreshed every 5 seconds and expiring 15
 * seconds after its last refresh (an instance that dies without a word drops out by
 * itself), marked draining when it leaves the pool and deleted when it closes.
 */
export class Peers {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #self: string;
  readonly #report: ErrorReporter;
  #entry: Peer | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: RedisClient, prefix: string, self: string, report: ErrorReporter) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#self = self;
    this.#report = report;
  }

  /** Announces this instance at `url` and keeps the entry fresh until {@link leave}. */
  async announce(url: string): Promise<void> {
    this.#entry = { url, draining: false };
    await this.#write();
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      this.#write().catch((error: unknown) =>
        this.#report('mcp: scale-out: refreshing this instance in Redis failed', error),
      );
    }, REFRESH_MS);
    this.#timer.unref();
  }

  /** Marks this instance as draining: peers stop sending it new sessions' calls. */
  async drain(): Promise<void> {
    if (this.#entry === undefined) return;
    this.#entry = { ...this.#entry, draining: true };
    await this.#write();
  }

  /** Removes this instance from the registry. */
  async leave(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#entry === undefined) return;
    this.#entry = undefined;
    await this.#redis.del(this.#key(this.#self));
  }

  /** The peer named `id` as it last announced itself; undefined when none is known. */
  async find(id: string): Promise<Peer | undefined> {
    const text = await this.#redis.get(this.#key(id));
    if (text === null) return undefined;
    try {
      const entry = JSON.parse(text) as Partial<Peer>;
      if (typeof entry.url !== 'string') return undefined;
      return { url: entry.url, draining: entry.draining === true };
    } catch {
      return undefined;
    }
  }

  async #write(): Promise<void> {
    if (this.#entry === undefined) return;
    await this.#redis.set(this.#key(this.#self), JSON.stringify(this.#entry), 'EX', ENTRY_TTL_S);
  }

  #key(id: string): string {
    return `${this.#prefix}instance:${id}`;
  }
}
