import {
  type LoggingLevel,
  type ProgressToken,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import { type Backlog } from './backlog';
import { Keepalive, type ProgressNumbers } from './progress-keepalive';
import {
  outputText,
  ProgressInfo,
  type Result,
  type SignalSource,
  withTraceData,
} from '../../../core';

/**
 * The request that carries a call now: where its progress and log lines go. A 2025-era
 * call has one for its whole life; a 2026-07-28 call that asks questions is carried by
 * each request the client makes of it in turn, and by none between them.
 */
export interface CallRoute {
  /** The request's progress token; progress is sent only when there is one. */
  readonly progressToken: ProgressToken | undefined;
  /** How far the client lags behind the request's stream, when it is a streamed HTTP answer. */
  readonly backlog?: Backlog | undefined;
  /**
   * True when the client polls for the call's state (a task) instead of waiting on the
   * request: no keepalive is sent to it.
   */
  readonly polled?: boolean;
  /** Sends a notification related to the request. */
  notify(notification: ServerNotification): Promise<void>;
  /** Sends a log line, filtered at the level the client asked for. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
}

/**
 * How much progress text one call sends at most, by default (64 KiB, what the sample
 * shell's result holds); past it one last update says `[output truncated]`.
 */
export const DEFAULT_PROGRESS_BUDGET_BYTES = 64 * 1024;

/** The note that ends a call's progress text once its budget is spent. */
export const TRUNCATED = '[output truncated]';

/** What a call's notices are made with (a call's `CallSetup` is one). */
export interface NoticesSetup {
  /** The request carrying the call now, if any. */
  readonly route: () => CallRoute | undefined;
  /** How much progress text the call sends at most (bytes). */
  readonly progressBudget: number;
  /**
   * How long the call stays quiet at most while a request that carries a progress token
   * waits on it (ms; 0 or absent: no keepalive).
   */
  readonly progressKeepalive?: number | undefined;
  /** The call's signal: a cancelled call is kept alive no longer. */
  readonly signalSource: SignalSource;
}

/** The route of a finished call: none. */
const NO_ROUTE = (): undefined => undefined;

/**
 * What one call sends its client while it runs (`notifications/progress`, log lines),
 * kept within bounds whatever the tool produces and however slowly the client reads:
 * - progress 1, 2, 3, … with the update's text as the message, or the numbers (and
 *   message, when it has one) of a {@link ProgressInfo} in the update's details; a total
 *   of 0 is not sent;
 * - progress text up to a budget per call, then one `[output truncated]` update, then
 *   numbers only (an update with no numbers of its own is dropped);
 * - while a request that carries a progress token waits on the call, progress with no
 *   text whenever the call has sent none for the keepalive interval (a quiet command,
 *   or one whose text is past the budget): a host that restarts its timeout on progress
 *   does not give up on a call that is still working (see {@link Keepalive});
 * - while the client lags (a streamed HTTP answer it has not read), progress is
 *   coalesced (the latest waits, and goes out once the client catches up) and log lines
 *   are dropped;
 * - nothing after the call has finished.
 * Sending is best effort: a notification the client cannot take does not fail the call.
 */
export class CallNotices {
  #route: () => CallRoute | undefined;
  /** Notifications not yet out; made with the first (most calls send none). */
  #pending: Set<Promise<void>> | undefined;
  #finished = false;
  #count = 0;
  #textLeft: number;
  #truncated = false;
  #held: ProgressNumbers | undefined;
  /** Made once a request that carries a progress token waits on the call; most have none. */
  #keepalive: Keepalive | undefined;
  /** The keepalive's interval (0: none), and the signal it stops on until the call ends. */
  readonly #interval: number;
  #signalSource: SignalSource | undefined;

  constructor(setup: NoticesSetup) {
    this.#route = setup.route;
    this.#textLeft = setup.progressBudget;
    this.#interval = setup.progressKeepalive ?? 0;
    // Only kept where a later request may start the keepalive: a finished call lets go.
    if (this.#interval > 0) this.#signalSource = setup.signalSource;
    this.rerouted();
  }

  /**
   * A request now waits on the call (its first, or a later one of a 2026-07-28 call
   * that asked questions): the keepalive starts if this one carries a progress token
   * and none has started yet.
   */
  rerouted(): void {
    const signalSource = this.#signalSource;
    if (this.#keepalive !== undefined || this.#finished || signalSource === undefined) return;
    const route = this.#route();
    if (route?.progressToken !== undefined && route.polled !== true) {
      this.#keepalive = new Keepalive(this.#interval, signalSource, this);
    }
  }

  /** A progress update of the call. */
  readonly progress = (update: Result): void => {
    if (this.#finished) return;
    this.#count++;
    const info = update.details instanceof ProgressInfo ? update.details : undefined;
    const params: ProgressNumbers = { progress: info?.progress ?? this.#count };
    if (info !== undefined && info.total > 0) params.total = info.total;
    const text =
      info !== undefined && info.message !== '' ? info.message : outputText(update.output);
    if (text !== '') {
      if (this.#truncated) {
        // The budget is spent: the numbers go on, the text does not.
        if (info === undefined) return;
      } else {
        params.message = this.#within(text);
      }
    }
    this.#sendProgress(params, info !== undefined);
  };

  /**
   * The call has been quiet for the keepalive interval: progress with no text, numbers
   * above the last ones sent (see {@link Keepalive.next}), when a request that carries a
   * progress token waits on the call now (a 2026-07-28 call asking its questions has
   * none between requests; a call that became a task is polled).
   */
  beat(): void {
    const keepalive = this.#keepalive;
    const route = this.#finished ? undefined : this.#route();
    if (keepalive === undefined || route?.progressToken === undefined || route.polled === true) {
      return;
    }
    this.#sendProgress(keepalive.next(++this.#count), keepalive.own);
  }

  /** A log line of the call; dropped while the client lags. */
  readonly log = (level: LoggingLevel, data: unknown, logger?: string): void => {
    const route = this.#finished ? undefined : this.#route();
    if (route === undefined || route.backlog?.congested === true) return;
    this.#deliver(route.log(level, withTraceData(data), logger));
  };

  /**
   * The call is over: nothing more is sent, and progress held back is dropped. The route
   * is let go of too: a call that was running when the young generation was collected
   * lives on in the old generation until the next full collection, dead, and whatever
   * it still points to (its request, the SDK's context, the serving function's
   * variables) would be kept through every young collection until then.
   */
  finish(): void {
    this.#finished = true;
    this.#held = undefined;
    this.#route = NO_ROUTE;
    this.#signalSource = undefined;
    this.#keepalive?.stop();
    this.#keepalive = undefined;
  }

  /**
   * Resolves once every notification sent so far has gone out (or failed to); undefined
   * when none is pending: most calls send nothing, and an await of nothing still costs
   * a microtask turn.
   */
  flush(): Promise<void> | undefined {
    const pending = this.#pending;
    return pending === undefined || pending.size === 0
      ? undefined
      : Promise.all(pending).then(() => undefined);
  }

  /** `text` within what is left of the budget; the one that overflows it ends truncated. */
  #within(text: string): string {
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.#textLeft) {
      this.#textLeft -= bytes;
      return text;
    }
    this.#truncated = true;
    const kept = Buffer.from(text)
      .subarray(0, this.#textLeft)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    this.#textLeft = 0;
    return kept === '' ? TRUNCATED : `${kept}\n${TRUNCATED}`;
  }

  /** Sends `params`; `own` when its numbers are the tool's own, not a count. */
  #sendProgress(params: ProgressNumbers, own: boolean): void {
    const route = this.#finished ? undefined : this.#route();
    const token = route?.progressToken;
    if (route === undefined || token === undefined) return;
    this.#keepalive?.sent(params, own);
    const backlog = route.backlog;
    if (backlog?.congested === true) {
      // The latest update waits for the client to catch up; older ones are dropped.
      const waiting = this.#held !== undefined;
      this.#held = params;
      if (!waiting) backlog.onDrain(() => this.#release());
      return;
    }
    backlog?.sent();
    this.#deliver(
      route.notify({
        method: 'notifications/progress',
        params: { progressToken: token, ...params },
      }),
    );
  }

  #release(): void {
    const held = this.#held;
    this.#held = undefined;
    // The keepalive noted the held update when it was held: whose numbers they are stays.
    if (held !== undefined) this.#sendProgress(held, this.#keepalive?.own ?? false);
  }

  #deliver(sending: Promise<void>): void {
    const sent = sending.catch(() => undefined);
    const pending = (this.#pending ??= new Set());
    pending.add(sent);
    void sent.then(() => pending.delete(sent));
  }
}
