import {
  CLIENT_INFO_META_KEY,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type Implementation,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type StandardSchemaV1,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import {
  type AuthInfo,
  type Elicitor,
  goQuote,
  isJsonObject,
  type RecordFunc,
  taskSupportOf,
} from '../../../core';
import { callerOf, definitionsFor, permitted } from '../auth';
import {
  admit,
  envelopeCapabilities,
  routeOf,
  type CallLink,
  type CallTracker,
  CANCEL_META_KEY,
  directElicitor,
  directRootsLister,
  directSampler,
  failure,
  isAdmitted,
  RoundTripRun,
  type RoundTrips,
  runCall,
  type RunningCall,
  type SendToClient,
  type ServedTool,
  sessionFailure,
  SHUTTING_DOWN,
  unknownTool,
} from '../calls';
import { callerKeyOf, takeCallShare } from '../http';
import {
  type ClientInfo,
  type ErrorReporter,
  SESSION_END_METHOD,
  SESSION_META_KEY,
  type SessionLease,
  SESSIONS_EXTENSION,
} from '../session';
import {
  type LegacyChannel,
  serveLegacyTasks,
  serveTasks,
  startTask,
  taskAfterQuestions,
  type Tasks,
} from '../tasks';
import { TracedServer } from '../telemetry';
import {
  type Catalog,
  primitiveCapabilities,
  type ResourceFollows,
  servePrimitives,
  type SubscriptionLimits,
} from '../primitives';

/** Params of any shape: the end request reads only its `_meta`. */
const ANY_PARAMS: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'agenttool',
    validate: (value) => ({ value: isJsonObject(value) ? value : {} }),
  },
};

/** What every SDK server instance of one tool server shares. */
export interface InstanceHost {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly recorder: RecordFunc | undefined;
  readonly report: ErrorReporter;
  /** How much progress text a call sends at most (bytes). */
  readonly progressBudget: number;
  /** How long a call waited on with a progress token stays quiet at most (ms; 0: no keepalive). */
  readonly progressKeepalive: number;
  readonly trips: RoundTrips;
  /** The calls in flight, and the signal that stops them when the server closes. */
  readonly calls: CallTracker;
  /** The server's tasks (2026-07-28 calls of tools that run as tasks). */
  readonly tasks: Tasks;
  /**
   * The caller of connections that carry no credentials (stdio, in memory); undefined:
   * none, so tools that require scopes are not theirs.
   */
  readonly localAuth: AuthInfo | undefined;
  /** What `tools.listChanged` announces now: whether the list can change (see the option). */
  listChanged(): boolean;
  /** True while the source's prompts and resources change by themselves (see `PrimitiveHost`). */
  primitivesMayChange(): boolean;
  definitions(): McpTool[];
  /** Every served tool, in the order of {@link definitions}. */
  servedTools(): readonly ServedTool[];
  served(name: string): ServedTool | undefined;
  /** The prompts, resources and templates served beside the tools. */
  readonly catalog: Catalog;
  /** How many entries one page of a prompts or resources list holds. */
  readonly listPageSize: number;
  /** What one 2025-era connection may subscribe to (`resources/subscribe`). */
  readonly subscriptionLimits: SubscriptionLimits;
  /** The URIs subscribed to over every connection, each followed once (`follow`). */
  readonly follows: ResourceFollows;
}

/** How an instance finds the session of a call: pinned to its connection, or per request. */
export interface SessionBinding {
  /** The session of a new call made by the request `ctx`. */
  lease(ctx: ServerContext, client: ClientCapabilities | undefined): SessionLease;
  /**
   * Who may answer a parked call's questions: requests with the same owner (the session
   * a handle names, "" without one).
   */
  owner(ctx: ServerContext): string;
  /**
   * True when a call goes on after the client drops its request's connection: its stream
   * can be resumed (`Last-Event-ID`). Otherwise a dropped connection stops the call.
   */
  readonly resumable?: boolean;
  /**
   * False when the connection ends with the one request it serves (a `stateless`
   * endpoint's): nothing the server sends later reaches its client, so it is offered
   * no subscriptions.
   */
  readonly lasting?: boolean;
  /**
   * True where a 2026-07-28 `subscriptions/listen`'s resource subscriptions are checked
   * and followed before the SDK's entry serves it (the HTTP endpoint's, see
   * `ResourceListeners`): its instances offer `resources.subscribe`. Absent elsewhere.
   */
  readonly listens?: boolean;
  /**
   * Ends the session the request `ctx` names by handle, when its caller opened it
   * ({@link SESSION_END_METHOD}); absent where sessions are not held by handle.
   */
  end?(ctx: ServerContext): Promise<void>;
}

type Era = 'legacy' | 'modern';

/**
 * A low-level SDK `Server` serving `host`'s tools to one connection (2025 era, or a
 * 2026-07-28 stdio connection) or one request (2026-07-28 over HTTP, 2025 stateless):
 * `tools/list` with the definitions verbatim, `tools/call` through the tool, and
 * logging. `era` is the era the instance serves; 2025 when the entry does not say.
 * Tasks: the 2026-07-28 extension on a modern instance, the 2025-11-25 experimental
 * tasks on a legacy one, with `tasks/list` when `identified` (the connection's callers
 * carry an auth subject). An instance made for one inbound message names its method as
 * `inbound`, and has the handlers of that method only (the SDK's own are all there).
 */
export function buildInstance(
  host: InstanceHost,
  binding: SessionBinding,
  era: Era,
  identified = false,
  inbound?: string,
): Server {
  const make = (): TracedServer =>
    new TracedServer(host.info, {
      // The extension says the server holds sessions by handle, ends one on
      // SESSION_END_METHOD, and stops a parked call given up (CANCEL_META_KEY).
      capabilities: {
        tools: { listChanged: host.listChanged() },
        logging: {},
        ...primitiveCapabilities(host, era, binding.lasting !== false, binding.listens === true),
        extensions: { [SESSIONS_EXTENSION]: {} },
      },
      ...(host.instructions === undefined ? {} : { instructions: host.instructions }),
    });
  const server = inbound === undefined ? make() : TracedServer.answeringOnly(inbound, make);
  // Each caller sees the tools it may use (see auth/access).
  server.setRequestHandler('tools/list', async (request, ctx) => {
    // Every tool is listed at once, with no nextCursor: a cursor is none this server gave.
    const cursor = request.params?.cursor;
    if (cursor !== undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `mcp: invalid cursor ${goQuote(cursor)}: tools/list answers every tool at once and gives no nextCursor; send none`,
      );
    }
    const tools = await definitionsFor(host, callerOf(ctx, host.localAuth));
    return { tools: era === 'legacy' ? tools.map((tool) => withExecution(host, tool)) : tools };
  });
  if (era === 'modern') {
    serveTasks(server, host.tasks, {
      capabilities: envelopeCapabilities,
      caller: (ctx) => callerOf(ctx, host.localAuth),
    });
  } else {
    serveLegacyTasks(server, host.tasks, {
      caller: (ctx) => callerOf(ctx, host.localAuth),
      stopping: host.calls.signal,
      listing: identified,
    });
  }
  const calls = host.calls;
  server.setRequestHandler('tools/call', (request, ctx) => {
    // A draining server still takes the answers to the calls it runs, not new calls.
    const resumes = era === 'modern' && ctx.mcpReq.requestState() !== undefined;
    if (calls.stopping || (calls.refusing && !resumes)) return failure(SHUTTING_DOWN);
    // A legacy call tracks itself (see startLegacy). Over HTTP it counts against its
    // caller's share of calls in flight until it is answered: when its tool has ended,
    // or its task is made.
    if (era === 'legacy') {
      const share = takeCallShare(ctx);
      const serve = () => serveLegacy(host, binding, server, request, ctx);
      return share === undefined ? serve() : givingBack(share, serve);
    }
    return calls.track(serveModern(host, binding, request, ctx), (result) =>
      stoppedAnswer(calls, result),
    );
  });
  servePrimitives(server, host, binding, era);
  const end = binding.end?.bind(binding);
  if (era === 'modern' && end !== undefined) {
    server.setRequestHandler(SESSION_END_METHOD, { params: ANY_PARAMS }, async (_params, ctx) => {
      await end(ctx);
      return {};
    });
  }
  return server;
}

/**
 * A 2025-era call, among the calls in flight until it is answered. Answered without a
 * promise when it is refused, and with one promise on the tool's when it runs: nothing
 * else is awaited unless a guard answers later, the session's hook is still running or
 * notifications are still going out.
 */
function serveLegacy(
  host: InstanceHost,
  binding: SessionBinding,
  server: Server,
  request: CallToolRequest,
  ctx: ServerContext,
): CallToolResult | Promise<CallToolResult> {
  const args = request.params.arguments ?? {};
  const auth = callerOf(ctx, host.localAuth);
  const verdict = admitted(host, request.params.name, args, auth);
  if (verdict instanceof Promise) {
    return tracked(
      host.calls,
      verdict.then((served) =>
        isAdmitted(served) ? runLegacy(host, binding, server, request, ctx, served, auth) : served,
      ),
    );
  }
  if (!isAdmitted(verdict)) return verdict;
  return runLegacy(host, binding, server, request, ctx, verdict, auth);
}

function runLegacy(
  host: InstanceHost,
  binding: SessionBinding,
  server: Server,
  request: CallToolRequest,
  ctx: ServerContext,
  served: ServedTool,
  auth: AuthInfo | undefined,
): CallToolResult | Promise<CallToolResult> {
  // 2025-11-25 tasks: a call that asks for one (`task`) is one, if its tool allows.
  const asked = request.params.task;
  const mode = taskSupportOf(served.tool).mode;
  if ((asked === undefined && mode === 'required') || (asked !== undefined && mode === 'never')) {
    return Promise.reject(legacyTaskRefusal(request.params.name, mode));
  }
  const capabilities = server.getClientCapabilities();
  const lease = binding.lease(ctx, capabilities);
  const start = (): CallToolResult | Promise<CallToolResult> =>
    asked === undefined
      ? startLegacy(
          host,
          binding,
          ctx,
          served,
          request.params.arguments ?? {},
          lease,
          auth,
          capabilities,
        )
      : startLegacyTask(host, server, request, ctx, served, lease, auth, capabilities);
  if (lease.ready === undefined) return start();
  return tracked(
    host.calls,
    lease.ready.then(start, (error: unknown) => {
      lease.release();
      return sessionFailure(error);
    }),
  );
}

function startLegacyTask(
  host: InstanceHost,
  server: Server,
  request: CallToolRequest,
  ctx: ServerContext,
  served: ServedTool,
  lease: SessionLease,
  auth: AuthInfo | undefined,
  capabilities: ClientCapabilities | undefined,
): CallToolResult | Promise<CallToolResult> {
  // The server may have begun to close while the session's hook ran.
  if (host.calls.stopping) {
    lease.release();
    return failure(SHUTTING_DOWN);
  }
  const started = startTask(host, {
    served,
    args: request.params.arguments ?? {},
    lease,
    auth,
    caller: callerKeyOf(ctx),
    capabilities,
    dropped: ctx.http?.req?.signal,
    era: 'legacy',
    ttlMs: request.params.task?.ttl,
    home: sessionChannel(server),
  });
  return tracked(host.calls, started);
}

function startLegacy(
  host: InstanceHost,
  binding: SessionBinding,
  ctx: ServerContext,
  served: ServedTool,
  args: Record<string, unknown>,
  lease: SessionLease,
  auth: AuthInfo | undefined,
  capabilities: ClientCapabilities | undefined,
): Promise<CallToolResult> {
  // The call stops when its request is cancelled, when the client drops the request's
  // connection (unless the stream can be resumed), or when the server closes.
  const dropped = binding.resumable === true ? undefined : ctx.http?.req?.signal;
  const linked = host.calls.callSignal(ctx.mcpReq.signal, dropped);
  const route = routeOf(ctx);
  const running = runCall(served, args, {
    session: lease.session,
    auth,
    signalSource: linked,
    elicitor: legacyElicitor(capabilities, ctx, linked),
    // The ways to ask the client are made for the capabilities it declared only.
    sampler: offered(capabilities?.sampling)
      ? directSampler(capabilities, sender(ctx, linked))
      : undefined,
    rootsLister: offered(capabilities?.roots)
      ? directRootsLister(capabilities, sender(ctx, linked))
      : undefined,
    recorder: host.recorder,
    report: host.report,
    progressBudget: host.progressBudget,
    progressKeepalive: host.progressKeepalive,
    route: () => route,
  });
  const calls = host.calls;
  const over = (): void => {
    linked.dispose();
    lease.release();
    calls.ended();
  };
  calls.began();
  return running.answer(
    (result) => {
      // Progress and log lines go out before the result.
      const flushed = running.flush();
      if (flushed === undefined) {
        over();
        return stoppedAnswer(calls, result);
      }
      return flushed.then(() => {
        over();
        return stoppedAnswer(calls, result);
      });
    },
    (error: unknown) => {
      over();
      throw error;
    },
  );
}

/** `answer` among the calls in flight until it settles; a failure once the server stops says so. */
function tracked(
  calls: CallTracker,
  answer: CallToolResult | Promise<CallToolResult>,
): CallToolResult | Promise<CallToolResult> {
  return answer instanceof Promise
    ? calls.track(answer, (result) => stoppedAnswer(calls, result))
    : answer;
}

async function serveModern(
  host: InstanceHost,
  binding: SessionBinding,
  request: CallToolRequest,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { name } = request.params;
  const signal = ctx.mcpReq.signal;
  const state = ctx.mcpReq.requestState<unknown>();
  if (typeof state === 'string') {
    // Answers sent under a name the server does not serve get the unknown tool's answer.
    if (host.served(name) === undefined) return unknownTool(name);
    if (ctx.mcpReq._meta?.[CANCEL_META_KEY] === true) {
      return host.trips.cancel(name, state, binding.owner(ctx));
    }
    return host.trips.resume(
      name,
      state,
      binding.owner(ctx),
      ctx.mcpReq.inputResponses,
      routeOf(ctx),
      signal,
      envelopeCapabilities(ctx),
    );
  }
  // Over HTTP the call counts against its caller's share of calls in flight: until it is
  // answered, or, once it runs, until its tool has ended (see heldWhileRunning).
  const share: CallShare = { giveBack: takeCallShare(ctx) };
  try {
    return await startModern(host, binding, request, ctx, share);
  } finally {
    share.giveBack?.();
  }
}

/** A call's count among its caller's calls in flight, and who holds it. */
interface CallShare {
  /** Gives the count back (once); undefined when uncounted, or held elsewhere. */
  giveBack: (() => void) | undefined;
}

/**
 * A new 2026-07-28 call (no request state): admitted, then run, as a task or as a run
 * whose questions go back with the call; the run takes `share` over from its request.
 */
async function startModern(
  host: InstanceHost,
  binding: SessionBinding,
  request: CallToolRequest,
  ctx: ServerContext,
  share: CallShare,
): Promise<CallToolResult | InputRequiredResult> {
  const { name } = request.params;
  const signal = ctx.mcpReq.signal;
  const args = request.params.arguments ?? {};
  const auth = callerOf(ctx, host.localAuth);
  const verdict = admitted(host, name, args, auth);
  const served = verdict instanceof Promise ? await verdict : verdict;
  if (!isAdmitted(served)) return served;
  // The server may have begun to close while a guard answered.
  if (host.calls.stopping) return failure(SHUTTING_DOWN);
  const capabilities = envelopeCapabilities(ctx);
  // A tool that runs only as a task refuses a client that takes none (-32021) here.
  const task = host.tasks.plan(served.tool, capabilities);
  const lease = binding.lease(ctx, capabilities);
  lease.session.sawClient(envelopeClient(ctx));
  try {
    if (lease.ready !== undefined) await lease.ready;
  } catch (error) {
    lease.release();
    return withHandle(sessionFailure(error), lease.handle);
  }
  // Or while the session's hook ran: the server's stop has passed, so the tool must not start.
  if (host.calls.stopping) {
    lease.release();
    return withHandle(failure(SHUTTING_DOWN), lease.handle);
  }
  const dropped = ctx.http?.req?.signal;
  const caller = callerKeyOf(ctx);
  if (task !== undefined && !task.questionsFirst) {
    const call = { served, args, lease, auth, caller, capabilities, dropped };
    return withHandle(await startTask(host, call), lease.handle);
  }
  const run = new RoundTripRun(name, binding.owner(ctx), capabilities, caller);
  run.answerFromCall(ctx.mcpReq.inputResponses);
  /** The call's share, once the run holds it (see below). */
  const held: CallShare = { giveBack: undefined };
  const late =
    task === undefined
      ? undefined
      : taskAfterQuestions(host, run, {
          served,
          args,
          lease,
          auth,
          caller,
          capabilities,
          dropped,
          required: task.mode === 'required',
          // A call that became a task counts among the tasks from then on.
          made: () => held.giveBack?.(),
        });
  // What the tool asks of its client goes back with the call, or, once the call is a
  // task, with the task.
  const asks = late ?? run;
  // A run stops when its session ends (no answer can come back on it), or the server closes.
  // Nothing is awaited from the check above to here: the server's signal is still live.
  // A call that became a task outlives its session, as a task made with the call does.
  const unwatch = lease.session.whileOpen(() => {
    if (late?.begun() !== true) run.stop(new Error('mcp: the session ended'));
  });
  host.calls.untilStopped(run);
  run.onOver(() => {
    unwatch();
    run.leave();
    lease.release();
  });
  const route = routeOf(ctx);
  // The tool may report progress before it first awaits: the request carries it already.
  run.route = route;
  const running = runCall(served, args, {
    session: lease.session,
    auth,
    signalSource: run.controller,
    elicitor: asks.elicitor,
    sampler: asks.sampler,
    rootsLister: asks.rootsLister,
    // The revision fails a request that needs a capability the client did not declare.
    askWithoutElicitor: 'refuse',
    recorder: host.recorder,
    report: host.report,
    progressBudget: host.progressBudget,
    progressKeepalive: host.progressKeepalive,
    route: late === undefined ? () => run.route : () => late.route(),
  });
  run.start(running);
  // The run holds the call's share from here, past the request (see heldWhileRunning).
  held.giveBack = share.giveBack;
  share.giveBack = undefined;
  if (held.giveBack !== undefined) heldWhileRunning(run, running, held.giveBack);
  return withHandle(await run.wait(route, signal, host.trips, capabilities), lease.handle);
}

/**
 * Gives `share` back once `run` is over (its answer taken, or given up) and its tool has
 * ended: a stopped tool that has not yet returned still holds what it holds.
 */
function heldWhileRunning(run: RoundTripRun, running: RunningCall, share: () => void): void {
  let left = 2;
  const one = (): void => {
    if (--left === 0) share();
  };
  run.onOver(one);
  running.result.then(one, one);
}

/**
 * `serve()`'s answer, `share` given back once it is answered (at once when it is not a
 * promise), however it is answered.
 */
function givingBack(
  share: () => void,
  serve: () => CallToolResult | Promise<CallToolResult>,
): CallToolResult | Promise<CallToolResult> {
  let answer: CallToolResult | Promise<CallToolResult>;
  try {
    answer = serve();
  } catch (error) {
    share();
    throw error;
  }
  if (!(answer instanceof Promise)) {
    share();
    return answer;
  }
  return answer.then(
    (result) => {
      share();
      return result;
    },
    (error: unknown) => {
      share();
      throw error;
    },
  );
}

/** True for a capability the client declared. */
function offered(capability: unknown): boolean {
  return capability !== undefined && capability !== null;
}

/** `elicitation/create` on a 2025-era call's stream, when the client takes questions. */
function legacyElicitor(
  capabilities: ClientCapabilities | undefined,
  ctx: ServerContext,
  linked: CallLink,
): Elicitor | undefined {
  const offer = capabilities?.elicitation;
  if (!offered(offer)) return undefined;
  return directElicitor(offer, (params) =>
    ctx.mcpReq.send({ method: 'elicitation/create', params }, { signal: linked.signal }),
  );
}

/** A request of the server's own on a 2025-era call's stream (the SDK checks its result). */
function sender(ctx: ServerContext, linked: CallLink): SendToClient {
  return (request) =>
    ctx.mcpReq.send(
      { method: request.method, params: request.params as Record<string, unknown> },
      { signal: linked.signal },
    );
}

/** JSON-RPC "Method not found": the 2025-11-25 answer to a call that misuses a tool's task support. */
const METHOD_NOT_FOUND = -32601;

/**
 * The 2025-11-25 refusal of a call of a tool of task support `mode`: a task asked of a
 * tool that runs none, or none asked of one that runs only as a task (-32601, as that
 * revision says).
 */
function legacyTaskRefusal(name: string, mode: string): ProtocolError {
  return new ProtocolError(
    METHOD_NOT_FOUND,
    mode === 'required'
      ? `mcp: tool ${JSON.stringify(name)} runs only as a task (its execution.taskSupport is "required"): call it with params.task, e.g. "task": {}`
      : `mcp: tool ${JSON.stringify(name)} does not run as a task (its execution.taskSupport is "forbidden"): call it without params.task`,
  );
}

/**
 * A tool's 2025-era definition: with `execution.taskSupport` when it runs as a task
 * (2025-11-25 tasks; the 2026-07-28 tool has no such field).
 */
function withExecution(host: InstanceHost, tool: McpTool): McpTool {
  const served = host.served(tool.name);
  const mode = served === undefined ? 'never' : taskSupportOf(served.tool).mode;
  if (mode === 'never') return tool;
  return { ...tool, execution: { taskSupport: mode } };
}

/**
 * The session a 2025-era instance serves, as a way to its client: requests and
 * notifications of the server's own, on the standalone stream (over stdio, the
 * connection); live while the instance is connected.
 */
function sessionChannel(server: Server): LegacyChannel {
  return {
    request: (request, options) =>
      server.request({ method: request.method, params: request.params }, options),
    notify: (notification) => server.notification(notification),
    live: () => server.transport !== undefined,
  };
}

/**
 * The tool `name` as the caller may run it with `args`, or the refusal (see `admit`); a
 * promise only when a guard answers asynchronously, so a call awaits nothing otherwise.
 */
function admitted(
  host: InstanceHost,
  name: string,
  args: Record<string, unknown>,
  auth: AuthInfo | undefined,
): ServedTool | CallToolResult | Promise<ServedTool | CallToolResult> {
  const allowed = permitted(host, host.served(name), auth);
  return allowed instanceof Promise
    ? allowed.then((tool) => admit(name, tool, args, host.report))
    : admit(name, allowed, args, host.report);
}

/**
 * A call's answer once the server has begun to close: a failure then says the server is
 * shutting down (the tool was most likely stopped by it); a success stands.
 */
function stoppedAnswer<T extends CallToolResult | InputRequiredResult>(
  calls: CallTracker,
  result: T,
): T | CallToolResult {
  if (!calls.stopping || (result as CallToolResult).isError !== true) return result;
  return failure(SHUTTING_DOWN);
}

function withHandle<T extends CallToolResult | InputRequiredResult>(
  result: T,
  handle: string | undefined,
): T {
  if (handle === undefined) return result;
  return { ...result, _meta: { ...result._meta, [SESSION_META_KEY]: handle } };
}

/** The per-request envelope's member `key` (2026-07-28), when the request carries one. */
function envelopeMember(ctx: ServerContext, key: string): unknown {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  return envelope?.[key];
}

/** The client info a 2026-07-28 request carries in its envelope. */
export function envelopeClient(ctx: ServerContext): ClientInfo | undefined {
  const info = envelopeMember(ctx, CLIENT_INFO_META_KEY) as Partial<ClientInfo> | undefined;
  if (typeof info?.name !== 'string' || typeof info.version !== 'string') return undefined;
  return { name: info.name, version: info.version };
}

/** The session handle a 2026-07-28 request carries, if any. */
export function requestHandle(ctx: ServerContext): string | undefined {
  const handle = ctx.mcpReq._meta?.[SESSION_META_KEY];
  return typeof handle === 'string' && handle !== '' ? handle : undefined;
}
