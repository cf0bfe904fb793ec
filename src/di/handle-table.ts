import { AgentToolError, nodeCrypto, type Session } from '../core';
import { callerFull, describeMs } from './handle-messages';

// The live handles of an app (see handles.ts for what a handle is): minted, kept while
// used, ended by their limits, and why each ended.

/** A handle kind with its defaults applied. */
export interface HandleKind {
  readonly argument: string;
  readonly holds: string;
  readonly idleMs: number;
  readonly maxPerCaller: number;
  readonly maxOpen: number;
}

/**
 * The session of one handle: what the handle's instances live in, ended by the table
 * (idle, evicted, the app closing).
 */
class HandleSession implements Session {
  readonly endsWithCall = false;
  readonly #listeners: (() => void | Promise<void>)[] = [];
  #closed: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly client: Session['client'],
  ) {}

  onClose(listener: () => void | Promise<void>): void {
    if (this.#closed === undefined) this.#listeners.push(listener);
    // Registered after the end: run now; nobody is left to tell of its failure.
    else
      void Promise.resolve()
        .then(listener)
        .catch(() => undefined);
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      const errors: unknown[] = [];
      for (const listener of this.#listeners.splice(0).reverse()) {
        try {
          await listener();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw new AggregateError(errors, `handle ${this.id}: closing failed`);
    })();
    return this.#closed;
  }
}

/** One live handle. */
export interface Held {
  readonly kind: HandleKind;
  readonly session: HandleSession;
  /** The caller that minted it: the authenticated subject, "" without one. */
  readonly caller: string;
  /**
   * Whose most (`maxPerCaller`) it counts against: the subject, or, without one, who the
   * transport says calls (the client's address over HTTP), so that one anonymous client's
   * new handles never end another's.
   */
  readonly quota: string;
  inFlight: number;
  /**
   * Minted by a call that has not answered yet: it counts among the open ones, is never
   * taken back, and makes its room once answered (see HandleTable.settle).
   */
  minting: boolean;
  /** When a call on it last ended, as a count of such moments (milliseconds tie). */
  lastUsed: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * What looking for room does: take a handle back `now` (a session's first call), only
 * `check` there is room to make (a mint, whose call has not answered yet), or, with the
 * new handle live, take back what it takes the place of (`settle`).
 */
type RoomMode = 'now' | 'check' | { readonly settle: Held };

/** Why a handle ended, for the error a later call with it gets. */
type EndedBy = 'idle' | 'most' | 'share' | 'full';

/** How many ended handles are remembered with why they ended (the oldest go first). */
const ENDED_REMEMBERED = 1024;

/** The live handles of one app. */
export class HandleTable {
  readonly #live = new Map<string, Held>();
  /**
   * The lasting sessions (2025-era, stdio, a batch's) whose own instances of a kind are
   * counted among its open ones, by kind (its argument), with the quota of each.
   */
  readonly #sessionHeld = new Map<string, Map<Session, string>>();
  /** Handles ended by a limit, lately: whose they were and why they ended. */
  readonly #ended = new Map<string, { readonly caller: string; readonly why: EndedBy }>();
  #closed = false;
  #uses = 0;

  constructor(private readonly onError: (message: string, error: unknown) => void) {}

  /** The live handle `id` of `kind` that `caller` may use, else undefined. */
  find(kind: HandleKind, id: string, caller: string): Held | undefined {
    const held = this.#live.get(id);
    if (held === undefined || held.kind.argument !== kind.argument || held.caller !== caller) {
      return undefined;
    }
    return held;
  }

  /**
   * Why `caller`'s handle `id` of `kind` ended, when a limit ended it lately; undefined
   * when it is not known (another caller's, never minted, or long ago).
   */
  whyEnded(kind: HandleKind, id: string, caller: string): string | undefined {
    const ended = this.#ended.get(id);
    if (ended === undefined || ended.caller !== caller) return undefined;
    switch (ended.why) {
      case 'idle':
        return `it was closed after ${describeMs(kind.idleMs)} unused`;
      case 'most':
        return `it was closed when this caller started one more ${kind.holds} past its most (${kind.maxPerCaller}): the one unused longest is closed then${caller === '' ? ' (without authorization, the clients at one address count as one caller)' : ''}`;
      case 'share':
        return `it was closed to make room for another caller when the server held its most ${kind.holds}s (${kind.maxOpen}, all callers together): the caller holding the most gives up its ${kind.holds} unused longest`;
      case 'full':
        return `it was closed when this caller started one more ${kind.holds} while the server held its most ${kind.holds}s (${kind.maxOpen}, all callers together) and no other caller held two more: the one unused longest is closed then`;
    }
  }

  /** A new handle for `caller`, counted against `quota`, prefixed as its session says. */
  mint(kind: HandleKind, caller: string, quota: string, session: Session | undefined): Held {
    if (this.#closed) throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed');
    // Room is only looked for now: it is made once the call that mints has answered (see
    // settle), so that a call that fails (its arguments refused) takes back no handle.
    this.#makeRoom(kind, quota, 'handle', 'check');
    const id = `${session?.handlePrefix ?? ''}${kind.argument.replace(/_id$/, '')}_${nodeCrypto().randomBytes(12).toString('base64url')}`;
    const held: Held = {
      kind,
      session: new HandleSession(id, session?.client),
      caller,
      quota,
      inFlight: 0,
      minting: true,
      lastUsed: ++this.#uses,
      timer: undefined,
    };
    this.#live.set(id, held);
    return held;
  }

  /**
   * Counts `session`'s own instances of `kind` (a lasting session's: 2025-era, stdio, a
   * batch's) among the kind's open ones, against its caller's quota, from its first call until it
   * ends, so that sessions cannot open past `maxOpen` what handles may not. Fails, as a
   * new handle does, when the kind is at its most and no other caller's idle handle can
   * be taken back, or the caller holds its most (`maxPerCaller`) and none of its
   * handles is idle. They are never ended by the table: the session ends them.
   */
  claimForSession(kind: HandleKind, session: Session, quotaOf: () => string): void {
    let held = this.#sessionHeld.get(kind.argument);
    if (held?.has(session) === true) return;
    const quota = quotaOf();
    if (this.#closed) throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed');
    this.#makeRoom(kind, quota, 'session');
    if (held === undefined) {
      held = new Map();
      this.#sessionHeld.set(kind.argument, held);
    }
    const of = held;
    of.set(session, quota);
    session.onClose(() => void of.delete(session));
  }

  /** Marks a call on `held` begun: it does not expire meanwhile. */
  busy(held: Held): void {
    held.inFlight++;
    clearTimeout(held.timer);
    held.timer = undefined;
  }

  /** Marks a call on `held` over: its idle time starts again when none is left. */
  done(held: Held): void {
    held.inFlight--;
    held.lastUsed = ++this.#uses;
    if (held.inFlight > 0 || this.#live.get(held.session.id) !== held) return;
    // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
    held.timer = setTimeout(() => this.#end(held, 'idle'), Math.min(held.kind.idleMs, 2 ** 31 - 1));
    held.timer.unref();
  }

  /**
   * Makes room for `held`, minted by a call that has answered with it: past its caller's
   * most, or the kind's, the handle a new one takes back (see mint) ends now; where none
   * is idle any more (one turned busy meanwhile), the caller holds one over its most until
   * its next new one makes room.
   */
  settle(held: Held): void {
    if (this.#live.get(held.session.id) !== held) return;
    this.#makeRoom(held.kind, held.quota, 'handle', { settle: held });
    held.minting = false;
  }

  /**
   * Ends `held`, a handle whose id was never given to its caller (the call that minted it
   * failed or was cancelled), without remembering why: no later call can name it.
   */
  drop(held: Held): void {
    if (held.inFlight === 0 && this.#live.get(held.session.id) === held) this.#close(held);
  }

  /** Ends every handle; later mints fail. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#sessionHeld.clear();
    const all = [...this.#live.values()];
    this.#live.clear();
    const errors: unknown[] = [];
    for (const held of all) {
      clearTimeout(held.timer);
      await held.session.close().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw new AggregateError(errors, 'closing the handles failed');
  }

  #end(held: Held, why: EndedBy): void {
    if (this.#live.get(held.session.id) !== held) return;
    this.#ended.set(held.session.id, { caller: held.caller, why });
    if (this.#ended.size > ENDED_REMEMBERED) {
      this.#ended.delete(this.#ended.keys().next().value as string);
    }
    this.#close(held);
  }

  #close(held: Held): void {
    this.#live.delete(held.session.id);
    clearTimeout(held.timer);
    held.session
      .close()
      .catch((error: unknown) =>
        this.onError(`agenttool/di: ending ${held.kind.holds} ${held.session.id} failed`, error),
      );
  }

  /**
   * Makes room for one more of `kind` for `quota`, as a plan taken whole or not at all:
   * past the caller's most (handles and lasting sessions' own instances together), its
   * idle handles unused longest end; past the kind's most, all callers together, the
   * caller holding the most (more than one beyond what `quota` holds) gives up its idle
   * handle unused longest, so that a few callers cannot keep every other one out, and
   * again while over; where none does, the caller's own idle one unused longest (the
   * new one is its choice, as past its own most). Handles being minted (their calls not answered yet) count, when
   * checking and when settling alike, and are never taken: each needs its own room, so
   * that calls minting at once cannot hold past a most between them (whichever answers
   * first takes back what the others' checks counted on). Settling, the new handle is
   * live and counts, and what cannot be taken back is left (one turned busy meanwhile:
   * held over until the next mint makes room). Otherwise the plan fails whole, saying
   * why.
   */
  #makeRoom(
    kind: HandleKind,
    quota: string,
    asker: 'handle' | 'session',
    mode: RoomMode = 'now',
  ): void {
    const added = typeof mode === 'object' ? mode.settle : undefined;
    let open = 0;
    interface Holding {
      /** Handles and sessions' own instances. */
      count: number;
      handles: number;
      /** Its handles being minted. */
      minting: number;
      /** Its idle handles, the one unused longest first. */
      idle: Held[];
    }
    const byQuota = new Map<string, Holding>();
    const holdingOf = (of: string): Holding => {
      let entry = byQuota.get(of);
      if (entry === undefined) {
        entry = { count: 0, handles: 0, minting: 0, idle: [] };
        byQuota.set(of, entry);
      }
      return entry;
    };
    for (const held of this.#live.values()) {
      if (held.kind.argument !== kind.argument) continue;
      open++;
      const entry = holdingOf(held.quota);
      entry.count++;
      entry.handles++;
      if (held.minting && held !== added) entry.minting++;
      else if (held.inFlight === 0 && held !== added) entry.idle.push(held);
    }
    for (const of of this.#sessionHeld.get(kind.argument)?.values() ?? []) {
      open++;
      holdingOf(of).count++;
    }
    for (const entry of byQuota.values()) entry.idle.sort((a, b) => a.lastUsed - b.lastUsed);
    const own = holdingOf(quota);
    // What the caller holds before the one it asks for (settling: before the one it got).
    const before = { count: own.count, handles: own.handles, minting: own.minting };
    if (added === undefined) {
      own.count++;
      open++;
    } else {
      before.count--;
      before.handles--;
    }
    const victims: [Held, EndedBy][] = [];
    let problem: string | undefined;
    while (own.count > kind.maxPerCaller) {
      const victim = own.idle.shift();
      if (victim === undefined) {
        problem = callerFull(kind, quota, before);
        break;
      }
      victims.push([victim, 'most']);
      own.count--;
      open--;
    }
    while (problem === undefined && open > kind.maxOpen) {
      let largest: Holding | undefined;
      for (const [other, entry] of byQuota) {
        const oldest = entry.idle[0];
        // At least two more than the caller holds before the new one.
        if (other === quota || oldest === undefined || entry.count <= own.count) continue;
        const best = largest?.idle[0];
        if (
          largest === undefined ||
          best === undefined ||
          entry.count > largest.count ||
          (entry.count === largest.count && oldest.lastUsed < best.lastUsed)
        ) {
          largest = entry;
        }
      }
      // Else the caller's own, as past its own most: the new one is its choice.
      const giver = largest ?? (own.idle.length > 0 ? own : undefined);
      const victim = giver?.idle.shift();
      if (giver === undefined || victim === undefined) {
        const instead =
          asker === 'handle'
            ? `pass the ${kind.argument} of one you hold, or try again once one has closed (after ${describeMs(kind.idleMs)} unused)`
            : `try again once one has closed (a session's ${kind.holds} closes with its session; one held by ${kind.argument} after ${describeMs(kind.idleMs)} unused)`;
        problem = `the server holds its most ${kind.holds}s (${kind.maxOpen}, all callers together), and none could be taken back (a caller holding at least two more than this one gives up its idle one unused longest, else this caller its own); ${instead}`;
        break;
      }
      victims.push([victim, giver === own ? 'full' : 'share']);
      giver.count--;
      open--;
    }
    if (added !== undefined) {
      for (const [victim, why] of victims) this.#end(victim, why);
      return;
    }
    if (problem !== undefined) throw new Error(problem);
    if (mode === 'now') for (const [victim, why] of victims) this.#end(victim, why);
  }
}
