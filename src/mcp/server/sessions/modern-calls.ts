import {
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { callerOf } from '../auth';
import {
  CANCEL_META_KEY,
  envelopeCapabilities,
  failure,
  isAdmitted,
  RoundTripRun,
  routeOf,
  runCall,
  type RunningCall,
  sessionFailure,
  SHUTTING_DOWN,
  unknownTool,
  resumeRequest,
} from '../calls';
import { callerKeyOf, takeCallShare } from '../http';
import { startTask, taskAfterQuestions } from '../tasks';
import { admitted, envelopeClient, withHandle } from './call-answers';
import { type InstanceHost, type SessionBinding } from './host';

/**
 * A 2026-07-28 call: one answering a question the call asked (its request state), or a
 * new one, which counts against its caller's share of calls in flight over HTTP.
 */
export async function serveModern(
  host: InstanceHost,
  binding: SessionBinding,
  request: CallToolRequest,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { name } = request.params;
  const state = ctx.mcpReq.requestState<unknown>();
  if (typeof state === 'string') {
    // Answers sent under a name the server does not serve get the unknown tool's answer.
    if (host.served(name) === undefined) return unknownTool(name);
    if (ctx.mcpReq._meta?.[CANCEL_META_KEY] === true) {
      return host.trips.cancel(name, state, binding.owner(ctx));
    }
    return resumeRequest(host.trips, name, state, binding.owner(ctx), ctx);
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
  run.fromRequest(args, ctx.mcpReq.inputResponses);
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
