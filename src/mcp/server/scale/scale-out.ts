import { AgentToolError, isJsonObject, type JsonObject } from '../../../core';
import { randomHex } from '../../random';
import { type ErrorReporter, SESSION_END_METHOD, SESSION_META_KEY } from '../session';
import { RedisEventStore } from './event-store';
import { ForwardedCallers } from './forwarded-caller';
import { type ScaleOutOptions } from './options';
import { type Peer, Peers } from './peers';
import { closeRedis, openRedis, type RedisClient } from './redis';
import { SignedRequestStates } from '../calls';
import { RedisTaskStore } from './redis-task-store';
import { type TaskPlace } from '../tasks';

const DEFAULT_PREFIX = 'agenttool:';
const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Where a request should be served instead of here, and why. */
export interface Elsewhere {
  readonly instance: string;
  readonly url: string;
  /** True for answers to a parked call; false for a call in a session held there. */
  readonly continuation: boolean;
}

/** A Redis connection and its subscriber, once started. */
interface Connected {
  readonly redis: RedisClient;
  readonly subscriber: RedisClient;
  readonly peers: Peers;
}

/**
 * One instance's part in a scaled-out deployment: the signed request states, the
 * instance registry, `tools/list_changed` across instances and the shared event store,
 * all over one Redis. Nothing connects until {@link start}.
 */
export class ScaleOut {
  readonly instanceId: string;
  readonly states: SignedRequestStates;
  /** The client addresses forwarded requests carry, signed with the shared key. */
  readonly callers: ForwardedCallers;
  readonly #url: string;
  readonly #prefix: string;
  readonly #report: ErrorReporter;
  #started: Promise<Connected> | undefined;
  #closed = false;
  #onPeerChange: (() => void) | undefined;
  #onPeerResourceUpdated: ((uri: string) => void) | undefined;
  #onStopAsked: ((taskId: string) => void) | undefined;

  constructor(options: ScaleOutOptions, abandonAfterMs: number, report: ErrorReporter) {
    if (typeof options !== 'object' || options === null) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        'mcp: scaleOut must be an object with requestStateKey and redisUrl',
      );
    }
    const id = options.instanceId ?? randomHex(6);
    if (typeof id !== 'string' || !INSTANCE_ID.test(id)) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        `mcp: scale-out: instanceId ${JSON.stringify(id)} must be 1 to 64 letters, digits, "_" or "-"`,
      );
    }
    if (typeof options.redisUrl !== 'string' || options.redisUrl === '') {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        'mcp: scale-out: redisUrl is required, e.g. "redis://127.0.0.1:6379"',
      );
    }
    this.instanceId = id;
    this.#url = options.redisUrl;
    this.#prefix = options.redisPrefix ?? DEFAULT_PREFIX;
    this.#report = report;
    // A state outlives the wait for its answers by a minute; "never abandon" is ~68 years.
    const ttl = abandonAfterMs > 0 ? Math.ceil(abandonAfterMs / 1000) + 60 : 2 ** 31 - 1;
    this.states = new SignedRequestStates(options.requestStateKey, id, ttl);
    this.callers = new ForwardedCallers(options.requestStateKey, id);
  }

  /** The prefix of this instance's session handles: `<instance>.`. */
  get handlePrefix(): string {
    return `${this.instanceId}.`;
  }

  /**
   * Connects to Redis and listens for list changes of the other instances (each runs
   * `onPeerChange`) and for the resource changes their applications tell
   * (`onPeerResourceUpdated`); once, later calls return the same promise.
   */
  start(onPeerChange: () => void, onPeerResourceUpdated?: (uri: string) => void): Promise<void> {
    this.#onPeerChange = onPeerChange;
    this.#onPeerResourceUpdated = onPeerResourceUpdated;
    this.#started ??= this.#connect();
    return this.#started.then(() => undefined);
  }

  async #connect(): Promise<Connected> {
    const redis = await openRedis(this.#url, this.instanceId);
    let subscriber: RedisClient;
    try {
      subscriber = await openRedis(this.#url, `${this.instanceId}-sub`);
    } catch (error) {
      await closeRedis(redis);
      throw error;
    }
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#stopChannel) return this.#stopAsked(message);
      if (channel === this.#resourceChannel) return this.#peerResourceUpdated(message);
      if (message !== this.instanceId) this.#onPeerChange?.();
    });
    await subscriber.subscribe(this.#channel, this.#stopChannel, this.#resourceChannel);
    return {
      redis,
      subscriber,
      peers: new Peers(redis, this.#prefix, this.instanceId, this.#report),
    };
  }

  get #channel(): string {
    return `${this.#prefix}tools-changed`;
  }

  /** Where an instance asks another to stop a task it runs: `<owner> <task id>`. */
  get #stopChannel(): string {
    return `${this.#prefix}task-stop`;
  }

  /** Where an instance tells the others a resource changed: `<instance> <uri>`. */
  get #resourceChannel(): string {
    return `${this.#prefix}resource-updated`;
  }

  #peerResourceUpdated(message: string): void {
    const space = message.indexOf(' ');
    if (space < 0 || message.slice(0, space) === this.instanceId) return;
    this.#onPeerResourceUpdated?.(message.slice(space + 1));
  }

  #stopAsked(message: string): void {
    const space = message.indexOf(' ');
    if (space < 0 || message.slice(0, space) !== this.instanceId) return;
    this.#onStopAsked?.(message.slice(space + 1));
  }

  /** Registers this instance's MCP endpoint, where peers forward to it. */
  async announce(url: string): Promise<void> {
    const { peers } = await this.#connected();
    await peers.announce(url);
  }

  /** Tells the other instances' clients that the tool list changed here. */
  publishListChanged(): void {
    if (this.#started === undefined || this.#closed) return;
    void this.#started
      .then(({ redis }) => redis.publish(this.#channel, this.instanceId))
      .catch((error: unknown) =>
        this.#report('mcp: scale-out: publishing tools/list_changed failed', error),
      );
  }

  /**
   * Tells the other instances that the application said the resource at `uri` changed
   * here: each tells its own subscribers, checking their access itself. Only the URI
   * crosses.
   */
  publishResourceUpdated(uri: string): void {
    if (this.#started === undefined || this.#closed) return;
    void this.#started
      .then(({ redis }) => redis.publish(this.#resourceChannel, `${this.instanceId} ${uri}`))
      .catch((error: unknown) =>
        this.#report('mcp: scale-out: publishing a resource change failed', error),
      );
  }

  /** A resumable session's event store in Redis (undefined before {@link start}). */
  async eventStore(sessionId: string, ttlSeconds: number): Promise<RedisEventStore> {
    const { redis } = await this.#connected();
    return new RedisEventStore(
      redis,
      `${this.#prefix}events:${sessionId}`,
      ttlSeconds,
      this.#report,
    );
  }

  /**
   * Where a request belongs when not here: answers to a call parked on another instance
   * (its signed state names it), or a call in a session another instance holds (its
   * handle names it, and the instance still takes work). Undefined: serve it here.
   */
  async elsewhere(
    body: unknown,
    handleArgument?: (tool: string) => string | undefined,
  ): Promise<Elsewhere | undefined> {
    if (isTaskControl(body)) return this.#taskElsewhere(body.params.taskId);
    if (
      !isJsonObject(body) ||
      (body.method !== 'tools/call' && body.method !== SESSION_END_METHOD) ||
      !isJsonObject(body.params)
    ) {
      return undefined;
    }
    const params = body.params;
    if (typeof params.requestState === 'string') {
      const owner = await this.states.ownerOf(params.requestState);
      if (owner === undefined || owner === this.instanceId) return undefined;
      const peer = await this.#peer(owner);
      return peer === undefined
        ? undefined
        : { instance: owner, url: peer.url, continuation: true };
    }
    const meta = params._meta;
    const handle =
      (isJsonObject(meta) ? meta[SESSION_META_KEY] : undefined) ??
      stateHandle(params, handleArgument);
    if (typeof handle !== 'string') return undefined;
    const dot = handle.indexOf('.');
    const owner = dot > 0 ? handle.slice(0, dot) : undefined;
    if (owner === undefined || owner === this.instanceId) return undefined;
    const peer = await this.#peer(owner);
    if (peer === undefined || peer.draining) return undefined;
    return { instance: owner, url: peer.url, continuation: false };
  }

  /**
   * Where the server's tasks live: Redis (any instance answers `tasks/get`), owned by
   * this instance, and whether another instance still runs (its registry entry).
   */
  taskPlace(): TaskPlace {
    return {
      owner: this.instanceId,
      store: async (limit) => {
        const { redis } = await this.#connected();
        return new RedisTaskStore(redis, this.#prefix, limit);
      },
      alive: async (owner) => {
        const { peers } = await this.#connected();
        // A lookup that fails says nothing about the instance: take it as alive.
        return (await peers.find(owner).catch(() => ({}))) !== undefined;
      },
      stopElsewhere: async (owner, taskId) => {
        const { redis } = await this.#connected();
        await redis.publish(this.#stopChannel, `${owner} ${taskId}`);
      },
      onStopAsked: (listener) => {
        this.#onStopAsked = listener;
      },
    };
  }

  /** `tasks/update` and `tasks/cancel` go to the instance running the task, when another one. */
  async #taskElsewhere(taskId: string): Promise<Elsewhere | undefined> {
    let owner: string | undefined;
    try {
      const { redis } = await this.#connected();
      const record = await new RedisTaskStore(redis, this.#prefix, 0).get(taskId);
      owner = record?.owner;
    } catch (error) {
      this.#report(`mcp: scale-out: looking up task ${taskId} in Redis failed`, error);
      return undefined;
    }
    if (owner === undefined || owner === this.instanceId) return undefined;
    const peer = await this.#peer(owner);
    return peer === undefined ? undefined : { instance: owner, url: peer.url, continuation: true };
  }

  async #peer(id: string): Promise<Peer | undefined> {
    if (!INSTANCE_ID.test(id)) return undefined;
    try {
      const { peers } = await this.#connected();
      return await peers.find(id);
    } catch (error) {
      this.#report(`mcp: scale-out: looking up instance ${id} in Redis failed`, error);
      return undefined;
    }
  }

  /** Marks this instance as leaving: peers stop sending it calls of new work. */
  async drain(): Promise<void> {
    if (this.#started === undefined) return;
    const { peers } = await this.#started;
    await peers.drain();
  }

  /** Leaves the registry and closes the Redis connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const started = this.#started;
    if (started === undefined) return;
    let connected: Connected;
    try {
      connected = await started;
    } catch {
      return;
    }
    await connected.peers.leave().catch(() => undefined);
    await Promise.all([closeRedis(connected.subscriber), closeRedis(connected.redis)]);
  }

  #connected(): Promise<Connected> {
    if (this.#started === undefined) {
      return Promise.reject(new Error('mcp: scale-out: not started'));
    }
    return this.#started;
  }
}

/** A `tasks/update` or `tasks/cancel` request naming its task. */
function isTaskControl(body: unknown): body is { method: string; params: { taskId: string } } {
  return (
    isJsonObject(body) &&
    (body.method === 'tasks/update' || body.method === 'tasks/cancel') &&
    isJsonObject(body.params) &&
    typeof body.params.taskId === 'string'
  );
}

/**
 * The state handle a `tools/call` carries as an argument (the tool's `handleArgument`,
 * e.g. `shell_id`), which names the instance that minted it as a session handle does.
 */
function stateHandle(
  params: JsonObject,
  handleArgument: ((tool: string) => string | undefined) | undefined,
): unknown {
  if (handleArgument === undefined || typeof params.name !== 'string') return undefined;
  const name = handleArgument(params.name);
  const args = params.arguments;
  return name !== undefined && isJsonObject(args) ? args[name] : undefined;
}
