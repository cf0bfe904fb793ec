import { type McpSubscription } from '@modelcontextprotocol/client';
import { AgentToolError } from '../../../core';
import { clientSdk } from '../sdk-modules';
import { type ListOptions } from './request-options';

/**
 * How many URIs one 2026-07-28 `subscriptions/listen` stream names at most. A stream per
 * URI ran into a server's share of streams (agenttool's: 100 a caller), and a
 * connection each over HTTP; one stream for every URI would be opened again, URIs and
 * all, on each change. Each subscribe re-sends at most this many.
 */
export const URIS_PER_LISTEN = 50;

/** How long a dropped stream first waits before it is opened again (ms). */
const REOPEN_DELAY_MS = 1000;
/** The longest wait between attempts to open it again (ms). */
const MAX_REOPEN_DELAY_MS = 60_000;

/** What the listens need of their connection. */
export interface ListenLine {
  /**
   * Opens a `subscriptions/listen` stream naming `uris`, resolving once the server
   * acknowledged it; a failure reads as a request named `where` fails.
   */
  open(where: string, uris: readonly string[], options: ListOptions): Promise<McpSubscription>;
  /** `mcp: resources/subscribe "<uri>" on server "<name>"`. */
  subscribing(uri: string): string;
  /** `mcp: subscriptions/listen on server "<name>"`: a stream opened again. */
  reopening(): string;
  /** Aborted once the connection is closing. */
  readonly closed: AbortSignal;
  /** A request named `where` that `signal` ended. */
  cancelled(where: string, signal: AbortSignal): Error;
  /** A subscription lost for good when its stream was opened again (a warning). */
  lost(message: string): void;
}

/** A URI waiting for the stream that names it, and the subscribes that wait for it. */
interface Adding {
  readonly uri: string;
  readonly where: string;
  /** How long the open waits for its acknowledgement (the first subscribe's `timeout`). */
  readonly timeout: number | undefined;
  /** Settles once the URI's stream is open, or its subscribe failed. */
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** The group it waits in (it moves to a group of its own when refused beside others). */
  group: Group;
  /** The group that refused it beside others, if it did. */
  refusedBy: Group | undefined;
  /** How many subscribes wait for it; none left (each cancelled), it is given up. */
  callers: number;
}

/** The URIs of one stream. */
interface Group {
  /** Its URIs: subscribed to, or being subscribed to. */
  readonly wanted: Set<string>;
  /** The URIs the open stream names (none without one). */
  live: ReadonlySet<string>;
  stream: McpSubscription | undefined;
  /** The subscribes waiting their turn; one is opened at a time, with the live URIs. */
  readonly adds: Adding[];
  /** The open in flight, if any: one at a time. */
  settling: Promise<void> | undefined;
  /** When the stream was last opened (ms). */
  opened: number;
  /** The next wait before opening a dropped stream again (ms). */
  delay: number;
  reopen: NodeJS.Timeout | undefined;
  /** A URI was refused beside its others: none is added until one leaves. */
  full: boolean;
}

/**
 * A connection's 2026-07-28 resource subscriptions, on few `subscriptions/listen` streams:
 * each names up to {@link URIS_PER_LISTEN} URIs. A subscribe opens its group's stream
 * anew, with the URIs it names and the new one, and closes the old stream once the new
 * one is acknowledged (no update falls between; one may come twice); an unsubscribe
 * opens it anew without the URI (or closes it, the last one gone). One URI at a time, so
 * that a refusal is the new URI's; a URI refused beside others is tried in a stream of
 * its own, and fails only when refused there too (a server may take fewer URIs in one
 * stream: that stream takes no other until one leaves it). A stream that drops is opened again a second later, then twice as long after
 * each attempt that fails, up to a minute; one refused after a drop (a resource gone) is
 * split until the URI refused is on its own, the others followed again.
 */
export class ResourceListens {
  readonly #groups = new Set<Group>();
  readonly #groupOf = new Map<string, Group>();
  /** The subscribe still waiting, by URI. */
  readonly #adding = new Map<string, Adding>();

  constructor(private readonly line: ListenLine) {
    // However the connection ends, its streams are closed and what waits is told.
    line.closed.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** True while `uri` is subscribed to, or being subscribed to: its updates are passed on. */
  follows(uri: string): boolean {
    return this.#groupOf.has(uri);
  }

  subscribe(uri: string, options: ListOptions): Promise<void> {
    const where = this.line.subscribing(uri);
    if (this.line.closed.aborted) return Promise.reject(connectionClosed(where));
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.reject(this.line.cancelled(where, signal));
    const waiting = this.#adding.get(uri);
    if (waiting !== undefined) return this.#waitFor(waiting, where, signal);
    if (this.#groupOf.has(uri)) return Promise.resolve();
    const group = this.#roomFor();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    // Each subscribe waiting for it is told: a rejection none waits for is not unhandled.
    done.catch(() => undefined);
    const adding: Adding = {
      uri,
      where,
      timeout: options.timeout,
      done,
      resolve,
      reject,
      group,
      refusedBy: undefined,
      callers: 0,
    };
    this.#join(group, uri);
    this.#adding.set(uri, adding);
    group.adds.push(adding);
    void this.#settle(group);
    return this.#waitFor(adding, where, signal);
  }

  /**
   * One subscribe's wait for `adding`: its own signal ends its wait alone; once every
   * subscribe waiting for it has been cancelled, the URI is given up (one not yet sent is
   * never sent; one on its way is unsubscribed from once open).
   */
  #waitFor(adding: Adding, where: string, signal: AbortSignal | undefined): Promise<void> {
    adding.callers += 1;
    if (signal === undefined) return adding.done;
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        reject(this.line.cancelled(where, signal));
        if (--adding.callers === 0) this.#abandon(adding);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      adding.done.then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        // What a subscribe fails with is an Error (see #settled's callers).
        (error: Error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /**
   * Stops passing on `uri`'s updates at once; resolves once its stream has been opened
   * anew without it (or closed), or that failed (it then names it until its next change).
   */
  async unsubscribe(uri: string): Promise<void> {
    const group = this.#groupOf.get(uri);
    if (group === undefined) return;
    this.#leave(group, uri);
    const waiting = this.#adding.get(uri);
    if (waiting !== undefined) {
      this.#adding.delete(uri);
      const queued = waiting.group.adds.indexOf(waiting);
      // One not yet sent is done with; one on its way ends as its stream's open ends.
      if (queued >= 0) {
        waiting.group.adds.splice(queued, 1);
        this.#settled(waiting);
      }
    }
    await this.#settle(group);
  }

  /** Ends every stream: the connection is closing. */
  async close(): Promise<void> {
    const groups = [...this.#groups];
    this.#groups.clear();
    this.#groupOf.clear();
    const open: Promise<void>[] = [];
    for (const group of groups) {
      clearTimeout(group.reopen);
      group.reopen = undefined;
      group.wanted.clear();
      for (const adding of group.adds.splice(0)) {
        this.#settled(adding, connectionClosed(adding.where));
      }
      const stream = group.stream;
      group.stream = undefined;
      group.live = new Set();
      if (stream !== undefined) open.push(stream.close());
    }
    this.#adding.clear();
    await Promise.all(open);
  }

  /** A group with room for one more URI: the first, or a new one. */
  #roomFor(): Group {
    for (const group of this.#groups) {
      if (group.wanted.size < URIS_PER_LISTEN && !group.full) return group;
    }
    return this.#newGroup();
  }

  #newGroup(): Group {
    const group: Group = {
      wanted: new Set(),
      live: new Set(),
      stream: undefined,
      adds: [],
      settling: undefined,
      opened: 0,
      delay: REOPEN_DELAY_MS,
      reopen: undefined,
      full: false,
    };
    this.#groups.add(group);
    return group;
  }

  #join(group: Group, uri: string): void {
    group.wanted.add(uri);
    this.#groupOf.set(uri, group);
  }

  #leave(group: Group, uri: string): void {
    if (group.wanted.delete(uri)) group.full = false;
    if (this.#groupOf.get(uri) === group) this.#groupOf.delete(uri);
  }

  /** Ends the wait of the subscribes for `adding`, with `error` or without. */
  #settled(adding: Adding, error?: unknown): void {
    if (this.#adding.get(adding.uri) === adding) this.#adding.delete(adding.uri);
    if (error === undefined) adding.resolve();
    else adding.reject(error);
  }

  /**
   * A URI whose subscribes were all cancelled: one not yet sent is dropped; one on its
   * way is let go once its open ends (see {@link ResourceListens.#add}).
   */
  #abandon(adding: Adding): void {
    if (this.#adding.get(adding.uri) !== adding) return;
    const group = adding.group;
    const queued = group.adds.indexOf(adding);
    if (queued < 0) return;
    group.adds.splice(queued, 1);
    this.#leave(group, adding.uri);
    this.#settled(adding);
    void this.#settle(group);
  }

  /** Brings the group's stream to its URIs, one open at a time; resolves once it is done. */
  #settle(group: Group): Promise<void> {
    group.settling ??= this.#steps(group);
    return group.settling;
  }

  /**
   * Opens the group's stream anew until it names what it should. Its last check and the
   * end of the run fall in one turn: a subscribe in a later turn finds no run, and starts one.
   */
  async #steps(group: Group): Promise<void> {
    // Once `group.settling` holds this run (and this turn's subscribes are queued).
    await Promise.resolve();
    try {
      while (!this.line.closed.aborted && this.#groups.has(group)) {
        const adding = group.adds.shift();
        if (adding !== undefined) {
          await this.#add(group, adding);
          continue;
        }
        if (group.wanted.size === 0) {
          this.#drop(group);
          return;
        }
        const missing = [...group.wanted].some((uri) => !group.live.has(uri));
        const extra = [...group.live].some((uri) => !group.wanted.has(uri));
        // A stream waiting to be opened again waits its turn; one that names what it should is done.
        if ((!missing && !extra) || group.reopen !== undefined) return;
        // A failed reopen leaves the group as it is, but not the subscribes queued meanwhile.
        if (!(await this.#reopen(group)) && group.adds.length === 0) return;
      }
      // The connection closed: nothing queued will be sent.
      for (const adding of group.adds.splice(0))
        this.#settled(adding, connectionClosed(adding.where));
    } finally {
      group.settling = undefined;
    }
  }

  /** Opens the group's stream anew with the live URIs and `adding`'s. */
  async #add(group: Group, adding: Adding): Promise<void> {
    // Unsubscribed from and subscribed to again before its stream was opened anew.
    if (group.live.has(adding.uri)) {
      this.#settled(adding);
      return;
    }
    const kept = [...group.live].filter((uri) => group.wanted.has(uri));
    const target = [...kept, adding.uri];
    let stream: McpSubscription;
    try {
      stream = await this.line.open(
        adding.where,
        target,
        adding.timeout === undefined ? {} : { timeout: adding.timeout },
      );
    } catch (error) {
      const mine = this.#adding.get(adding.uri) === adding;
      if (mine && target.length > 1 && refused(error) && !this.line.closed.aborted) {
        // Refused beside others: maybe over what the server takes in one stream; alone, then.
        this.#leave(group, adding.uri);
        const own = this.#newGroup();
        this.#join(own, adding.uri);
        adding.group = own;
        adding.refusedBy = group;
        own.adds.push(adding);
        // Maybe all the server takes in one stream: the next URI goes elsewhere.
        group.full = true;
        void this.#settle(own);
        return;
      }
      // Refused alone too: the URI's fault, not the stream's size.
      if (adding.refusedBy !== undefined && refused(error)) adding.refusedBy.full = false;
      if (mine) this.#leave(group, adding.uri);
      this.#settled(adding, error);
      return;
    }
    const left = this.#swap(group, stream, target);
    if (adding.callers === 0 && this.#adding.get(adding.uri) === adding) {
      // Every subscribe for it was cancelled while it was on its way: let go of it again.
      this.#leave(group, adding.uri);
      this.#settled(adding);
      this.#lost(group, left);
      return;
    }
    if (left.includes(adding.uri)) {
      if (this.#adding.get(adding.uri) === adding) this.#leave(group, adding.uri);
      this.#settled(
        adding,
        new AgentToolError(
          'PROTOCOL',
          `${adding.where}: the server did not take the subscription (its acknowledgement leaves the URI out)`,
        ),
      );
    } else this.#settled(adding);
    this.#lost(
      group,
      left.filter((uri) => uri !== adding.uri),
    );
  }

  /**
   * Opens the group's stream anew with its URIs (after a drop, or without some); false
   * when that failed and the group waits (its stream, if any, still names more than it
   * should: their updates are not passed on).
   */
  async #reopen(group: Group): Promise<boolean> {
    const target = [...group.wanted];
    let stream: McpSubscription;
    try {
      stream = await this.line.open(this.line.reopening(), target, {});
    } catch (error) {
      if (this.line.closed.aborted) return false;
      const suspects = target.filter((uri) => !group.live.has(uri));
      // Only fewer URIs asked for: the stream as it is will do until the next change.
      if (suspects.length === 0) return false;
      if (refused(error) && target.length > 1) {
        // A resource gone, or more than the server takes: apart, what it takes is followed.
        const moved =
          suspects.length < target.length ? suspects : suspects.slice(suspects.length >> 1);
        const other = this.#newGroup();
        for (const uri of moved) {
          this.#leave(group, uri);
          this.#join(other, uri);
        }
        other.delay = group.delay;
        void this.#settle(other);
        return true;
      }
      if (refused(error) && target.length === 1) {
        this.line.lost(
          `${this.line.subscribing(target[0]!)}: the server refuses the subscription now (opening its stream again): ${errorText(error, this.line.reopening())}; asked again later, every minute at most`,
        );
      }
      this.#later(group);
      return false;
    }
    this.#lost(group, this.#swap(group, stream, target));
    return true;
  }

  /**
   * Makes `stream` the group's, closing the one before (once the new one is acknowledged,
   * so that no update falls between); resolves with the URIs of `target` its
   * acknowledgement leaves out.
   */
  #swap(group: Group, stream: McpSubscription, target: readonly string[]): string[] {
    const honored = new Set(stream.honoredFilter.resourceSubscriptions ?? []);
    const before = group.stream;
    group.stream = stream;
    group.live = new Set(target.filter((uri) => honored.has(uri)));
    group.opened = Date.now();
    void before?.close();
    if (!this.#groups.has(group) || group.live.size === 0) {
      group.stream = undefined;
      void stream.close();
    } else this.#watch(group, stream);
    return target.filter((uri) => !honored.has(uri));
  }

  /** URIs of the group a stream opened again leaves out: dropped, with a warning. */
  #lost(group: Group, uris: readonly string[]): void {
    for (const uri of uris) {
      if (!group.wanted.has(uri)) continue;
      this.#leave(group, uri);
      this.line.lost(
        `${this.line.subscribing(uri)}: the server no longer takes the subscription (opening its stream again)`,
      );
    }
  }

  /** Opens the group's stream again when it drops while the connection is open. */
  #watch(group: Group, stream: McpSubscription): void {
    void stream.closed.then((reason) => {
      if (group.stream !== stream) return;
      group.stream = undefined;
      group.live = new Set();
      if (reason === 'local' || this.line.closed.aborted || !this.#groups.has(group)) return;
      // A stream that stayed open a while starts the waits over.
      if (Date.now() - group.opened > MAX_REOPEN_DELAY_MS) group.delay = REOPEN_DELAY_MS;
      this.#later(group);
    });
  }

  /** Opens the group's stream again after its wait, the next wait twice as long. */
  #later(group: Group): void {
    if (group.reopen !== undefined) return;
    group.reopen = setTimeout(() => {
      group.reopen = undefined;
      void this.#settle(group);
    }, group.delay);
    group.reopen.unref();
    group.delay = Math.min(group.delay * 2, MAX_REOPEN_DELAY_MS);
  }

  /** A group with no URI left: its stream closed, the group gone. */
  #drop(group: Group): void {
    this.#groups.delete(group);
    clearTimeout(group.reopen);
    group.reopen = undefined;
    const stream = group.stream;
    group.stream = undefined;
    group.live = new Set();
    void stream?.close();
  }
}

/** True when the server answered the listen with a JSON-RPC error (not a share, not a lost line). */
function refused(error: unknown): boolean {
  return (
    error instanceof AgentToolError &&
    error.code === 'PROTOCOL' &&
    clientSdk().ProtocolError.isInstance(error.cause)
  );
}

/** `<where>: mcp: connection closed`. */
function connectionClosed(where: string): AgentToolError {
  return new AgentToolError('CONNECTION', `${where}: mcp: connection closed`);
}

/** An error's message, without `where` (the request it was about) before it. */
function errorText(error: unknown, where: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(`${where}: `) ? message.slice(where.length + 2) : message;
}
