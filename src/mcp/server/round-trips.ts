import {
  type CallToolResult,
  type InputRequests,
  type InputRequiredResult,
  inputRequired,
} from '@modelcontextprotocol/server';
import { randomHex } from '../random';
import {
  AgentToolError,
  type Answer,
  CANCELLED_ANSWER,
  type Elicitation,
  type Elicitor,
  goQuote,
} from '../../core';
import { type CallRoute, failure, type RunningCall } from './call';
import {
  answerOf,
  type ElicitationOffer,
  inlineParams,
  offers,
  type Question,
  questionOf,
} from './elicit';

/**
 * How long a call waits for the client to come back with the answers to its questions
 * before it is stopped (30 minutes): the client comes back once the user has answered,
 * so this is human time.
 */
export const DEFAULT_ABANDON_AFTER_MS = 30 * 60 * 1000;

/**
 * How many requests a client makes of one call at most (10): the MCP SDKs' clients give
 * up on a call whose tenth request brings back a question rather than a result.
 */
export const DEFAULT_MAX_REQUESTS = 10;

/** How a server treats calls that ask questions of a 2026-07-28 client. */
export interface RoundTripOptions {
  /** Stop a call whose client has not come back with answers after this long (ms). */
  readonly abandonAfterMs?: number;
  /**
   * The most requests a client makes of one call (default {@link DEFAULT_MAX_REQUESTS},
   * 10): on the last one a question is answered with an error at once instead of going
   * back. A whole number; 0 means the default (as Go's zero value does), a negative
   * number means no limit. Anything else (NaN, a fraction, not a number) is refused with
   * an `INVALID_OPTIONS` error.
   */
  readonly maxRequests?: number;
}

/**
 * How a parked run's request state is made and read back. By default the state is the
 * run's key itself (128 random bits, meaningful to this process only); instances behind
 * a load balancer sign it with a shared key instead (see `ScaleOutOptions`).
 */
export interface RequestStates {
  /** The state a client echoes for the run parked under the local key `run`. */
  mint(run: string): Promise<string>;
  /**
   * The local key of the run `state` names on this instance; undefined when it names
   * none here (forged, expired, or another instance's).
   */
  read(state: string): Promise<string | undefined>;
}

/** The default: the state is the run's key. */
const LOCAL_STATES: RequestStates = {
  mint: (run) => Promise.resolve(run),
  read: (state) => Promise.resolve(state),
};

/**
 * @internal How a run becomes a task (a tool whose task support is `questionsFirst`): once
 * a request finds the tool going on without asking (a turn of the event loop passes with
 * no question and no result), or has returned when it must be a task, `take` makes the
 * task and its answer goes back instead. See tasks/start.ts.
 */
export interface RunHandOff {
  /** Hand over a run whose tool has returned, too (the tool requires a task). */
  readonly always: boolean;
  take(): Promise<CallToolResult>;
}

interface Ask {
  readonly question: Question;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One call served to a client that takes questions as the call's result. MCP ends the
 * request when a question goes back, and the client answers by calling again, so the
 * tool runs on detached from the request that started it, and is parked between
 * requests under a request state the client echoes.
 */
export class RoundTripRun {
  /** Aborted when the run is stopped (its request cancelled, abandoned, its session ended). */
  readonly controller = new AbortController();
  /** The run's elicitor: undefined when the client offered no elicitation. */
  readonly elicitor: Elicitor | undefined;
  /** The request carrying the run now; none between requests. */
  route: CallRoute | undefined;
  running: RunningCall | undefined;
  /** Who may answer: a request state is answered only by requests of the same owner. */
  readonly owner: string;
  /** The tool the run calls: its request state is answered only by calls of that tool. */
  readonly tool: string;
  /** @internal Set when the run becomes a task once its first questions are answered. */
  handOff: RunHandOff | undefined;
  #asks: Ask[] = [];
  /** Wakes the request waiting on the run: the tool asked or returned, or the request ended. */
  #wake: (() => void) | undefined;
  #returned = false;
  #pending: Map<string, Ask> | undefined;
  #seq = 0;
  #requests = 0;
  #state: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #over = false;
  readonly #onOver: (() => void)[] = [];

  constructor(tool: string, owner: string, offer: ElicitationOffer | undefined) {
    this.tool = tool;
    this.owner = owner;
    this.elicitor = offer === undefined ? undefined : (q) => this.#ask(q, offer);
  }

  /** Runs `listener` once when nobody can collect the run's result any more. */
  onOver(listener: () => void): void {
    if (this.#over) listener();
    else this.#onOver.push(listener);
  }

  /** Stops the tool (its signal aborts with `reason`) and ends the run. */
  stop(reason: unknown): void {
    this.controller.abort(reason);
    // Questions not yet sent, and those waiting for answers, end with the run.
    const open = [...this.#asks.splice(0), ...(this.#pending?.values() ?? [])];
    this.#pending = undefined;
    for (const ask of open) ask.reject(reason);
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

  async #ask(elicitation: Elicitation, offer: ElicitationOffer): Promise<Answer> {
    const question = questionOf(elicitation);
    if (!offers(offer, question)) return CANCELLED_ANSWER;
    const signal = this.controller.signal;
    if (signal.aborted) throw signal.reason;
    return new Promise<Answer>((resolve, reject) => {
      this.#asks.push({ question, resolve, reject });
      this.#wake?.();
    });
  }

  /**
   * Holds the request until the tool asks or returns. A question goes back as the
   * call's result, with any others the tool asked in the same turn, and the run is
   * parked for the answers; the tool's result goes back as the call's. A request
   * cancelled while it waits stops the tool. On the client's last allowed request a
   * question cannot go back (the client would give up on the call rather than answer),
   * so it is answered with an error at once and the request waits on.
   */
  async wait(
    route: CallRoute,
    signal: AbortSignal,
    trips: RoundTrips,
  ): Promise<CallToolResult | InputRequiredResult> {
    const running = this.running;
    if (running === undefined) throw new Error('mcp: a round-trip run was not started');
    this.#requests++;
    this.route = route;
    const wake = (): void => this.#wake?.();
    signal.addEventListener('abort', wake, { once: true });
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
            await running.flush();
            return result;
          } finally {
            this.#finish();
          }
        }
        // Questions asked in the same turn go back together.
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
          for (const ask of asks) ask.reject(error);
          continue;
        }
        const requests: InputRequests = {};
        this.#pending = new Map();
        for (const ask of asks) {
          const id = `elicit_${++this.#seq}`;
          this.#pending.set(id, ask);
          requests[id] = { method: 'elicitation/create', params: inlineParams(ask.question) };
        }
        const state = await trips.park(this);
        if (signal.aborted) return this.#cancelled();
        await running.flush();
        if (signal.aborted) return this.#cancelled();
        return inputRequired({ inputRequests: requests, requestState: state });
      }
    } finally {
      signal.removeEventListener('abort', wake);
      this.#wake = undefined;
      this.route = undefined;
    }
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
   * @internal Hands the client's answers to the questions they belong to: a question
   * left out is answered `cancel` (nobody chose); an answer off its schema, or that is
   * not an elicitation result, fails that question.
   */
  answer(responses: Readonly<Record<string, unknown>> | undefined): void {
    clearTimeout(this.#timer);
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    for (const [id, ask] of pending) {
      const response = responses?.[id];
      if (response === undefined || response === null) {
        ask.resolve(CANCELLED_ANSWER);
        continue;
      }
      try {
        ask.resolve(answerOf(ask.question, response));
      } catch (error) {
        ask.reject(error);
      }
    }
  }
}

/**
 * The calls of one server whose questions are with a 2026-07-28 client, by the request
 * state the client will echo. A state is random (128 bits), names a run only this
 * process holds, and answers once.
 */
export class RoundTrips {
  readonly #runs = new Map<string, RoundTripRun>();
  readonly #states: RequestStates;
  readonly abandonAfterMs: number;
  readonly maxRequests: number;

  constructor(options: RoundTripOptions = {}, states: RequestStates = LOCAL_STATES) {
    this.abandonAfterMs = positiveOr(options.abandonAfterMs, DEFAULT_ABANDON_AFTER_MS);
    this.maxRequests = requestLimit(options.maxRequests);
    this.#states = states;
  }

  /** @internal Parks `run` under a new key; resolves with the request state naming it. */
  park(run: RoundTripRun): Promise<string> {
    const state = randomHex(16);
    this.#runs.set(state, run);
    run.parkAs(state, this.abandonAfterMs, () => {
      if (this.#runs.get(state) !== run) return;
      this.#runs.delete(state);
      run.stop(
        new AgentToolError('CANCELLED', 'mcp: the client did not come back with the answers'),
      );
    });
    run.onOver(() => {
      if (this.#runs.get(state) === run) this.#runs.delete(state);
    });
    return this.#states.mint(state);
  }

  /**
   * Takes the answers a client came back with to the run they belong to and waits on it
   * again. A state that names no waiting run of this owner and tool (unknown, spent,
   * abandoned, forged, another instance's, another tool's) is the Go binding's isError
   * result saying so; a run named under another owner or tool stays parked for its own.
   */
  async resume(
    toolName: string,
    state: string,
    owner: string,
    responses: Readonly<Record<string, unknown>> | undefined,
    route: CallRoute,
    signal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult> {
    const key = await this.#states.read(state);
    const run = key === undefined ? undefined : this.#runs.get(key);
    if (key === undefined || run === undefined || run.owner !== owner || run.tool !== toolName) {
      return failure(
        `mcpserver: tool ${goQuote(toolName)}: the call these answers belong to is no longer waiting for them; call the tool again`,
      );
    }
    this.#runs.delete(key);
    run.answer(responses);
    return run.wait(route, signal, this);
  }

  /** Stops every parked run (the server is closing). */
  stopAll(reason: unknown): void {
    for (const run of [...this.#runs.values()]) run.stop(reason);
    this.#runs.clear();
  }

  /** How many runs wait for their client. */
  get parked(): number {
    return this.#runs.size;
  }
}

/** True when `woken` resolves before a turn of the event loop has passed. */
function withinTurn(woken: Promise<void>): Promise<boolean> {
  return Promise.race([
    woken.then(() => true),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
}

function positiveOr(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: abandonAfterMs must be a number of milliseconds (0 or less: never), got ${shown(value)}`,
    );
  }
  return value;
}

function requestLimit(value: number | undefined): number {
  if (value === undefined || value === 0) return DEFAULT_MAX_REQUESTS;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: maxRequests must be a whole number of requests (0: the default, ${DEFAULT_MAX_REQUESTS}; negative: no limit), got ${shown(value)}`,
    );
  }
  return value;
}

/** An option's value as an error shows it: a string quoted, so "10" is not read as 10. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
