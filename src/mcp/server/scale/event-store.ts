import { type EventStore, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { nodeCrypto } from '../../../core';
import { randomUuid } from '../../random';
import { type ErrorReporter } from '../session';
import { type RedisClient } from './redis';

// The bounds of SessionEventStore (sessions/event-store.ts), the store of a server that
// does not scale out, so a session resumes the same either way; test/scale holds them
// to it. (Not imported: a room is entered through its index, which does not export them.)
/** Events kept per session at most. */
const EVENT_LIMIT = 1000;
/** Bytes of messages (as JSON, UTF-8) kept per session at most; the newest is always kept. */
const EVENT_BYTES = 1024 * 1024;

// Appends an event to a session's stream (KEYS[1]) and keeps the bytes of its messages in
// KEYS[2], in one step; past a bound the oldest go, the newest staying. Only then does it
// read back what it drops (to count it off). Both keys expire ARGV[3] s after the write.
// ARGV: the SSE stream, the message, the TTL, the most events, the most bytes.
const STORE = `
local entry = redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'm', ARGV[2])
local count = redis.call('XLEN', KEYS[1])
local bytes = string.len(ARGV[2])
local known = redis.call('GET', KEYS[2])
if count > 1 and known then
  bytes = bytes + tonumber(known)
elseif count > 1 then
  -- The count was lost (evicted) while the stream was not: counted again, once.
  bytes = 0
  for _, kept in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
    for i = 1, #kept[2], 2 do
      if kept[2][i] == 'm' then bytes = bytes + string.len(kept[2][i + 1]) end
    end
  end
end
local limit, most = tonumber(ARGV[4]), tonumber(ARGV[5])
while count > 1 and (count > limit or bytes > most) do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  for i = 1, #oldest[2], 2 do
    if oldest[2][i] == 'm' then bytes = bytes - string.len(oldest[2][i + 1]) end
  end
  redis.call('XDEL', KEYS[1], oldest[1])
  count = count - 1
end
redis.call('SET', KEYS[2], bytes, 'EX', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return entry`;

// The SSE stream of the entry ARGV[1] of KEYS[1], if it is kept, without its message.
const STREAM_OF = `
local found = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])[1]
if not found then return false end
for i = 1, #found[2], 2 do
  if found[2][i] == 's' then return found[2][i + 1] end
end
return false`;

/** A Lua script, sent by its SHA-1 once Redis has it. */
interface Script {
  readonly text: string;
  sha?: string;
}

const scripts: Record<'store' | 'streamOf', Script> = {
  store: { text: STORE },
  streamOf: { text: STREAM_OF },
};

/**
 * The events of one 2025-era session's SSE streams in Redis, so a client that lost its
 * connection resumes with `Last-Event-ID` and gets what it missed: one Redis stream per
 * session (`<prefix>events:<session>`, each entry naming its SSE stream) and the bytes
 * of its messages (`<prefix>events:<session>:bytes`), both expiring `ttlSeconds` after
 * the last write and deleted when the session ends. It keeps what the in-memory store
 * keeps: the session's last 1000 events and 1 MiB of their messages, the newest always.
 * An event id is `<stream>|<Redis entry id>`, looked up within its session only; one no
 * longer kept is unknown, as in memory (a client resuming from it would miss events).
 * When Redis cannot store an event, the event still goes out live; only its resumption
 * is lost.
 */
export class RedisEventStore implements EventStore {
  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #bytesKey: string;
  readonly #ttlSeconds: number;
  readonly #report: ErrorReporter;
  #stored = false;

  /** `key`: the session's stream, `<prefix>events:<session>`. */
  constructor(redis: RedisClient, key: string, ttlSeconds: number, report: ErrorReporter) {
    this.#redis = redis;
    this.#key = key;
    this.#bytesKey = `${key}:bytes`;
    this.#ttlSeconds = ttlSeconds;
    this.#report = report;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // Before the write: a write whose answer is lost may still have stored the event.
    this.#stored = true;
    try {
      const entry = await this.#run(
        scripts.store,
        [this.#key, this.#bytesKey],
        [streamId, JSON.stringify(message), this.#ttlSeconds, EVENT_LIMIT, EVENT_BYTES],
      );
      if (typeof entry !== 'string') throw new Error('no entry id');
      return `${streamId}|${entry}`;
    } catch (error) {
      this.#report(
        'mcp: scale-out: storing an event in Redis failed (it cannot be replayed)',
        error,
      );
      return `${streamId}|unsaved-${randomUuid()}`;
    }
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const last = parseEventId(eventId);
    if (last === undefined) return undefined;
    const stream = await this.#run(scripts.streamOf, [this.#key], [last.entry]);
    return stream === last.streamId ? last.streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = parseEventId(lastEventId);
    if (last === undefined) return '';
    // From the event itself, in one read: only an event still kept is resumed from.
    const [first, ...after] = await this.#redis.xrange(this.#key, last.entry, '+');
    if (first?.[0] !== last.entry || field(first[1], 's') !== last.streamId) return '';
    for (const [entry, fields] of after) {
      const text = field(fields, 'm');
      if (field(fields, 's') !== last.streamId || text === undefined) continue;
      const message = JSON.parse(text) as JSONRPCMessage;
      // Priming events carry no message; they are not replayed.
      if (Object.keys(message).length > 0) await send(`${last.streamId}|${entry}`, message);
    }
    return last.streamId;
  }

  /** Deletes the session's events (it ended). */
  async dispose(): Promise<void> {
    if (!this.#stored) return;
    this.#stored = false;
    await this.#redis.del(this.#key, this.#bytesKey);
  }

  /** Runs `script` by its SHA-1, sending it whole when Redis lacks it (once per Redis). */
  async #run(
    script: Script,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    script.sha ??= nodeCrypto().createHash('sha1').update(script.text).digest('hex');
    try {
      return await this.#redis.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.#redis.eval(script.text, keys.length, ...keys, ...args);
    }
  }
}

/** The value of `name` among a stream entry's fields and values. */
function field(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** Redis entry ids are two unsigned 64-bit numbers; others are no event of ours. */
const MAX_ID_PART = 2n ** 64n - 1n;

function parseEventId(eventId: string): { streamId: string; entry: string } | undefined {
  const bar = eventId.lastIndexOf('|');
  if (bar <= 0) return undefined;
  const entry = eventId.slice(bar + 1);
  const parts = /^(\d{1,20})-(\d{1,20})$/.exec(entry);
  if (parts === null || BigInt(parts[1]!) > MAX_ID_PART || BigInt(parts[2]!) > MAX_ID_PART) {
    return undefined;
  }
  return { streamId: eventId.slice(0, bar), entry };
}
