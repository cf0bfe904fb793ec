import {
  type ClientCapabilities,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { type AuthInfo, isJsonObject } from '../../../core';
import { type Tasks, takesTasks } from './tasks';
import { TASKS_EXTENSION } from './wire';

/** What the handlers read off a request. */
export interface TaskRequestReader {
  capabilities(ctx: ServerContext): ClientCapabilities | undefined;
  caller(ctx: ServerContext): AuthInfo | undefined;
}

/**
 * Serves the tasks extension on a 2026-07-28 SDK server instance: advertises it (an
 * empty object under `capabilities.extensions`) and answers `tasks/get`, `tasks/update`
 * and `tasks/cancel`. A request that does not declare the extension gets -32021 before
 * anything else is looked at; a missing task id, an unknown task or another caller's
 * -32602. `tasks/result` and `tasks/list` are not methods of this revision (the SDK
 * answers -32601).
 */
export function serveTasks(server: Server, tasks: Tasks, reader: TaskRequestReader): void {
  server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  // The extension is checked before the params: a client without it learns that first.
  const target = (params: Record<string, unknown>, ctx: ServerContext): TaskTarget => {
    if (!takesTasks(reader.capabilities(ctx))) throw missingExtension();
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
    return tasks.get(taskId, subject);
  });
  server.setRequestHandler('tasks/update', { params: ANY_PARAMS }, async (params, ctx) => {
    const { taskId, subject } = target(params, ctx);
    // The SDK lifts `inputResponses` off the params, dropping entries of no answer's shape.
    await tasks.update(taskId, subject, ctx.mcpReq.inputResponses ?? {});
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: ANY_PARAMS }, async (params, ctx) => {
    const { taskId, subject } = target(params, ctx);
    await tasks.cancel(taskId, subject);
    return {};
  });
}

interface TaskTarget {
  readonly taskId: string;
  readonly subject: string;
}

/** JSON-RPC "Invalid params". */
const INVALID_PARAMS = -32602;

function missingExtension(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `mcp: tasks: this request does not declare the ${TASKS_EXTENSION} extension in its client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions), which the tasks methods need`,
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
