/**
 * How one instance of an app joins the others serving it behind a load balancer: what
 * they share (a key, a Redis) and how it names itself. See docs/deploy.md.
 */
export interface ScaleOutOptions {
  /**
   * The key every instance shares, at least 32 bytes: it signs the `requestState` of
   * a 2026-07-28 call that asks questions (HMAC-SHA256, the SDK's
   * `createRequestStateCodec`), so an instance can tell which instance parked the call
   * and refuse a forged state; and, under a key derived from it, the client address a
   * forwarded request carries, so the instance that serves it counts it against that
   * client's shares (a client cannot write it itself). Keep it secret; rotating it ends
   * the calls parked then.
   */
  readonly requestStateKey: string | Uint8Array;
  /**
   * The Redis every instance shares (`redis://host:port/db`): the instances' addresses,
   * `tools/list_changed` across instances (pub/sub), and the events of resumable
   * 2025-era streams. Loaded (the `ioredis` client) only when this is given.
   */
  readonly redisUrl: string;
  /**
   * Prefixes every Redis key and channel (default `agenttool:`): one per deployment, so
   * two apps can share a Redis.
   */
  readonly redisPrefix?: string;
  /**
   * This instance's name among the others: letters, digits, `_` and `-`, at most 64
   * (default: random). It is written into request states and session handles.
   */
  readonly instanceId?: string;
}
