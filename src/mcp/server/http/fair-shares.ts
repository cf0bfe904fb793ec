import { type AuthInfo, ProtocolError } from '@modelcontextprotocol/server';
import { goQuote } from '../../../core';
import { subjectOf } from '../auth';
import { jsonRpcError } from './http-io';
import { DEFAULT_MAX_CALLS, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS } from './http-options';
import { countLimit, fairShare } from '../calls';

/** The `Retry-After` of a refusal past a share or a limit, in seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** What one caller may hold of an endpoint, and the endpoint as a whole. */
export interface ShareLimits {
  readonly sessions: number;
  readonly sessionsPerCaller: number;
  readonly streams: number;
  readonly streamsPerCaller: number;
  readonly calls: number;
  readonly callsPerCaller: number;
}

/** The limits an endpoint's options set, checked (`INVALID_OPTIONS` for a bad one). */
export function shareLimits(options: {
  readonly maxSessions?: number | undefined;
  readonly maxSessionsPerSubject?: number | undefined;
  readonly maxStreams?: number | undefined;
  readonly maxStreamsPerSubject?: number | undefined;
  readonly maxCalls?: number | undefined;
  readonly maxCallsPerSubject?: number | undefined;
}): ShareLimits {
  const sessions = countLimit('maxSessions', options.maxSessions, DEFAULT_MAX_SESSIONS);
  const streams = countLimit('maxStreams', options.maxStreams, DEFAULT_MAX_STREAMS);
  const calls = countLimit('maxCalls', options.maxCalls, DEFAULT_MAX_CALLS);
  return {
    sessions,
    sessionsPerCaller: countLimit(
      'maxSessionsPerSubject',
      options.maxSessionsPerSubject,
      fairShare(sessions),
    ),
    streams,
    streamsPerCaller: countLimit(
      'maxStreamsPerSubject',
      options.maxStreamsPerSubject,
      fairShare(streams),
    ),
    calls,
    callsPerCaller: countLimit('maxCallsPerSubject', options.maxCallsPerSubject, fairShare(calls)),
  };
}

/**
 * The caller a request counts against: its authenticated subject, or, without
 * authorization, its client address (see `trustProxy`).
 */
export function callerKey(auth: AuthInfo | undefined, address: string): string {
  const subject = subjectOf(auth);
  return subject === undefined ? `address:${address}` : `subject:${subject}`;
}

/** The client address a caller is counted by; undefined for a subject. */
export function callerAddress(caller: string): string | undefined {
  return caller.startsWith('address:') ? caller.slice(8) : undefined;
}

/** A caller as a refusal names it to itself: `subject "ada"`, `client address 10.0.0.7`. */
export function callerName(caller: string): string {
  if (caller.startsWith('subject:')) return `subject ${goQuote(caller.slice(8))}`;
  return `client address ${caller.slice(8)}`;
}

/** How many of one thing each caller holds (sessions, open streams). */
export class Tally {
  readonly #held = new Map<string, number>();
  #total = 0;

  count(caller: string): number {
    return this.#held.get(caller) ?? 0;
  }

  get total(): number {
    return this.#total;
  }

  take(caller: string): void {
    this.#held.set(caller, this.count(caller) + 1);
    this.#total++;
  }

  give(caller: string): void {
    const left = this.count(caller) - 1;
    if (left > 0) this.#held.set(caller, left);
    else this.#held.delete(caller);
    this.#total--;
  }
}

/**
 * The refusal of a caller past its share: 429 with `Retry-After`, naming the limit and
 * how to get under it; other callers are not affected.
 */
export function overShare(
  caller: string,
  what: string,
  limit: number,
  option: string,
  remedy: string,
  id: unknown,
): Response {
  return jsonRpcError(
    429,
    -32000,
    overShareMessage(caller, what, limit, option, remedy),
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    id,
  );
}

/** What {@link overShare} says. */
export function overShareMessage(
  caller: string,
  what: string,
  limit: number,
  option: string,
  remedy: string,
): string {
  return `Too Many Requests: the ${callerName(caller)} holds its share of ${limit} ${what} (${option}); ${remedy}`;
}

/** The refusal past an endpoint's limit, whoever asks: 503 with `Retry-After`. */
export function overLimit(
  what: string,
  limit: number,
  option: string,
  remedy: string,
  id: unknown,
): Response {
  return jsonRpcError(
    503,
    -32000,
    overLimitMessage(what, limit, option, remedy),
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    id,
  );
}

/** What {@link overLimit} says. */
function overLimitMessage(what: string, limit: number, option: string, remedy: string): string {
  return `Service unavailable: the server holds its limit of ${limit} ${what} (${option}); ${remedy}`;
}

/**
 * The sessions of one endpoint (2025-era and 2026-07-28 handles together) against its
 * limit and each caller's share. `held` counts what the endpoint holds as a whole.
 */
export class SessionShares {
  readonly #tally = new Tally();

  constructor(
    readonly limits: ShareLimits,
    private readonly held: () => number,
  ) {}

  /** True when `caller` may hold one more session now. */
  room(caller: string): boolean {
    return (
      this.held() < this.limits.sessions &&
      this.#tally.count(caller) < this.limits.sessionsPerCaller
    );
  }

  /**
   * Why `caller` may not open one more session now (503 past the endpoint's limit, 429
   * past its share), or undefined.
   */
  refusal(caller: string, id: unknown, remedy: string): Response | undefined {
    if (this.held() >= this.limits.sessions) {
      return jsonRpcError(
        503,
        -32000,
        `Service unavailable: the server holds its limit of ${this.limits.sessions} sessions; end one (DELETE) or try again later`,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        id,
      );
    }
    if (this.#tally.count(caller) >= this.limits.sessionsPerCaller) {
      return overShare(
        caller,
        'sessions',
        this.limits.sessionsPerCaller,
        'maxSessionsPerSubject',
        remedy,
        id,
      );
    }
    return undefined;
  }

  /** Counts a session of `caller`; the returned function gives it back (once). */
  open(caller: string): () => void {
    this.#tally.take(caller);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.#tally.give(caller);
    };
  }

  /** How many sessions `caller` holds. */
  heldBy(caller: string): number {
    return this.#tally.count(caller);
  }
}

/**
 * The listening streams of one endpoint (a 2025-era session's GET stream, a 2026-07-28
 * `subscriptions/listen`) against its limit and each caller's share.
 */
export class StreamShares {
  readonly #tally = new Tally();

  constructor(readonly limits: ShareLimits) {}

  /** Why `caller` may not open one more stream now (503, 429), or undefined. */
  refusal(caller: string, id: unknown): Response | undefined {
    if (this.#tally.total >= this.limits.streams) {
      const later = 'try again later';
      return overLimit('open streams', this.limits.streams, 'maxStreams', later, id);
    }
    const remedy = 'close one of its streams first';
    if (this.#tally.count(caller) >= this.limits.streamsPerCaller) {
      return overShare(
        caller,
        'open streams',
        this.limits.streamsPerCaller,
        'maxStreamsPerSubject',
        remedy,
        id,
      );
    }
    return undefined;
  }

  /** Counts a stream of `caller`; the returned function gives it back (once). */
  open(caller: string): () => void {
    this.#tally.take(caller);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.#tally.give(caller);
    };
  }
}

/** How a caller past its share of calls in flight gets under it. */
const CALLS_REMEDY = 'wait for one of them to end, or cancel one, first';

/** How a caller gets in once the endpoint holds its limit of calls in flight. */
const CALLS_LATER = 'try again later';

/**
 * The calls in flight of one endpoint (tools' calls, prompts' gets, resources' reads),
 * against its limit (`maxCalls`), and of each of its callers, against its share
 * (`maxCallsPerSubject`): a call counts from its start to its end, whether or not the
 * connection of its request is still open (see `takeCallShare`).
 */
export class CallShares {
  readonly #tally = new Tally();

  constructor(readonly limits: Pick<ShareLimits, 'calls' | 'callsPerCaller'>) {}

  /**
   * Why `caller` may not start one more call now (503 past the endpoint's limit, 429 past
   * its share), or undefined.
   */
  refusal(caller: string, id: unknown): Response | undefined {
    const over = this.#over(caller);
    return over === undefined
      ? undefined
      : jsonRpcError(
          over.status,
          -32000,
          over.message,
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
          id,
        );
  }

  /**
   * Counts a call of `caller`; the returned function gives it back (once). Past the
   * endpoint's limit, or the caller's share, it is refused with the JSON-RPC error the
   * 503 or the 429 carries (-32000): a call that arrived together with others, or in a
   * batch, gets past the endpoint's check.
   */
  take(caller: string): () => void {
    const over = this.#over(caller);
    if (over !== undefined) throw new ProtocolError(-32000, over.message);
    this.#tally.take(caller);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#tally.give(caller);
    };
  }

  /** The refusal a new call of `caller` meets now, if any: the endpoint's limit first. */
  #over(caller: string): { readonly status: 429 | 503; readonly message: string } | undefined {
    const { calls, callsPerCaller } = this.limits;
    if (this.#tally.total >= calls) {
      return {
        status: 503,
        message: overLimitMessage('calls in flight', calls, 'maxCalls', CALLS_LATER),
      };
    }
    if (this.#tally.count(caller) < callsPerCaller) return undefined;
    return {
      status: 429,
      message: overShareMessage(
        caller,
        'calls in flight',
        callsPerCaller,
        'maxCallsPerSubject',
        CALLS_REMEDY,
      ),
    };
  }
}
