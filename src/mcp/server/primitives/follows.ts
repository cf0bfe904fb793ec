import { goQuote, type ResourceDescription, type StopFollowing } from '../../../core';

/** One URI some connections of a server subscribe to. */
interface Followed {
  /** The subscriptions that hold it, over every connection. */
  holders: number;
  /** Settles once the resource's `follow` has answered (at once without one). */
  ready: Promise<void>;
  /** What stops following it, once `follow` returned it. */
  stop: StopFollowing | undefined;
  /** True once the last holder has let go (or `follow` failed): nothing is followed. */
  ended: boolean;
}

/** One subscription's hold on a URI (see {@link ResourceFollows.hold}). */
export interface FollowHold {
  /** Settles once the URI is followed; rejects with what `follow` threw (the hold is then let go). */
  readonly ready: Promise<void>;
  /** Lets go of the URI; the last hold let go stops following it. Once only; later calls do nothing. */
  release(): void;
}

/**
 * The URIs a server's 2025-era connections subscribe to, each followed once whatever
 * the number of subscriptions (the resource's `follow`), and stopped when the last one
 * goes: unsubscribed, or its connection ended.
 */
export class ResourceFollows {
  readonly #followed = new Map<string, Followed>();
  #closed = false;

  constructor(
    /** Tells the subscribed connections that the resource at `uri` changed. */
    private readonly changed: (uri: string) => void,
    private readonly report: (message: string, error: unknown) => void,
  ) {}

  /**
   * One more subscription to `uri`, whose resource (or template) is `entry`: the first
   * calls `entry.follow`, the others share its answer.
   */
  hold(uri: string, entry: ResourceDescription | undefined): FollowHold {
    let followed = this.#followed.get(uri);
    if (followed === undefined) {
      followed = this.#follow(uri, entry);
      if (!this.#closed) this.#followed.set(uri, followed);
    }
    const held = followed;
    held.holders++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      held.holders--;
      if (held.holders > 0) return;
      if (this.#followed.get(uri) === held) this.#followed.delete(uri);
      this.#end(uri, held);
    };
    const ready = held.ready.catch((error: unknown) => {
      release();
      throw error;
    });
    return { ready, release };
  }

  /** Stops following every URI (the server is closing). */
  close(): void {
    this.#closed = true;
    const followed = [...this.#followed];
    this.#followed.clear();
    for (const [uri, held] of followed) this.#end(uri, held);
  }

  #follow(uri: string, entry: ResourceDescription | undefined): Followed {
    const followed: Followed = {
      holders: 0,
      ready: Promise.resolve(),
      stop: undefined,
      ended: this.#closed,
    };
    const follow = typeof entry?.follow === 'function' ? entry.follow.bind(entry) : undefined;
    if (follow === undefined || followed.ended) return followed;
    const changed = (): void => {
      if (!followed.ended) this.changed(uri);
    };
    followed.ready = (async () => {
      const stop = await follow(uri, changed);
      if (typeof stop !== 'function') return;
      // The last subscriber may have gone while it was being followed.
      if (followed.ended) this.#stop(uri, stop);
      else followed.stop = stop;
    })();
    // Each hold sees the failure through its own `ready`; nothing is followed then.
    followed.ready.catch(() => {
      followed.ended = true;
    });
    return followed;
  }

  #end(uri: string, followed: Followed): void {
    if (followed.ended) return;
    followed.ended = true;
    const stop = followed.stop;
    followed.stop = undefined;
    if (stop !== undefined) this.#stop(uri, stop);
  }

  #stop(uri: string, stop: StopFollowing): void {
    const failed = (error: unknown): void =>
      this.report(`mcp: resource ${goQuote(uri)}: stopping to follow it failed`, error);
    try {
      const stopped = stop();
      if (stopped instanceof Promise) stopped.catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}
