import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { randomBytes, randomHex, sha256Base64Url } from '../../random';
import { AgentToolError, goQuote } from '../../../core';
import { failure } from './call';
import { type CallRoute } from './call-notices';
import { envelopeCapabilities, routeOf } from './request-route';
import { type RequestStates, SignedRequestStates } from './request-states';
import { RoundTripRun } from './round-trip-run';

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

/** How many calls wait for their clients' answers at once, by default (1000). */
export const DEFAULT_MAX_PARKED_CALLS = 1000;

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
  /**
   * The most calls that wait for their clients' answers at once, over every connection
   * (default {@link DEFAULT_MAX_PARKED_CALLS}, 1000). Past it a question that would go
   * back fails at once (the tool's `ctx.ask` throws), and over HTTP a new 2026-07-28
   * `tools/call` gets 503 until answers come in. A call counts once for each 64 KiB
   * its arguments and the answers it keeps take as JSON (at least once); a caller's
   * first is always taken.
   */
  readonly maxParkedCalls?: number;
  /**
   * The most such calls one caller keeps waiting (over HTTP: one authenticated subject,
   * or one client address without authorization; see `trustProxy`). Default: a fair
   * share, a tenth of {@link RoundTripOptions.maxParkedCalls} (at least 1). Past it
   * that caller's questions fail at once and its new 2026-07-28 calls get 429 with
   * `Retry-After`; other callers are not affected.
   */
  readonly maxParkedCallsPerSubject?: number;
}

/** A state outlives the wait for its answers by a minute; "never abandon" is ~68 years. */
export function stateTtlSeconds(abandonAfterMs: number): number {
  return abandonAfterMs > 0 ? Math.ceil(abandonAfterMs / 1000) + 60 : 2 ** 31 - 1;
}

/** A digest naming an owner in a state: the state carries no subject in the clear. */
export function ownerDigest(owner: string): string {
  return sha256Base64Url(owner).slice(0, 22);
}

/**
 * The calls of one server whose questions are with a 2026-07-28 client, by the request
 * state the client will echo. A state is signed, names a run only this process (or, scaled
 * out, one instance) holds, its owner and its tool, and answers once.
 */
export class RoundTrips {
  readonly #runs = new Map<string, RoundTripRun>();
  /** What the parked runs count together against `maxParkedCalls` (see {@link weightOf}). */
  #weight = 0;
  /** What each caller's parked runs count (callers with shares only). */
  readonly #byCaller = new Map<string, number>();
  #states: RequestStates | undefined;
  readonly abandonAfterMs: number;
  readonly maxRequests: number;
  readonly maxParked: number;
  readonly maxParkedPerCaller: number;

  constructor(options: RoundTripOptions = {}, states?: RequestStates) {
    this.abandonAfterMs = positiveOr(options.abandonAfterMs, DEFAULT_ABANDON_AFTER_MS);
    this.maxRequests = requestLimit(options.maxRequests);
    this.maxParked = countLimit('maxParkedCalls', options.maxParkedCalls, DEFAULT_MAX_PARKED_CALLS);
    this.maxParkedPerCaller = countLimit(
      'maxParkedCallsPerSubject',
      options.maxParkedCallsPerSubject,
      fairShare(this.maxParked),
    );
    this.#states = states;
  }

  /** The states' signer: a key of this process's own unless given (made on first use). */
  get #signer(): RequestStates {
    this.#states ??= new SignedRequestStates(
      randomBytes(32),
      '',
      stateTtlSeconds(this.abandonAfterMs),
    );
    return this.#states;
  }

  /**
   * @internal Parks `run` under a new key; resolves with the request state naming it.
   * Throws when the server, or the run's caller, holds its limit of parked calls.
   */
  park(run: RoundTripRun): Promise<string> {
    const weight = weightOf(run);
    const refusal = this.refusal(run.caller, weight);
    if (refusal !== undefined) {
      throw new AgentToolError(
        'PROTOCOL',
        `mcpserver: ${refusal.message}; the question cannot go back to the client now`,
      );
    }
    const key = randomHex(16);
    this.#runs.set(key, run);
    this.#weight += weight;
    const caller = run.caller;
    if (caller !== undefined) {
      this.#byCaller.set(caller, (this.#byCaller.get(caller) ?? 0) + weight);
    }
    let filed = true;
    const unfile = (): void => {
      if (!filed) return;
      filed = false;
      this.#runs.delete(key);
      this.#weight -= weight;
      if (caller === undefined) return;
      const left = (this.#byCaller.get(caller) ?? weight) - weight;
      if (left > 0) this.#byCaller.set(caller, left);
      else this.#byCaller.delete(caller);
    };
    run.parkAs(key, this.abandonAfterMs, () => {
      if (this.#runs.get(key) !== run) return;
      unfile();
      run.stop(
        new AgentToolError('CANCELLED', 'mcp: the client did not come back with the answers'),
      );
    });
    run.onOver(unfile);
    this.#unfile.set(run, unfile);
    return this.#signer.mint({ run: key, owner: ownerDigest(run.owner), tool: run.tool });
  }

  readonly #unfile = new WeakMap<RoundTripRun, () => void>();

  /**
   * Why a new parked call of `caller` counting `weight` (see {@link weightOf}) would be
   * refused now, or undefined: the server holds `maxParkedCalls`, or the caller its
   * share. One call is always taken where none is parked, whatever it counts.
   */
  refusal(
    caller: string | undefined,
    weight = 1,
  ): { readonly perCaller: boolean; readonly message: string } | undefined {
    if (this.#weight > 0 && this.#weight + weight > this.maxParked) {
      return {
        perCaller: false,
        message: `the server holds its limit of ${this.maxParked} calls waiting for answers (maxParkedCalls)`,
      };
    }
    const held = caller === undefined ? 0 : (this.#byCaller.get(caller) ?? 0);
    if (held > 0 && held + weight > this.maxParkedPerCaller) {
      return {
        perCaller: true,
        message: `the caller holds its share of ${this.maxParkedPerCaller} calls waiting for answers (maxParkedCallsPerSubject); answer them, or let them go, first`,
      };
    }
    return undefined;
  }

  /**
   * Takes the answers a client came back with to the run they belong to and waits on it
   * again. A state that fails its integrity check (altered, forged, expired), or that
   * another caller, connection or tool holds, is refused with a JSON-RPC error
   * (-32602); a genuine state that names no waiting run (spent, abandoned, another
   * instance's that is gone) is the Go binding's isError result saying so.
   */
  async resume(
    toolName: string,
    state: string,
    owner: string,
    responses: Readonly<Record<string, unknown>> | undefined,
    route: CallRoute,
    signal: AbortSignal,
    capabilities: ClientCapabilities | undefined,
  ): Promise<CallToolResult | InputRequiredResult> {
    const run = await this.#claim(toolName, state, owner);
    if (run === undefined) return noLongerWaiting(toolName);
    run.answer(responses);
    return run.wait(route, signal, this, capabilities);
  }

  /**
   * Stops the run a client gave up on while its requests were with the client (it sends
   * the state back marked {@link CANCEL_META_KEY}): the tool's signal aborts, its open
   * requests fail, and the caller's share of parked calls is free again at once. The
   * state is checked as {@link RoundTrips.resume} checks it.
   */
  async cancel(toolName: string, state: string, owner: string): Promise<CallToolResult> {
    const run = await this.#claim(toolName, state, owner);
    if (run === undefined) return noLongerWaiting(toolName);
    run.stop(new AgentToolError('CANCELLED', 'mcp: the client cancelled the call'));
    return failure('mcp: the request was cancelled');
  }

  /**
   * The run `state` names for `owner` and `toolName`, taken off the parked ones; undefined
   * when the state is genuine but names no waiting run. Throws the JSON-RPC error (-32602)
   * for a state that fails its integrity check or is another caller's or tool's.
   */
  async #claim(toolName: string, state: string, owner: string): Promise<RoundTripRun | undefined> {
    const read = await this.#signer.read(state);
    if (read.kind === 'invalid') {
      throw invalidState(
        'it fails its integrity check (it was altered, or not issued by this server, or has expired)',
      );
    }
    if (read.kind !== 'here') return undefined;
    const { claim } = read;
    if (claim.owner !== ownerDigest(owner)) throw invalidState('it was issued to another caller');
    if (claim.tool !== toolName) {
      throw invalidState(
        `it was issued for a call of tool ${goQuote(claim.tool)}, not ${goQuote(toolName)}`,
      );
    }
    const run = this.#runs.get(claim.run);
    if (run === undefined || run.owner !== owner || run.tool !== toolName) return undefined;
    this.#unfile.get(run)?.();
    return run;
  }

  /** Stops every parked run (the server is closing). */
  stopAll(reason: unknown): void {
    for (const run of [...this.#runs.values()]) run.stop(reason);
    this.#runs.clear();
    this.#weight = 0;
    this.#byCaller.clear();
  }

  /** How many runs wait for their client. */
  get parked(): number {
    return this.#runs.size;
  }

  /** What the runs waiting for `caller` count against its share (see {@link weightOf}). */
  parkedBy(caller: string): number {
    return this.#byCaller.get(caller) ?? 0;
  }
}

/** The Go binding's answer to a genuine state that names no waiting run. */
function noLongerWaiting(toolName: string): CallToolResult {
  return failure(
    `mcpserver: tool ${goQuote(toolName)}: the call these answers belong to is no longer waiting for them; call the tool again`,
  );
}

/**
 * The `_meta` key by which a 2026-07-28 client gives up on a call whose requests it
 * holds: a `tools/call` carrying the call's request state and this key set to true stops
 * the run instead of resuming it (`connectMcp` sends it when such a call is cancelled).
 */
export const CANCEL_META_KEY = 'io.github.christopherdavenport.agenttool/cancel';

/** A 2026-07-28 request state refused: JSON-RPC -32602, as the revision requires. */
function invalidState(why: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid requestState: ${why}; call the tool again without it`,
    { reason: 'invalid_request_state' },
  );
}

/** The default share of one caller: a tenth of the whole, at least 1. */
export function fairShare(limit: number): number {
  return Math.max(1, Math.ceil(limit / 10));
}

/**
 * The bytes of what a parked call holds (its arguments, the answers it was sent up front,
 * as JSON) that count as one call against `maxParkedCalls` and its shares: a larger
 * one counts once for each such part. A parked call lasts up to `abandonAfterMs`; the
 * count alone let one caller park its share of calls of a 4 MiB request each.
 */
export const PARKED_CALL_BYTES = 64 * 1024;

/** What `run` counts against the parked calls' limits: one, or one for each 64 KiB it holds. */
function weightOf(run: RoundTripRun): number {
  return Math.max(1, Math.ceil(run.heldBytes / PARKED_CALL_BYTES));
}

/** `trips.resume` with what `ctx`, the request that came back, carries. */
export function resumeRequest(
  trips: RoundTrips,
  toolName: string,
  state: string,
  owner: string,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  return trips.resume(
    toolName,
    state,
    owner,
    ctx.mcpReq.inputResponses,
    routeOf(ctx),
    ctx.mcpReq.signal,
    envelopeCapabilities(ctx),
  );
}

/** A limit on a count: a whole number, at least 1; the default when not given. */
export function countLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: ${name} must be a whole number, at least 1, got ${shown(value)}`,
    );
  }
  return value;
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
