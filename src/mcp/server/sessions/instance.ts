import {
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { goQuote, isJsonObject } from '../../../core';
import { callerOf, definitionsFor } from '../auth';
import { envelopeCapabilities, failure, SHUTTING_DOWN } from '../calls';
import { takeCallShare } from '../http';
import { SESSION_END_METHOD, SESSIONS_EXTENSION } from '../session';
import { serveLegacyTasks, serveTasks } from '../tasks';
import { TracedServer } from '../telemetry';
import { primitiveCapabilities, servePrimitives } from '../primitives';
import { stoppedAnswer } from './call-answers';
import { type InstanceHost, type SessionBinding } from './host';
import { givingBack, serveLegacy, withExecution } from './legacy-calls';
import { serveModern } from './modern-calls';

export { type InstanceHost, type SessionBinding } from './host';

/** Params of any shape: the end request reads only its `_meta`. */
const ANY_PARAMS: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'agenttool',
    validate: (value) => ({ value: isJsonObject(value) ? value : {} }),
  },
};

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
      const serve = () => serveLegacy({ host, binding, server, request, ctx });
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
