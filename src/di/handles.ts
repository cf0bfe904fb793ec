import {
  AgentToolError,
  type Call,
  type ContentPart,
  goQuote,
  isJsonObject,
  type JsonObject,
  outputSchemaOf,
  type Result,
  type Session,
  type Tool,
  type ToolContext,
  wrap,
} from '../core';
import { describeMs } from './handle-messages';
import { type HandleKind, type HandleTable, type Held } from './handle-table';

/**
 * State a client reaches by a handle it carries, as MCP 2026-07-28 keeps state across
 * calls (SEP-2567): the server mints the handle, the model passes it back as an
 * ordinary tool argument. Given on a session-scoped provider (`scope: 'session'`), it
 * makes the provider's instances reachable by handle as well as by session: every tool
 * that injects the provider (directly or through what it injects) takes the handle
 * argument, optional, in its schema.
 *
 * - A call that carries the handle runs with the handle's instances, whatever its
 *   session; a handle another caller (another authenticated subject) minted, or one
 *   that ended, is refused with a tool error that tells the model to call without it.
 * - A call without it, in a session that lasts (stdio, a 2025-era session, an executor
 *   batch), runs with its session's instances, as a session-scoped provider does.
 * - A call without it in a session that ends with the call (a 2026-07-28 request) gets a
 *   new handle: its instances live under it, and the result carries it, in its
 *   structured result under the argument's name and in a line of its text.
 * - A handle ends after `idleTimeoutMs` without a call (its instances are closed), when
 *   its caller holds more than `maxPerCaller` (the one unused longest that is idle), when
 *   the kind is at `maxOpen` and its caller holds two more than one asking for a new one,
 *   or is the one asking and no other caller does (the same), or when the app closes. A lasting session's own instances (a 2025-era
 *   session's, stdio's) count among its caller's and the kind's open ones from the
 *   session's first call on them until it ends, and are never ended but with it: a
 *   session's first call fails, as a new handle's does, when no handle can make room.
 *   A handle whose minting call has not answered yet counts in both limits and needs room
 *   of its own, so that calls minting in parallel cannot hold past them between them.
 */
export interface HandleOptions {
  /**
   * The argument that carries the handle, named for what it holds: `shell_id`. Lower
   * case letters, digits and `_`, starting with a letter, at most 64.
   */
  readonly argument: string;
  /** What one handle holds, for the tools' descriptions and errors: `shell`. */
  readonly holds: string;
  /** How long a handle lives without a call, in ms (default 30 minutes, {@link DEFAULT_HANDLE_IDLE_MS}). */
  readonly idleTimeoutMs?: number | undefined;
  /**
   * The most handles of this kind one caller holds at once, its lasting sessions' own
   * instances among them (default 16, {@link DEFAULT_HANDLES_PER_CALLER}): minting one
   * more (or a session's first call) ends that caller's handle unused longest, if one is
   * idle, or fails the call. A caller is an authenticated
   * subject; without authorization, who the transport says calls (over HTTP, the client
   * address, as the endpoint's fair shares count it).
   */
  readonly maxPerCaller?: number | undefined;
  /**
   * The most handles of this kind open at once, all callers together, lasting sessions'
   * own instances among them (default 256, {@link DEFAULT_HANDLES_OPEN}): past it, the
   * caller holding the most gives up its idle handle unused longest when it holds at
   * least two more than the caller minting one, so that a few callers cannot keep every
   * other one out; otherwise the caller minting gives up its own idle one unused
   * longest, and, with none idle, the call fails with a tool error saying so.
   */
  readonly maxOpen?: number | undefined;
}

/** How long a handle lives without a call when its options say nothing: 30 minutes. */
export const DEFAULT_HANDLE_IDLE_MS = 30 * 60_000;
/** How many handles of a kind one caller holds at most when its options say nothing. */
export const DEFAULT_HANDLES_PER_CALLER = 16;
/** How many handles of a kind are open at most, all callers together, when its options say nothing. */
export const DEFAULT_HANDLES_OPEN = 256;

const ARGUMENT_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** A problem with `options`, or undefined when they are usable. */
export function handleOptionsProblem(options: unknown): string | undefined {
  if (!isRecord(options)) return 'handle must be an object: { argument, holds }';
  const { argument, holds, idleTimeoutMs, maxPerCaller, maxOpen } = options;
  if (typeof argument !== 'string' || !ARGUMENT_NAME.test(argument)) {
    return `handle.argument must be a lower-case argument name such as "shell_id", got ${show(argument)}`;
  }
  if (typeof holds !== 'string' || holds.trim() === '') {
    return `handle.holds must say what a handle holds, such as "shell", got ${show(holds)}`;
  }
  if (idleTimeoutMs !== undefined && !positiveInteger(idleTimeoutMs)) {
    return `handle.idleTimeoutMs must be a positive integer of ms, got ${show(idleTimeoutMs)}`;
  }
  if (maxPerCaller !== undefined && !positiveInteger(maxPerCaller)) {
    return `handle.maxPerCaller must be a positive integer, got ${show(maxPerCaller)}`;
  }
  if (maxOpen !== undefined && !positiveInteger(maxOpen)) {
    return `handle.maxOpen must be a positive integer, got ${show(maxOpen)}`;
  }
  return undefined;
}

function kindOf(options: HandleOptions): HandleKind {
  return {
    argument: options.argument,
    holds: options.holds,
    idleMs: options.idleTimeoutMs ?? DEFAULT_HANDLE_IDLE_MS,
    maxPerCaller: options.maxPerCaller ?? DEFAULT_HANDLES_PER_CALLER,
    maxOpen: options.maxOpen ?? DEFAULT_HANDLES_OPEN,
  };
}

/**
 * The tool `inner` (a session tool that injects a provider with handle `options`) with
 * the handle argument added to its schema and handled as {@link HandleOptions} says.
 */
export function handleTool(inner: Tool, options: HandleOptions, table: HandleTable): Tool {
  const kind = kindOf(options);
  const { argument, holds } = kind;
  const parameters = withHandleParameter(inner, kind);
  const structuredOk = outputSchemaOf(inner) === undefined;
  const execute = async (call: Call, ctx: ToolContext): Promise<Result> => {
    const parsed = parseArgs(call.args);
    const given = parsed?.[argument];
    const caller = ctx.auth?.subject ?? '';
    let held: Held | undefined;
    let minted = false;
    if (parsed !== undefined && given !== undefined && given !== null && given !== '') {
      if (typeof given !== 'string') {
        throw new Error(
          `invalid arguments: ${argument}: want the string a result gave, got ${JSON.stringify(given)}`,
        );
      }
      held = table.find(kind, given, caller);
      if (held === undefined) {
        const why =
          table.whyEnded(kind, given, caller) ??
          `it was closed (after ${describeMs(kind.idleMs)} unused, or when the server restarted) or was never given to this caller`;
        throw new Error(
          `${argument} ${goQuote(given)} names no open ${holds}: ${why}; call again without ${argument} to start a new ${holds}`,
        );
      }
    } else if (ctx.session?.endsWithCall === true) {
      held = table.mint(kind, caller, quotaOf(ctx, ctx.session), ctx.session);
      minted = true;
    } else if (ctx.session !== undefined) {
      // A lasting session's own instances count among the kind's open ones too.
      const session = ctx.session;
      table.claimForSession(kind, session, () => quotaOf(ctx, session));
    }
    // The inner tool sees its own arguments: the call, and the context's, without the
    // handle (its decoded value too, which a harness keeps equal to its text).
    let innerCall = call;
    let innerCtx = ctx;
    if (parsed !== undefined && argument in parsed) {
      const { [argument]: _dropped, ...rest } = parsed;
      innerCall = {
        ...call,
        args: JSON.stringify(rest),
        ...(call.value === undefined ? {} : { value: rest as JsonObject }),
      };
      innerCtx = ctx.with({ call: innerCall });
    }
    if (held === undefined) return inner.execute(innerCall, innerCtx);
    table.busy(held);
    // A handle minted by a call that fails, or whose answer is never sent (cancelled),
    // reached no one: it is ended at once rather than held, idle, for its time; one
    // answered with takes the place of what it takes back only then (see settle).
    let answered = !minted;
    try {
      const result = await inner.execute(innerCall, innerCtx.with({ session: held.session }));
      answered ||= ctx.signal?.aborted !== true;
      return withHandle(result, kind, held.session.id, minted, structuredOk);
    } finally {
      table.done(held);
      if (!answered) table.drop(held);
      else if (minted) table.settle(held);
    }
  };
  const wrapper = wrap(inner, execute);
  return Object.defineProperties(wrapper, {
    parameters: { value: parameters, enumerable: true },
    description: {
      value: joinSentences(inner.description, describeHandle(kind)),
      enumerable: true,
    },
    handleArgument: { value: argument, enumerable: true },
  });
}

/** Whose share a call's handles and session instances count against. */
function quotaOf(ctx: ToolContext, session: Session): string {
  const subject = ctx.auth?.subject;
  return subject === undefined || subject === ''
    ? `anonymous:${session.callerKey ?? ''}`
    : `subject:${subject}`;
}

/** What the tool's description says of the handle: how to keep the state, and its lifetime. */
function describeHandle(kind: HandleKind): string {
  return `Clients without a session get a ${kind.argument} in the result; pass it back to keep using the same ${kind.holds}. A ${kind.holds} unused for ${describeMs(kind.idleMs)} is closed.`;
}

function joinSentences(first: string, second: string): string {
  const trimmed = first.trimEnd();
  if (trimmed === '') return second;
  return `${trimmed}${/[.!?]$/.test(trimmed) ? '' : '.'} ${second}`;
}

function withHandleParameter(inner: Tool, kind: HandleKind): JsonObject {
  const base = inner.parameters ?? { type: 'object', properties: {}, required: [] };
  const properties = isJsonObject(base.properties) ? base.properties : {};
  if (kind.argument in properties) {
    throw new AgentToolError(
      'INVALID_TOOL',
      `tool ${goQuote(inner.name)}: its arguments already have ${goQuote(kind.argument)}, the argument of the ${kind.holds} handle it injects; rename one`,
    );
  }
  return {
    ...base,
    properties: {
      ...properties,
      [kind.argument]: {
        type: 'string',
        description: `The ${kind.argument} a previous result gave, to use the same ${kind.holds}; omit it to use this session's ${kind.holds}, or to start a new one where there is no session.`,
      },
    },
  };
}

function withHandle(
  result: Result,
  kind: HandleKind,
  id: string,
  minted: boolean,
  structuredOk: boolean,
): Result {
  const structured = structuredOk
    ? { ...(result.structured ?? {}), [kind.argument]: id }
    : result.structured;
  if (!minted) return structured === undefined ? result : { ...result, structured };
  const line = `[${kind.argument}: ${id} (a new ${kind.holds}; pass ${kind.argument} to keep using it)]`;
  const output =
    typeof result.output === 'string'
      ? `${result.output}${result.output === '' || result.output.endsWith('\n') ? '' : '\n'}${line}`
      : [...result.output, { type: 'output_text', text: line } satisfies ContentPart];
  return { ...result, output, ...(structured === undefined ? {} : { structured }) };
}

function parseArgs(args: string): Record<string, unknown> | undefined {
  if (args === '' || args[0] !== '{') return undefined;
  try {
    const value: unknown = JSON.parse(args);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
