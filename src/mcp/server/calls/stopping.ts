import { setMaxListeners } from 'node:events';
import { AgentToolError } from '../../../core';

/** The text of the answer a call gets when the server stops while it runs, or after. */
export const SHUTTING_DOWN = 'mcp: the server is shutting down';

/** How long a server's close waits for calls in flight to answer, by default (5 s). */
export const DEFAULT_CLOSE_GRACE_MS = 5000;

/**
 * How long a server's drain lets the work in flight finish, by default (30 s, the grace
 * most orchestrators give between SIGTERM and SIGKILL).
 */
export const DEFAULT_DRAIN_GRACE_MS = 30_000;

/**
 * The calls a server is serving, and the signal that stops them all when it closes: a
 * call that starts after it is refused, a running one is aborted, and the server waits
 * for their answers before it closes its transports.
 */
export class CallTracker {
  readonly #controller = new AbortController();
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The signals of running calls, aborted when the server stops. */
  readonly #running = new Set<AbortController>();
  #refusing = false;

  constructor() {
    // Every running call listens to this signal: many at once is the normal case.
    setMaxListeners(0, this.#controller.signal);
  }

  /** Aborted when the server begins to close. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the server has begun to close. */
  get stopping(): boolean {
    return this.#controller.signal.aborted;
  }

  /** True once the server refuses new calls (it drains or closes). */
  get refusing(): boolean {
    return this.#refusing || this.stopping;
  }

  /** Refuses new calls from now on; running ones go on (the server drains). */
  refuseNew(): void {
    this.#refusing = true;
  }

  /** Keeps `work` among the calls in flight until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const forget = (): void => void this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  /**
   * A call's signal: aborted when one of `sources` aborts (its request is cancelled, its
   * connection dropped) or when the server stops. `dispose` detaches it once the call is
   * over. The server's stop reaches it through a set, not a listener on the server's
   * signal: an event listener costs a call about a microsecond to add and remove.
   */
  callSignal(...sources: readonly (AbortSignal | undefined)[]): {
    signal: AbortSignal;
    dispose: () => void;
  } {
    const controller = new AbortController();
    if (this.stopping) {
      controller.abort(this.#controller.signal.reason);
      return { signal: controller.signal, dispose: () => undefined };
    }
    let detach: (() => void)[] | undefined;
    for (const source of sources) {
      if (source === undefined) continue;
      if (source.aborted) {
        controller.abort(source.reason);
        break;
      }
      // No `once`: dispose removes it anyway, and validating options costs every call.
      const onAbort = (): void => controller.abort(source.reason);
      source.addEventListener('abort', onAbort);
      (detach ??= []).push(() => source.removeEventListener('abort', onAbort));
    }
    this.#running.add(controller);
    return {
      signal: controller.signal,
      dispose: () => {
        this.#running.delete(controller);
        if (detach !== undefined) for (const undo of detach) undo();
      },
    };
  }

  /** Aborts every running call (and refuses later ones). */
  stop(): void {
    this.#controller.abort(new AgentToolError('CONNECTION', SHUTTING_DOWN));
    const reason: unknown = this.#controller.signal.reason;
    for (const controller of [...this.#running]) controller.abort(reason);
  }

  /** Resolves once every call in flight has settled, however it settled. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.#inFlight.size;
  }
}

/** Resolves when `work` settles or `ms` have passed, whichever comes first. */
export function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    timer.unref();
    void work.then(
      () => (clearTimeout(timer), resolve()),
      () => (clearTimeout(timer), resolve()),
    );
  });
}
