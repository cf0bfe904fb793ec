import {
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  ProtocolError,
  type Server,
  type ServerContext,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import { type AuthInfo, type Elicitor, taskSupportOf } from '../../../core';
import { callerOf } from '../auth';
import {
  type CallLink,
  type CallTracker,
  directElicitor,
  directRootsLister,
  directSampler,
  failure,
  isAdmitted,
  routeOf,
  runCall,
  type SendToClient,
  type ServedTool,
  sessionFailure,
  SHUTTING_DOWN,
} from '../calls';
import { callerKeyOf } from '../http';
import { type SessionLease } from '../session';
import { type LegacyChannel, startTask } from '../tasks';
import { admitted, stoppedAnswer } from './call-answers';
import { type InstanceHost, type SessionBinding } from './host';

// A 2025-era `tools/call`: admitted, then run on the call's own request (its progress,
// its questions to the client on the call's stream), or as a 2025-11-25 task.

/** A 2025-era `tools/call` as its instance got it. */
export interface LegacyCall {
  readonly host: InstanceHost;
  readonly binding: SessionBinding;
  readonly server: Server;
  readonly request: CallToolRequest;
  readonly ctx: ServerContext;
}

/** What a call admitted runs with: its tool, its caller, its session and what its client offers. */
interface AdmittedRun {
  readonly served: ServedTool;
  readonly auth: AuthInfo | undefined;
  readonly lease: SessionLease;
  readonly capabilities: ClientCapabilities | undefined;
}

/**
 * A 2025-era call, among the calls in flight until it is answered. Answered without a
 * promise when it is refused, and with one promise on the tool's when it runs: nothing
 * else is awaited unless a guard answers later, the session's hook is still running or
 * notifications are still going out.
 */
export function serveLegacy(call: LegacyCall): CallToolResult | Promise<CallToolResult> {
  const { host, request, ctx } = call;
  const args = request.params.arguments ?? {};
  const auth = callerOf(ctx, host.localAuth);
  const verdict = admitted(host, request.params.name, args, auth);
  if (verdict instanceof Promise) {
    return tracked(
      host.calls,
      verdict.then((served) => (isAdmitted(served) ? runLegacy(call, served, auth) : served)),
    );
  }
  if (!isAdmitted(verdict)) return verdict;
  return runLegacy(call, verdict, auth);
}

function runLegacy(
  call: LegacyCall,
  served: ServedTool,
  auth: AuthInfo | undefined,
): CallToolResult | Promise<CallToolResult> {
  const { host, binding, server, request, ctx } = call;
  // 2025-11-25 tasks: a call that asks for one (`task`) is one, if its tool allows.
  const asked = request.params.task;
  const mode = taskSupportOf(served.tool).mode;
  if ((asked === undefined && mode === 'required') || (asked !== undefined && mode === 'never')) {
    return Promise.reject(legacyTaskRefusal(request.params.name, mode));
  }
  const capabilities = server.getClientCapabilities();
  const lease = binding.lease(ctx, capabilities);
  const run: AdmittedRun = { served, auth, lease, capabilities };
  const start = (): CallToolResult | Promise<CallToolResult> =>
    asked === undefined ? startLegacy(call, run) : startLegacyTask(call, run);
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
  { host, server, request, ctx }: LegacyCall,
  { served, auth, lease, capabilities }: AdmittedRun,
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
  { host, binding, request, ctx }: LegacyCall,
  { served, auth, lease, capabilities }: AdmittedRun,
): Promise<CallToolResult> {
  const args = request.params.arguments ?? {};
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

/**
 * `serve()`'s answer, `share` given back once it is answered (at once when it is not a
 * promise), however it is answered.
 */
export function givingBack(
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
export function withExecution(host: InstanceHost, tool: McpTool): McpTool {
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
