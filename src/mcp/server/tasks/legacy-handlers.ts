import {
  ProtocolError,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { type AuthInfo, isJsonObject, type JsonObject } from '../../../core';
import { type LegacyChannel, legacyLinkOf } from './legacy-link';
import { legacyTask, legacyTasksCapability, withRelatedTask } from './legacy-wire';
import { type Tasks } from './tasks';
import { type TaskRecord } from './wire';

/** JSON-RPC "Invalid params". */
const INVALID_PARAMS = -32602;

/** What the 2025-era handlers read off a request, and when they stop waiting. */
export interface LegacyTaskReader {
  caller(ctx: ServerContext): AuthInfo | undefined;
  /** Aborts when the server stops: a `tasks/result` waiting then gives up. */
  readonly stopping: AbortSignal;
  /**
   * True when the connection's callers are told apart (an auth subject): only then is
   * `tasks/list` served, as the revision advises, since it would show the tasks of
   * every caller without one.
   */
  readonly listing: boolean;
}

/**
 * Serves the 2025-11-25 experimental tasks on a 2025-era SDK server instance: declares
 * `capabilities.tasks` (task-augmented `tools/call`, `tasks/cancel`, and `tasks/list`
 * when `reader.listing`), and answers `tasks/get` (the task), `tasks/result` (blocks until
 * the task is final, then answers what the call would have: its result, naming the task
 * in `_meta`, or its JSON-RPC error), `tasks/list` (the caller's tasks) and
 * `tasks/cancel` (the cancelled task; -32602 for a final one). A task id that names no
 * task of the caller made on this wire gets -32602.
 */
export function serveLegacyTasks(server: Server, tasks: Tasks, reader: LegacyTaskReader): void {
  server.registerCapabilities({ tasks: legacyTasksCapability(reader.listing) });
  const target = (params: Record<string, unknown>, ctx: ServerContext): LegacyTarget => {
    if (typeof params.taskId !== 'string') {
      throw new ProtocolError(
        INVALID_PARAMS,
        'mcp: tasks: params.taskId must be a string (the task id)',
      );
    }
    return { taskId: params.taskId, subject: reader.caller(ctx)?.subject ?? '' };
  };
  server.setRequestHandler('tasks/get', { params: ANY_PARAMS }, async (params, ctx) => {
    const { taskId, subject } = target(params, ctx);
    return legacyTask(await tasks.find(taskId, subject, 'legacy'));
  });
  server.setRequestHandler('tasks/result', { params: ANY_PARAMS }, async (params, ctx) => {
    const { taskId, subject } = target(params, ctx);
    return outcomeOf(await waitForTask(tasks, taskId, subject, ctx, reader.stopping));
  });
  server.setRequestHandler('tasks/cancel', { params: ANY_PARAMS }, async (params, ctx) => {
    const { taskId, subject } = target(params, ctx);
    return legacyTask(await tasks.stop(taskId, subject, 'legacy'));
  });
  if (reader.listing) {
    server.setRequestHandler('tasks/list', { params: ANY_PARAMS }, async (params, ctx) => {
      // Every task of a caller fits one page (at most maxTasksPerSubject): no cursor is
      // ever given out, so none names a page.
      if (params.cursor !== undefined) {
        throw new ProtocolError(
          INVALID_PARAMS,
          'mcp: tasks/list: this server gives out no cursors (every task fits one page); send the request without one',
        );
      }
      const subject = reader.caller(ctx)?.subject ?? '';
      return { tasks: (await tasks.list(subject, 'legacy')).map(legacyTask) };
    });
  }
}

interface LegacyTarget {
  readonly taskId: string;
  readonly subject: string;
}

/**
 * Waits for the task to be final. While it runs here, its requests of the client go out
 * over this request's stream (the revision's way for a client waiting on `tasks/result`).
 */
async function waitForTask(
  tasks: Tasks,
  taskId: string,
  subject: string,
  ctx: ServerContext,
  stopping: AbortSignal,
): Promise<TaskRecord> {
  const signal = AbortSignal.any([ctx.mcpReq.signal, stopping]);
  const local = tasks.local(taskId, subject, 'legacy');
  const link = local === undefined ? undefined : legacyLinkOf(local);
  let waiting = true;
  const channel: LegacyChannel = {
    request: (request, options) =>
      ctx.mcpReq.send({ method: request.method, params: request.params }, options),
    notify: (notification) => ctx.mcpReq.notify(notification),
    live: () => waiting && !signal.aborted,
  };
  const detach = link?.attach(channel);
  try {
    return await tasks.settled(taskId, subject, 'legacy', signal);
  } finally {
    waiting = false;
    detach?.();
  }
}

/** What the task's call would have answered: its result naming the task, or its error. */
function outcomeOf(record: TaskRecord): JsonObject {
  if (record.result !== undefined) {
    return { ...record.result, _meta: withRelatedTask(record.result._meta, record.taskId) };
  }
  if (record.status === 'failed' && record.error !== undefined) {
    throw new ProtocolError(record.error.code, record.error.message, record.error.data);
  }
  throw new ProtocolError(
    INVALID_PARAMS,
    `mcp: tasks/result: task ${JSON.stringify(record.taskId)} was ${record.status} and has no result${record.statusMessage === undefined ? '' : ` (${record.statusMessage})`}`,
  );
}

/** Params as the SDK takes a check of them (a Standard Schema): any object. */
const ANY_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'agenttool',
    validate: (value) =>
      isJsonObject(value) ? { value } : { issues: [{ message: 'params must be an object' }] },
  },
};
