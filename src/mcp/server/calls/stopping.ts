import { setMaxListeners } from 'node:events';
import { AgentToolError, type SignalSource } from '../../../core';

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
  /** How many calls are in flight, and who waits for there to be none. */
  #inFlight = 0;
  #idle: (() => void)[] = [];
  /** What the server's stop stops: a list, so a call costs no set's rehashing. */
  readonly #running = new StopList();
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
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Keeps `work` among the calls in flight until it settles, and answers `then` of
   * its value: one promise per call, not one for the work and one for the tracking.
   */
  track<T, U>(work: Promise<T>, then: (value: T) => U): Promise<U>;
  track<T, U>(work: Promise<T>, then?: (value: T) => U): Promise<T | U> {
    this.#inFlight++;
    return work.then(
      (value) => {
        this.#forget();
        return then === undefined ? value : then(value);
      },
      (error: unknown) => {
        this.#forget();
        throw error;
      },
    );
  }

  /**
   * Counts a call in flight that answers without a tracked promise: it calls
   * {@link CallTracker.ended} once it has settled, however it settled.
   */
  began(): void {
    this.#inFlight++;
  }

  /** A call counted by {@link CallTracker.began} has settled. */
  ended(): void {
    this.#forget();
  }

  #forget(): void {
    if (--this.#inFlight === 0 && this.#idle.length > 0) {
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  /**
   * A call's signal: aborted when one of `sources` aborts (its request is cancelled, its
   * connection dropped) or when the server stops. `dispose` detaches it once the call is
   * over. The server's stop reaches it through a list, not a listener on the server's
   * signal: an event listener costs a call about a microsecond to add and remove. The
   * signal is made when it is first read (see {@link CallLink}).
   */
  callSignal(...sources: (AbortSignal | undefined)[]): CallLink {
    const link = new CallLink(sources);
    // A call made once the server stops is stopped by it, whatever else aborted.
    if (this.stopping) link.decide(this.#controller.signal.reason);
    else this.#running.add(link);
    return link;
  }

  /**
   * Stops `entry` when the server stops, until it leaves the list ({@link StopEntry.leave});
   * at once when the server has stopped already.
   */
  untilStopped(entry: StopEntry): void {
    if (this.stopping) entry.serverStopped(this.#controller.signal.reason);
    else this.#running.add(entry);
  }

  /** Aborts every running call (and refuses later ones). */
  stop(): void {
    this.#controller.abort(new AgentToolError('CONNECTION', SHUTTING_DOWN));
    const reason: unknown = this.#controller.signal.reason;
    for (const entry of this.#running.entries()) entry.serverStopped(reason);
  }

  /** Resolves once every call in flight has settled, however it settled. */
  async settled(): Promise<void> {
    while (this.#inFlight > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.#inFlight;
  }
}

/**
 * Something running that the server's stop stops, kept in the tracker's list while it
 * runs (see {@link CallTracker.untilStopped}).
 */
export abstract class StopEntry {
  #prev: StopEntry | undefined;
  #next: StopEntry | undefined;

  /** The server stopped, with `reason`. */
  abstract serverStopped(reason: unknown): void;

  /** Leaves the list the server's stop reads: it ends, or no longer needs stopping. */
  leave(): void {
    const prev = this.#prev;
    const next = this.#next;
    if (prev === undefined || next === undefined) return;
    prev.#next = next;
    next.#prev = prev;
    this.#prev = this.#next = undefined;
  }

  /** Makes `head` the head of an empty list. */
  static ring(head: StopEntry): void {
    head.#prev = head.#next = head;
  }

  /** Adds `entry` at the end of the list `head` starts. */
  static append(head: StopEntry, entry: StopEntry): void {
    if (entry.#prev !== undefined) return;
    const last = head.#prev!;
    entry.#prev = last;
    entry.#next = head;
    last.#next = entry;
    head.#prev = entry;
  }

  /** The entries of the list `head` starts, as they are now. */
  static entries(head: StopEntry): StopEntry[] {
    const entries: StopEntry[] = [];
    for (let entry = head.#next; entry !== undefined && entry !== head; entry = entry.#next) {
      entries.push(entry);
    }
    return entries;
  }
}

/** The tracker's list of what its stop stops; its head is the list's own entry. */
class StopList extends StopEntry {
  constructor() {
    super();
    StopEntry.ring(this);
  }

  serverStopped(): void {
    // The head stops nothing.
  }

  add(entry: StopEntry): void {
    StopEntry.append(this, entry);
  }

  /** The entries as they are now (the server's stop may remove some as it goes). */
  entries(): StopEntry[] {
    return StopEntry.entries(this);
  }
}

/**
 * An AbortController made when its signal is first read: most calls never read theirs.
 * An abort before that is kept, and the signal is made aborted.
 */
export class LazyAbortController implements SignalSource {
  #controller: AbortController | undefined;
  #aborted: { readonly reason: unknown } | undefined;

  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = this.#controller = new AbortController();
      if (this.#aborted !== undefined) controller.abort(this.#aborted.reason);
    }
    return controller.signal;
  }

  /** Aborts the signal, made or not; a second abort changes nothing. */
  abort(reason?: unknown): void {
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.#aborted ??= { reason };
  }
}

/**
 * A running call's signal, linked to its sources (aborting it when one aborts) and, in a
 * list the tracker keeps, to the server's stop. The signal is made, and linked to its
 * sources, when it is first read: most tools never read theirs, and linking costs a
 * call more than anything else the server does for it. Until then, what would have
 * aborted it is read off its sources when it is made, and the server's stop is kept
 * (with the reason of a source that aborted before it, which came first). The link
 * listens to its sources itself (the `handleEvent` of an event listener object).
 */
export class CallLink extends StopEntry implements SignalSource {
  #controller: AbortController | undefined;
  #sources: (AbortSignal | undefined)[] | undefined;
  /** The sources it listens to, once the signal is made. */
  #following: AbortSignal[] | undefined;
  /** Why it was stopped before its signal was made, or before its call was over. */
  #decided: { readonly reason: unknown } | undefined;
  #over = false;

  constructor(sources: (AbortSignal | undefined)[]) {
    super();
    this.#sources = sources;
  }

  /** The call's signal. */
  get signal(): AbortSignal {
    return (this.#controller ??= this.#make()).signal;
  }

  #make(): AbortController {
    const controller = new AbortController();
    const decided = this.#decided ?? (this.#over ? undefined : this.#abortedSource());
    if (decided !== undefined) {
      controller.abort(decided.reason);
      return controller;
    }
    if (this.#over) return controller;
    for (const source of this.#sources ?? []) {
      if (source === undefined) continue;
      source.addEventListener('abort', this);
      (this.#following ??= []).push(source);
    }
    return controller;
  }

  /** The first source that has aborted, if one has. */
  #abortedSource(): { readonly reason: unknown } | undefined {
    for (const source of this.#sources ?? []) {
      if (source?.aborted === true) return { reason: source.reason };
    }
    return undefined;
  }

  /** @internal A source aborted (the event listener's entry point). */
  handleEvent(event: Event): void {
    this.#controller?.abort((event.target as AbortSignal).reason);
  }

  /** @internal The server stopped: aborts the signal, or decides how it is made. */
  serverStopped(reason: unknown): void {
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else if (!this.#over) this.#decided ??= this.#abortedSource() ?? { reason };
  }

  /** @internal Aborts the signal, made or not, with `reason`, unless it is aborted already. */
  decide(reason: unknown): void {
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.#decided ??= { reason };
  }

  /**
   * Detaches the signal from its sources and from the server's stop: the call is over.
   * A signal made later is as it would have been now.
   */
  dispose(): void {
    if (this.#over) return;
    this.#over = true;
    if (this.#controller === undefined) this.#decided ??= this.#abortedSource();
    const following = this.#following;
    if (following !== undefined) {
      this.#following = undefined;
      for (const source of following) source.removeEventListener('abort', this);
    }
    this.#sources = undefined;
    this.leave();
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
