import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  ProtocolError,
  type ServerContext,
  type Server,
} from '@modelcontextprotocol/server';
import {
  type AuthInfo,
  createContext,
  errorMessage,
  goQuote,
  MissingCapabilityError,
  type RecordFunc,
  type ToolContext,
  ValidationError,
} from '../../../core';
import {
  type CallRoute,
  type CallTracker,
  directElicitor,
  directRootsLister,
  directSampler,
  envelopeCapabilities,
  missingCapabilityError,
  routeOf,
  RoundTripRun,
  type RoundTrips,
  type SendToClient,
  SHUTTING_DOWN,
  resumeRequest,
} from '../calls';
import { callerKeyOf, takeCallShare } from '../http';
import { type SessionLease } from '../session';
import { type Catalog } from './catalog';
import { type ResourceFollows } from './follows';
import { type SubscriberShares } from './subscriber-shares';

/** What serving the primitives needs of the server (the sessions' `PrimitiveHost` is one). */
export interface PrimitiveHost {
  readonly catalog: Catalog;
  readonly listPageSize: number;
  readonly localAuth: AuthInfo | undefined;
  /** Whether the lists may change while served (announced as `listChanged`). */
  listChanged?(): boolean;
  /**
   * True while the source's prompts and resources change by themselves (a
   * `LivePrimitives`): both kinds are offered, with `listChanged`, even while empty.
   */
  primitivesMayChange?(): boolean;
  readonly recorder: RecordFunc | undefined;
  readonly trips: RoundTrips;
  readonly calls: CallTracker;
  /** What one 2025-era connection may subscribe to (`resources/subscribe`). */
  readonly subscriptionLimits: SubscriptionLimits;
  /** The URIs subscribed to over every connection, each followed once (`follow`). */
  readonly follows: ResourceFollows;
  report(message: string, error: unknown): void;
}

/** The bounds of one connection's subscriptions (see `McpServerOptions`). */
export interface SubscriptionLimits {
  /** How many URIs one connection subscribes to at most. */
  readonly perSession: number;
  /** How long a subscribed URI is at most, in UTF-8 bytes. */
  readonly uriBytes: number;
  /** What each caller holds over all its sessions and streams (`maxSubscriptionsPerSubject`). */
  readonly perSubject: SubscriberShares;
}

/** How a request finds its session (the sessions' `PrimitiveBinding` is one). */
export interface PrimitiveBinding {
  lease(ctx: ServerContext, client: ClientCapabilities | undefined): SessionLease;
  owner(ctx: ServerContext): string;
  readonly resumable?: boolean;
  /**
   * False when the connection ends with the one request it serves (a `stateless`
   * endpoint's): nothing the server sends later reaches its client, so it takes no
   * subscriptions.
   */
  readonly lasting?: boolean;
}

/** JSON-RPC "Invalid params". */
export const INVALID_PARAMS = -32602;
/** JSON-RPC "Internal error". */
export const INTERNAL_ERROR = -32603;
export type Era = 'legacy' | 'modern';

/**
 * Runs a prompt's `get` or a resource's `read` as a tool's call runs: in the caller's
 * session, with a context whose `ask`, `sample` and `roots` reach the client (in the
 * 2026-07-28 era as input requests that go back with the answer, the run parked under a
 * request state until the client answers), stopped when the request is cancelled or
 * the server closes. A `ValidationError` fails the request as invalid params, any other
 * error as an internal error with its message. Over HTTP a new one counts among its
 * caller's calls in flight (`maxCallsPerSubject`, `maxCalls`), as a tool call does:
 * until it is answered or given up, and its `get` or `read` has ended.
 */
export async function runOperation<T extends object>(
  host: PrimitiveHost,
  binding: PrimitiveBinding,
  server: Server,
  era: Era,
  ctx: ServerContext,
  key: string,
  args: object,
  auth: AuthInfo | undefined,
  operation: (toolCtx: ToolContext) => Promise<T>,
): Promise<T | InputRequiredResult> {
  if (host.calls.stopping || host.calls.refusing) {
    throw new ProtocolError(INTERNAL_ERROR, SHUTTING_DOWN);
  }
  const signal = ctx.mcpReq.signal;
  if (era === 'modern') {
    const state = ctx.mcpReq.requestState<unknown>();
    if (typeof state === 'string') {
      const answer = await resumeRequest(host.trips, key, state, binding.owner(ctx), ctx);
      return settled<T>(answer);
    }
  }
  // Throws the refusal past the caller's share, or the endpoint's limit.
  const share = takeCallShare(ctx);
  const capabilities =
    era === 'modern' ? envelopeCapabilities(ctx) : server.getClientCapabilities();
  const lease = binding.lease(ctx, capabilities);
  try {
    if (lease.ready !== undefined) await lease.ready;
  } catch (error) {
    lease.release();
    share?.();
    throw new ProtocolError(INTERNAL_ERROR, `mcp: session setup failed: ${errorMessage(error)}`);
  }
  const call = { id: `mcp_${key}`, args: JSON.stringify(args) };
  const setup: OperationSetup<T> = { host, lease, share, capabilities, call, auth, key, operation };
  if (era === 'legacy') return runLegacy(setup, binding, ctx, signal);
  const run = new RoundTripRun(key, binding.owner(ctx), capabilities, callerKeyOf(ctx));
  run.fromRequest(args, ctx.mcpReq.inputResponses);
  return runModern(setup, run, routeOf(ctx), signal);
}

/** What a `get` or `read` runs with, in either era, once its session is ready. */
interface OperationSetup<T> {
  readonly host: PrimitiveHost;
  readonly lease: SessionLease;
  readonly share: (() => void) | undefined;
  readonly capabilities: ClientCapabilities | undefined;
  readonly call: { readonly id: string; readonly args: string };
  readonly auth: AuthInfo | undefined;
  readonly key: string;
  readonly operation: (toolCtx: ToolContext) => Promise<T>;
}

/** A 2025-era `get` or `read`: its questions go to the client over its request. */
async function runLegacy<T extends object>(
  setup: OperationSetup<T>,
  binding: PrimitiveBinding,
  ctx: ServerContext,
  signal: AbortSignal,
): Promise<T> {
  const { host, lease, share, capabilities, call, auth, key, operation } = setup;
  const linked = host.calls.callSignal(
    signal,
    binding.resumable === true ? undefined : ctx.http?.req?.signal,
  );
  const send: SendToClient = (request) =>
    ctx.mcpReq.send(
      { method: request.method, params: request.params as Record<string, unknown> },
      { signal: linked.signal },
    );
  const toolCtx = createContext({
    signal: linked.signal,
    call,
    session: lease.session,
    elicitor: directElicitor(capabilities?.elicitation, (params) =>
      ctx.mcpReq.send({ method: 'elicitation/create', params }, { signal: linked.signal }),
    ),
    sampler: directSampler(capabilities, send),
    rootsLister: directRootsLister(capabilities, send),
    recorder: host.recorder,
    log: (level, data, logger) => void ctx.mcpReq.log(level, data, logger).catch(() => undefined),
    auth,
  });
  try {
    return await operation(toolCtx);
  } catch (error) {
    throw asProtocolError(key, error);
  } finally {
    linked.dispose();
    lease.release();
    share?.();
  }
}

/**
 * A 2026-07-28 `get` or `read`, run as a tool call is: its questions go back with the
 * request, and the run waits, parked, for the client to come back. Nothing made here
 * holds the first request (`ctx`): a parked run may last half an hour, and that request
 * could carry megabytes of members no one reads. Its log lines go to the request the
 * run is answering then.
 */
async function runModern<T extends object>(
  setup: OperationSetup<T>,
  run: RoundTripRun,
  route: CallRoute,
  signal: AbortSignal,
): Promise<T | InputRequiredResult> {
  const { host, lease, share, capabilities, call, auth, key, operation } = setup;
  const unwatch = lease.session.whileOpen(() => run.stop(new Error('mcp: the session ended')));
  const stop = (): void => run.stop(host.calls.signal.reason);
  host.calls.signal.addEventListener('abort', stop, { once: true });
  run.onOver(() => {
    unwatch();
    host.calls.signal.removeEventListener('abort', stop);
    lease.release();
  });
  const toolCtx = createContext({
    signal: run.controller.signal,
    call,
    session: lease.session,
    elicitor: run.elicitor,
    sampler: run.sampler,
    rootsLister: run.rootsLister,
    askWithoutElicitor: 'refuse',
    recorder: host.recorder,
    log: (level, data, logger) => void run.route?.log(level, data, logger).catch(() => undefined),
    auth,
  });
  run.route = route;
  let missing: MissingCapabilityError | undefined;
  const result = operation(toolCtx).then(
    (value): CallToolResult => carrying(value),
    (error: unknown): never => {
      if (error instanceof MissingCapabilityError) missing = error;
      throw asProtocolError(key, error);
    },
  );
  // The run reads a missing capability only from a result; a thrown one is read here.
  const running = {
    result: result.catch((error: unknown) => {
      if (missing !== undefined) return carrying(undefined);
      throw error;
    }),
    flush: () => Promise.resolve(),
    missing: () => missing,
    // An operation sends no progress: there is nothing to keep alive.
    rerouted: () => undefined,
  };
  run.start(running);
  if (share !== undefined) heldUntilOver(run, result, share);
  return settled<T>(await run.wait(route, signal, host.trips, capabilities));
}

/**
 * Gives `share` back once `run` is over (its answer taken, or given up) and `result`
 * has settled: a stopped `get` or `read` that has not returned still holds what it holds.
 */
function heldUntilOver(run: RoundTripRun, result: Promise<unknown>, share: () => void): void {
  let left = 2;
  const one = (): void => {
    if (--left === 0) share();
  };
  run.onOver(one);
  result.then(one, one);
}

/** The operation's value, carried through the run's tool-shaped result. */
const carried = new WeakMap<object, unknown>();

function carrying(value: unknown): CallToolResult {
  const result: CallToolResult = { content: [] };
  carried.set(result, value);
  return result;
}

/** The run's answer as the request's: its value, its questions, or its failure thrown. */
function settled<T>(answer: CallToolResult | InputRequiredResult): T | InputRequiredResult {
  if (carried.has(answer)) return carried.get(answer) as T;
  if ((answer as CallToolResult).isError === true) {
    const content = (answer as CallToolResult).content[0];
    const text = content?.type === 'text' ? content.text : 'mcp: the request failed';
    throw new ProtocolError(text.includes('cancelled') ? INTERNAL_ERROR : INVALID_PARAMS, text);
  }
  return answer as InputRequiredResult;
}

function asProtocolError(key: string, error: unknown): unknown {
  if (ProtocolError.isInstance(error)) return error;
  if (error instanceof MissingCapabilityError) return missingCapabilityError(error);
  const what = key.startsWith('prompt:')
    ? `prompt ${goQuote(key.slice(7))}`
    : `resource ${goQuote(key.slice(9))}`;
  if (error instanceof ValidationError) {
    return new ProtocolError(INVALID_PARAMS, `mcp: ${what}: ${errorMessage(error)}`);
  }
  return new ProtocolError(INTERNAL_ERROR, `mcp: ${what}: ${errorMessage(error)}`);
}
