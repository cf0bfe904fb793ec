import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
} from '@modelcontextprotocol/server';
import {
  AgentToolError,
  type Elicitor,
  goQuote,
  type RootsLister,
  type Sampler,
} from '../../../core';
import { failure, type RunningCall } from './call';
import { type CallRoute } from './call-notices';
import {
  AUTO_KEY_PREFIX,
  type ClientAsk,
  elicitationAsk,
  missingCapabilityError,
  offers,
  type Pending,
  rootsAsk,
  type Round,
  samplingAsk,
} from './client-asks';
import { GivenAnswers } from './given-answers';
import { LazyAbortController, StopEntry } from './stopping';

/**
 * @internal How a run becomes a task (a tool whose task support is `questionsFirst`): once
 * a request finds the tool going on without asking (a turn of the event loop passes with
 * no request of the client and no result), or has returned when it must be a task, `take`
 * makes the task and its answer goes back instead. See tasks/start.ts.
 */
export interface RunHandOff {
  /** Hand over a run whose tool has returned, too (the tool requires a task). */
  readonly always: boolean;
  take(): Promise<CallToolResult>;
}

/** Where a run's questions are filed while its client answers them (`RoundTrips`). */
interface Parking {
  readonly maxRequests: number;
  park(run: RoundTripRun): Promise<string>;
}

/**
 * One call served to a client that takes questions as the call's result. MCP ends the
 * request when a question goes back, and the client answers by calling again, so the
 * tool runs on detached from the request that started it, and is parked between
 * requests under a request state the client echoes. A question (`ctx.ask`), a turn of
 * the client's model (`ctx.sample`) and a roots listing (`ctx.roots`) go back alike,
 * each under its key (the one the tool gave, or `elicit_<n>`, `sample_<n>`,
 * `roots_<n>`).
 */
export class RoundTripRun extends StopEntry {
  /**
   * Aborted when the run is stopped (its request cancelled, abandoned, its session ended,
   * the server stopped); its signal is made when first read.
   */
  readonly controller = new LazyAbortController();
  /** The run's elicitor: undefined when the client offered no elicitation. */
  readonly elicitor: Elicitor | undefined;
  /** The run's sampler: undefined when the client offered no sampling. */
  readonly sampler: Sampler | undefined;
  /** The run's roots lister: undefined when the client offered no roots. */
  readonly rootsLister: RootsLister | undefined;
  /** The request carrying the run now; none between requests. */
  route: CallRoute | undefined;
  running: RunningCall | undefined;
  /** Who may answer: a request state is answered only by requests of the same owner. */
  readonly owner: string;
  /** The tool the run calls: its request state is answered only by calls of that tool. */
  readonly tool: string;
  /** @internal Set when the run becomes a task once its first questions are answered. */
  handOff: RunHandOff | undefined;
  /**
   * The caller whose share of parked calls the run counts against (over HTTP: the
   * subject or client address); undefined where callers have no shares (stdio).
   */
  readonly caller: string | undefined;
  #asks: Pending[] = [];
  /** Wakes the request waiting on the run: the tool asked or returned, or the request ended. */
  #wake: (() => void) | undefined;
  #returned = false;
  #pending: Round | undefined;
  readonly #seq = { elicitation: 0, sampling: 0, roots: 0 };
  #requests = 0;
  #state: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #over = false;
  readonly #onOver: (() => void)[] = [];
  /** The capabilities of the request that carries the run now (or last did). */
  #capabilities: ClientCapabilities | undefined;
  /**
   * Answers the client sent with the call that started the run (no request state), by
   * the key the tool gives its request; each answers one request, once.
   */
  #given: GivenAnswers | undefined;
  /** The arguments its tool holds, until measured (see {@link heldBytes}). */
  #arguments: unknown;
  #argumentBytes: number | undefined;

  constructor(
    tool: string,
    owner: string,
    capabilities: ClientCapabilities | undefined,
    caller?: string,
  ) {
    super();
    this.tool = tool;
    this.owner = owner;
    this.caller = caller;
    this.#capabilities = capabilities;
    this.elicitor = offers(capabilities?.elicitation)
      ? (question) => this.#put(elicitationAsk(question))
      : undefined;
    this.sampler = offers(capabilities?.sampling)
      ? (request) => this.#put(samplingAsk(request))
      : undefined;
    this.rootsLister = offers(capabilities?.roots)
      ? (request) => this.#put(rootsAsk(request))
      : undefined;
  }

  /**
   * Takes what the run keeps of the request that began it: its arguments, which its
   * tool holds while it waits (measured by {@link heldBytes}), and the answers a call
   * without a request state carries up front (see {@link GivenAnswers}).
   */
  fromRequest(args: unknown, responses: Readonly<Record<string, unknown>> | undefined): void {
    this.#arguments = args;
    this.#given = GivenAnswers.of(responses);
  }

  /**
   * The bytes the run holds of its request, as JSON: its arguments and the answers it
   * keeps of those sent up front. What parking it counts (RoundTrips).
   */
  get heldBytes(): number {
    // Measured when first parked, not on every call: most calls never park.
    if (this.#argumentBytes === undefined) {
      this.#argumentBytes = JSON.stringify(this.#arguments)?.length ?? 0;
      this.#arguments = undefined;
    }
    return this.#argumentBytes + (this.#given?.bytes ?? 0);
  }

  /** The server stopped (see `CallTracker.untilStopped`): the run stops. */
  serverStopped(reason: unknown): void {
    this.stop(reason);
  }

  /** Runs `listener` once when nobody can collect the run's result any more. */
  onOver(listener: () => void): void {
    if (this.#over) listener();
    else this.#onOver.push(listener);
  }

  /** Stops the tool (its signal aborts with `reason`) and ends the run. */
  stop(reason: unknown): void {
    this.controller.abort(reason);
    // Requests not yet sent, and those waiting for answers, end with the run.
    const open = [...this.#asks.splice(0), ...(this.#pending?.values() ?? [])];
    this.#pending = undefined;
    for (const pending of open) pending.reject(reason);
    this.#finish();
  }

  /** @internal Ends the run without stopping its tool: a task carries it on. */
  end(): void {
    this.#finish();
  }

  #finish(): void {
    if (this.#over) return;
    this.#over = true;
    clearTimeout(this.#timer);
    for (const listener of this.#onOver.splice(0)) listener();
  }

  /** Runs the tool's call; the run waits for it (see {@link wait}). */
  start(running: RunningCall): void {
    this.running = running;
    const returned = (): void => {
      this.#returned = true;
      this.#wake?.();
    };
    // A tool that failed its request with a JSON-RPC error has returned too.
    running.result.then(returned, returned);
  }

  /**
   * Queues a request of the client for the request waiting on the run. A capability the
   * client did not declare fails it at once: the tool may do without, and if it does not
   * catch the error, its request fails with MissingRequiredClientCapability.
   */
  #put<T>(ask: ClientAsk<T>): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const missing = ask.missingFrom(this.#capabilities);
    if (missing !== undefined) return Promise.reject(missing);
    const given = ask.key === undefined ? undefined : this.#given?.take(ask.key);
    // An answer that does not read as one fails the request, as when sent under a state.
    if (given !== undefined && given !== null) return new Promise<T>((ok) => ok(ask.read(given)));
    return new Promise<T>((resolve, reject) => {
      this.#asks.push({ ask, resolve: resolve as (value: unknown) => void, reject });
      this.#wake?.();
    });
  }

  /**
   * Holds the request until the tool asks or returns. A question goes back as the
   * call's result, with any others the tool asked in the same turn, and the run is
   * parked for the answers; the tool's result goes back as the call's. A request
   * cancelled while it waits stops the tool. On the client's last allowed request a
   * question cannot go back (the client would give up on the call rather than answer),
   * so it is answered with an error at once and the request waits on. A tool that
   * failed for want of a capability the client did not declare fails the request with
   * MissingRequiredClientCapability (-32021), as the 2026-07-28 revision requires.
   */
  async wait(
    route: CallRoute,
    signal: AbortSignal,
    trips: Parking,
    capabilities: ClientCapabilities | undefined,
  ): Promise<CallToolResult | InputRequiredResult> {
    const running = this.running;
    if (running === undefined) throw new Error('mcp: a round-trip run was not started');
    this.#requests++;
    this.route = route;
    running.rerouted();
    this.#capabilities = capabilities;
    // The run listens itself (handleEvent), and removes itself below: no `once` to check.
    signal.addEventListener('abort', this);
    try {
      for (;;) {
        if (!this.#returned && this.#asks.length === 0 && !signal.aborted) {
          const woken = new Promise<void>((resolve) => (this.#wake = resolve));
          if (this.handOff === undefined) await woken;
          else if (!(await withinTurn(woken))) return await this.handOff.take();
        }
        if (signal.aborted) return this.#cancelled();
        if (this.#returned) {
          if (this.handOff?.always === true) return await this.handOff.take();
          try {
            const result = await running.result;
            const flushed = running.flush();
            if (flushed !== undefined) await flushed;
            const missing = running.missing();
            if (missing !== undefined) throw missingCapabilityError(missing);
            return result;
          } finally {
            this.#finish();
          }
        }
        // Requests made in the same turn go back together.
        await new Promise((resolve) => setImmediate(resolve));
        // A request cancelled while its questions are prepared stops the run: an answer
        // to it would go nowhere, and a parked run would wait for answers nobody sends.
        if (signal.aborted) return this.#cancelled();
        const asks = this.#asks.splice(0);
        if (asks.length === 0) continue;
        const limit = trips.maxRequests;
        if (limit > 0 && this.#requests >= limit) {
          const error = new AgentToolError(
            'PROTOCOL',
            `mcpserver: elicitation: the client makes ${limit} requests of a call at most and this question would need one more; ask fewer questions, or ask them together`,
          );
          for (const pending of asks) pending.reject(error);
          continue;
        }
        const round = this.#round(asks);
        if (round.size === 0) continue;
        let state: string;
        try {
          state = await trips.park(this);
        } catch (error) {
          // The caller holds its share of parked calls: these requests cannot go back.
          for (const pending of round.values()) pending.reject(error);
          continue;
        }
        this.#pending = round;
        if (signal.aborted) return this.#cancelled();
        const flushed = running.flush();
        if (flushed !== undefined) await flushed;
        if (signal.aborted) return this.#cancelled();
        const inputRequests: Record<string, InputRequest> = {};
        for (const [key, pending] of round) {
          Object.defineProperty(inputRequests, key, {
            value: pending.ask.inline,
            enumerable: true,
            configurable: true,
            writable: true,
          });
        }
        return inputRequired({ inputRequests, requestState: state });
      }
    } finally {
      signal.removeEventListener('abort', this);
      this.#wake = undefined;
      this.route = undefined;
    }
  }

  /** @internal The request waiting on the run was aborted (the event listener's entry point). */
  handleEvent(): void {
    this.#wake?.();
  }

  /**
   * The keys of one round: the tool's own, each once (a second request under a key
   * already in the round fails), and made-up ones (`elicit_<n>`, ...) that name none of
   * them.
   */
  #round(asks: readonly Pending[]): Round {
    const round: Round = new Map();
    const named = new Set(asks.flatMap((pending) => pending.ask.key ?? []));
    for (const pending of asks) {
      const key = pending.ask.key;
      if (key === undefined) continue;
      if (round.has(key)) {
        pending.reject(
          new AgentToolError(
            'INVALID_OPTIONS',
            `mcpserver: ${pending.ask.feature}: the key ${goQuote(key)} names another request of the same round; give each request its own key`,
          ),
        );
        continue;
      }
      round.set(key, pending);
    }
    for (const pending of asks) {
      if (pending.ask.key !== undefined) continue;
      const feature = pending.ask.feature;
      let key: string;
      do key = `${AUTO_KEY_PREFIX[feature]}_${++this.#seq[feature]}`;
      while (named.has(key) || round.has(key));
      round.set(key, pending);
    }
    return round;
  }

  /** Stops the run for its cancelled request (a parked run leaves its state with it). */
  #cancelled(): CallToolResult {
    this.stop(new AgentToolError('CANCELLED', 'mcp: the request was cancelled'));
    return failure('mcp: the request was cancelled');
  }

  /** @internal Files the run under `state` and starts the clock on the client's answer. */
  parkAs(state: string, abandonAfterMs: number, abandon: () => void): void {
    this.#state = state;
    clearTimeout(this.#timer);
    if (abandonAfterMs > 0) {
      // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
      this.#timer = setTimeout(abandon, Math.min(abandonAfterMs, 2 ** 31 - 1));
      this.#timer.unref();
    }
  }

  /** @internal The state the run is parked under. */
  get state(): string | undefined {
    return this.#state;
  }

  /**
   * @internal Hands the client's responses to the requests they answer: one left out
   * is answered as {@link ClientAsk.unanswered} says (a question: `cancel`); one that
   * does not read as an answer to its request fails that request. Only the response's
   * own members are read: a key such as `constructor` names nothing inherited.
   */
  answer(responses: Readonly<Record<string, unknown>> | undefined): void {
    clearTimeout(this.#timer);
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    for (const [key, { ask, resolve, reject }] of pending) {
      const response =
        responses !== undefined && Object.hasOwn(responses, key) ? responses[key] : undefined;
      try {
        resolve(
          response === undefined || response === null ? ask.unanswered() : ask.read(response),
        );
      } catch (error) {
        reject(error);
      }
    }
  }
}

/** True when `woken` resolves before a turn of the event loop has passed. */
function withinTurn(woken: Promise<void>): Promise<boolean> {
  return Promise.race([
    woken.then(() => true),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
}
