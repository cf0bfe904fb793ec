import { type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server';
import {
  type AuthInfo,
  type Elicitor,
  type RecordFunc,
  type RootsLister,
  type Sampler,
} from '../../../core';
import {
  type CallRoute,
  type CallTracker,
  elicitationAsk,
  failure,
  rootsAsk,
  type RoundTripRun,
  runCall,
  type RunningCall,
  samplingAsk,
  type ServedTool,
} from '../calls';
import { type ErrorReporter, type SessionLease } from '../session';
import { type LegacyChannel, linkLegacyTask } from './legacy-link';
import { legacyCreateTaskResult } from './legacy-wire';
import { type LocalTask } from './local-task';
import { runAsTask } from '../telemetry';
import { TaskLimitError } from './store';
import { type Tasks } from './tasks';
import { createTaskResult, type TaskEra } from './wire';

/** What starting and following a task needs of the server it runs on. */
export interface TaskHost {
  readonly recorder: RecordFunc | undefined;
  readonly report: ErrorReporter;
  /** The calls in flight: a task's run is one of them. */
  readonly calls: CallTracker;
  readonly tasks: Tasks;
}

/** Progress of a task replaces its status message, so no budget of text applies to it. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** A call that becomes a task, with what it runs with. */
export interface TaskCall {
  readonly served: ServedTool;
  readonly args: Record<string, unknown>;
  readonly lease: SessionLease;
  readonly auth: AuthInfo | undefined;
  /** The caller whose share of tasks the task counts against over HTTP (see `callerKeyOf`). */
  readonly caller: string | undefined;
  /** The client capabilities of the request that makes the task. */
  readonly capabilities: ClientCapabilities | undefined;
  /** Aborted when the client drops the request before its answer went out. */
  readonly dropped: AbortSignal | undefined;
  /** The wire the call came on (default `modern`, 2026-07-28). */
  readonly era?: TaskEra;
  /** A 2025-era call's `task.ttl` (ms): how long the client asks the task to be kept. */
  readonly ttlMs?: number | undefined;
  /**
   * The session a 2025-era call was made in: where the task's requests of the client
   * and its status notifications go while no `tasks/result` waits on it.
   */
  readonly home?: LegacyChannel | undefined;
}

/**
 * Starts `call` as a task: the task is stored first, then the tool runs detached from
 * the request, which is answered with the `CreateTaskResult` (the 2025-11-25 one for a
 * 2025-era call). The tool's questions are the task's (`input_required`), its progress
 * the task's status message; its signal aborts on `tasks/cancel`, at the TTL and when
 * the server stops.
 */
export async function startTask(host: TaskHost, call: TaskCall): Promise<CallToolResult> {
  const controller = new AbortController();
  const legacy = call.era === 'legacy';
  let task: LocalTask;
  try {
    task = await host.tasks.create({
      tool: call.served.tool.name,
      subject: call.auth?.subject ?? '',
      caller: call.caller,
      abort: (reason) => controller.abort(reason),
      capabilities: call.capabilities,
      ...(legacy ? { era: 'legacy' as const } : {}),
      ...(call.ttlMs === undefined ? {} : { ttlMs: call.ttlMs }),
    });
  } catch (error) {
    call.lease.release();
    if (error instanceof TaskLimitError) return failure(error.message);
    throw error;
  }
  task.onOver(() => call.lease.release());
  cancelUnclaimed(task, call.dropped);
  // The 2025-11-25 wire has no `tasks/update`: the task's requests go out to its client.
  if (legacy) linkLegacyTask(task, call.home, host.report);
  follow(
    host,
    task,
    runAsTask(task.record.taskId, call.served.tool.name, () =>
      runCall(call.served, call.args, {
        session: call.lease.session,
        auth: call.auth,
        signalSource: controller,
        elicitor: task.elicitor,
        sampler: task.sampler,
        rootsLister: task.rootsLister,
        // As in any call of its era: a 2026-07-28 client that did not declare elicitation
        // is refused; a 2025-era one's question is answered `cancel`.
        ...(legacy ? {} : { askWithoutElicitor: 'refuse' as const }),
        recorder: host.recorder,
        report: host.report,
        progressBudget: UNBOUNDED,
        route: () => task.route,
      }),
    ),
  );
  return legacy
    ? (legacyCreateTaskResult(task.record) as unknown as CallToolResult)
    : createTaskResult(task.record);
}

/**
 * A client that drops the request making a task before its answer went out never learns
 * the task's id: nobody could poll or cancel it, so it is cancelled, unless a request of
 * the client names it first.
 */
function cancelUnclaimed(task: LocalTask, dropped: AbortSignal | undefined): void {
  if (dropped === undefined) return;
  const onDrop = (): void => {
    if (!task.claimed) void task.cancel();
  };
  if (dropped.aborted) return onDrop();
  dropped.addEventListener('abort', onDrop, { once: true });
  task.onOver(() => dropped.removeEventListener('abort', onDrop));
}

/** Keeps the task's outcome in its record; the server's close waits for it (within its grace). */
export function follow(host: TaskHost, task: LocalTask, running: RunningCall): void {
  void host.calls.track(task.settle(running));
}

/**
 * What a run that becomes a task later runs its tool with: each is defined when the
 * client declared its capability (as the run's are).
 */
export interface LateTask {
  readonly elicitor: Elicitor | undefined;
  readonly sampler: Sampler | undefined;
  readonly rootsLister: RootsLister | undefined;
  route(): CallRoute | undefined;
  /** True once the run is becoming a task (or is one). */
  begun(): boolean;
}

/**
 * Makes `run` (a call of a tool declared `questionsFirst`) become a task once it goes on
 * past its first questions: those go back with the call (`input_required`, resumed by
 * the client's next `tools/call`), then the task is stored and the call answered with
 * it. The tool's later questions and progress are the task's.
 */
export function taskAfterQuestions(
  host: TaskHost,
  run: RoundTripRun,
  call: TaskCall & {
    readonly required: boolean;
    /** Runs once the task is made: the call is a task from then on. */
    readonly made?: () => void;
  },
): LateTask {
  let created: Promise<LocalTask> | undefined;
  let task: LocalTask | undefined;
  run.handOff = {
    always: call.required,
    take: async () => {
      created = host.tasks.create({
        tool: call.served.tool.name,
        subject: call.auth?.subject ?? '',
        caller: call.caller,
        abort: (reason) => run.controller.abort(reason),
        capabilities: call.capabilities,
      });
      let made: LocalTask;
      try {
        made = task = await created;
      } catch (error) {
        run.stop(error);
        if (error instanceof TaskLimitError) return failure(error.message);
        throw error;
      }
      call.made?.();
      const running = run.running;
      if (running !== undefined) follow(host, made, running);
      made.onOver(() => run.end());
      cancelUnclaimed(made, call.dropped);
      return createTaskResult(made.record);
    },
  };
  // Before the task is made, a request of the client goes back with the call; after,
  // it is the task's (under its key among the task's open requests).
  const { elicitor, sampler, rootsLister } = run;
  return {
    elicitor:
      elicitor === undefined
        ? undefined
        : (question, ctx) =>
            created === undefined
              ? elicitor(question, ctx)
              : created.then((made) => made.put(elicitationAsk(question))),
    sampler:
      sampler === undefined
        ? undefined
        : (request, ctx) =>
            created === undefined
              ? sampler(request, ctx)
              : created.then((made) => made.put(samplingAsk(request))),
    rootsLister:
      rootsLister === undefined
        ? undefined
        : (request, ctx) =>
            created === undefined
              ? rootsLister(request, ctx)
              : created.then((made) => made.put(rootsAsk(request))),
    route: () => task?.route ?? run.route,
    begun: () => created !== undefined,
  };
}
