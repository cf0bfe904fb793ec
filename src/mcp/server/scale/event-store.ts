import { type EventStore, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { randomUuid } from '../../random';
import { type ErrorReporter } from '../session';
import { type RedisClient } from './redis';

/** Events kept per stream at most (Redis trims the oldest, roughly). */
const STREAM_LIMIT = 1000;

/**
 * The events of one 2025-era session's SSE streams in Redis, so a client that lost its
 * connection resumes with `Last-Event-ID` and gets what it missed: one Redis stream per
 * SSE stream (`<prefix>events:<session>:<stream>`, the last 1000 events, expiring
 * `ttlSeconds` after the last write), deleted when the session ends. An event id is
 * `<stream>|<Redis entry id>`, looked up within its session only. When Redis cannot
 * store an event, the event still goes out live; only its resumption is lost.
 */
export class RedisEventStore implements EventStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #ttlSeconds: number;
  readonly #report: ErrorReporter;
  readonly #streams = new Set<string>();

  constructor(
    redis: RedisClient,
    sessionPrefix: string,
    ttlSeconds: number,
    report: ErrorReporter,
  ) {
    this.#redis = redis;
    this.#prefix = sessionPrefix;
    this.#ttlSeconds = ttlSeconds;
    this.#report = report;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const key = this.#prefix + streamId;
    try {
      const results = await this.#redis
        .multi()
        .xadd(key, 'MAXLEN', '~', STREAM_LIMIT, '*', 'm', JSON.stringify(message))
        .expire(key, this.#ttlSeconds)
        .exec();
      const [failure, entry] = results?.[0] ?? [new Error('the transaction was discarded')];
      if (failure !== null || typeof entry !== 'string') throw failure ?? new Error('no entry id');
      this.#streams.add(streamId);
      return `${streamId}|${entry}`;
    } catch (error) {
      this.#report(
        'mcp: scale-out: storing an event in Redis failed (it cannot be replayed)',
        error,
      );
      return `${streamId}|unsaved-${randomUuid()}`;
    }
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(parseEventId(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = parseEventId(lastEventId);
    if (last === undefined || !/^\d+-\d+$/.test(last.entry)) return '';
    const entries = await this.#redis.xrange(this.#prefix + last.streamId, `(${last.entry}`, '+');
    for (const [entry, fields] of entries) {
      const text = fields[fields.indexOf('m') + 1];
      if (text === undefined) continue;
      const message = JSON.parse(text) as JSONRPCMessage;
      // Priming events carry no message; they are not replayed.
      if (Object.keys(message).length > 0) await send(`${last.streamId}|${entry}`, message);
    }
    return last.streamId;
  }

  /** Deletes the session's events (it ended). */
  async dispose(): Promise<void> {
    const keys = [...this.#streams].map((streamId) => this.#prefix + streamId);
    this.#streams.clear();
    if (keys.length > 0) await this.#redis.del(...keys);
  }
}

function parseEventId(eventId: string): { streamId: string; entry: string } | undefined {
  const bar = eventId.lastIndexOf('|');
  if (bar <= 0) return undefined;
  return { streamId: eventId.slice(0, bar), entry: eventId.slice(bar + 1) };
}
