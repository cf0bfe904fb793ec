import {
  AgentToolError,
  type Call,
  type ContentPart,
  goQuote,
  isJsonObject,
  type JsonObject,
  nodeCrypto,
  outputSchemaOf,
  type Result,
  type Session,
  type Tool,
  type ToolContext,
  wrap,
} from '../core';

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
 *   the kind is at `maxOpen` and its caller holds two more than one asking for a new one
 *   (the same), or when the app closes.
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
   * The most handles of this kind one caller holds at once (default 16,
   * {@link DEFAULT_HANDLES_PER_CALLER}): minting one more ends that caller's handle
   * unused longest, if one is idle, or fails the call. A caller is an authenticated
   * subject; without authorization, who the transport says calls (over HTTP, the client
   * address, as the endpoint's fair shares count it).
   */
  readonly maxPerCaller?: number | undefined;
  /**
   * The most handles of this kind open at once, all callers together (default 256,
   * {@link DEFAULT_HANDLES_OPEN}): past it, the caller holding the most gives up its idle
   * handle unused longest when it holds at least two more than the caller minting one,
   * so that a few callers cannot keep every other one out; otherwise the call fails with
   * a tool error saying so.
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

/** A handle kind with its defaults applied. */
interface HandleKind {
  readonly argument: string;
  readonly holds: string;
  readonly idleMs: number;
  readonly maxPerCaller: number;
  readonly maxOpen: number;
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
 * The session of one handle: what the handle's instances live in, ended by the table
 * (idle, evicted, the app closing).
 */
class HandleSession implements Session {
  readonly endsWithCall = false;
  readonly #listeners: (() => void | Promise<void>)[] = [];
  #closed: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly client: Session['client'],
  ) {}

  onClose(listener: () => void | Promise<void>): void {
    if (this.#closed === undefined) this.#listeners.push(listener);
    // Registered after the end: run now; nobody is left to tell of its failure.
    else
      void Promise.resolve()
        .then(listener)
        .catch(() => undefined);
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      const errors: unknown[] = [];
      for (const listener of this.#listeners.splice(0).reverse()) {
        try {
          await listener();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw new AggregateError(errors, `handle ${this.id}: closing failed`);
    })();
    return this.#closed;
  }
}

/** One live handle. */
interface Held {
  readonly kind: HandleKind;
  readonly session: HandleSession;
  /** The caller that minted it: the authenticated subject, "" without one. */
  readonly caller: string;
  /**
   * Whose most (`maxPerCaller`) it counts against: the subject, or, without one, who the
   * transport says calls (the client's address over HTTP), so that one anonymous client's
   * new handles never end another's.
   */
  readonly quota: string;
  inFlight: number;
  /** When a call on it last ended, as a count of such moments (milliseconds tie). */
  lastUsed: number;
  timer: NodeJS.Timeout | undefined;
}

/** Why a handle ended, for the error a later call with it gets. */
type EndedBy = 'idle' | 'most' | 'share';

/** How many ended handles are remembered with why they ended (the oldest go first). */
const ENDED_REMEMBERED = 1024;

/** The live handles of one app. */
export class HandleTable {
  readonly #live = new Map<string, Held>();
  /** Handles ended by a limit, lately: whose they were and why they ended. */
  readonly #ended = new Map<string, { readonly caller: string; readonly why: EndedBy }>();
  #closed = false;
  #uses = 0;

  constructor(private readonly onError: (message: string, error: unknown) => void) {}

  /** The live handle `id` of `kind` that `caller` may use, else undefined. */
  find(kind: HandleKind, id: string, caller: string): Held | undefined {
    const held = this.#live.get(id);
    if (held === undefined || held.kind.argument !== kind.argument || held.caller !== caller) {
      return undefined;
    }
    return held;
  }

  /**
   * Why `caller`'s handle `id` of `kind` ended, when a limit ended it lately; undefined
   * when it is not known (another caller's, never minted, or long ago).
   */
  whyEnded(kind: HandleKind, id: string, caller: string): string | undefined {
    const ended = this.#ended.get(id);
    if (ended === undefined || ended.caller !== caller) return undefined;
    switch (ended.why) {
      case 'idle':
        return `it was closed after ${describeMs(kind.idleMs)} unused`;
      case 'most':
        return `it was closed when this caller started one more ${kind.holds} past its most (${kind.maxPerCaller}): the one unused longest is closed then`;
      case 'share':
        return `it was closed to make room for another caller when the server held its most ${kind.holds}s (${kind.maxOpen}, all callers together): the caller holding the most gives up its ${kind.holds} unused longest`;
    }
  }

  /** A new handle for `caller`, counted against `quota`, prefixed as its session says. */
  mint(kind: HandleKind, caller: string, quota: string, session: Session | undefined): Held {
    if (this.#closed) throw new AgentToolError('CLOSED', 'agenttool/di: the app is closed');
    this.#makeRoom(kind, quota);
    const id = `${session?.handlePrefix ?? ''}${kind.argument.replace(/_id$/, '')}_${nodeCrypto().randomBytes(12).toString('base64url')}`;
    const held: Held = {
      kind,
      session: new HandleSession(id, session?.client),
      caller,
      quota,
      inFlight: 0,
      lastUsed: ++this.#uses,
      timer: undefined,
    };
    this.#live.set(id, held);
    return held;
  }

  /** Marks a call on `held` begun: it does not expire meanwhile. */
  busy(held: Held): void {
    held.inFlight++;
    clearTimeout(held.timer);
    held.timer = undefined;
  }

  /** Marks a call on `held` over: its idle time starts again when none is left. */
  done(held: Held): void {
    held.inFlight--;
    held.lastUsed = ++this.#uses;
    if (held.inFlight > 0 || this.#live.get(held.session.id) !== held) return;
    // A delay past 2^31-1 ms would fire at once: clamp it (about 24.8 days).
    held.timer = setTimeout(() => this.#end(held, 'idle'), Math.min(held.kind.idleMs, 2 ** 31 - 1));
    held.timer.unref();
  }

  /** Ends every handle; later mints fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#live.values()];
    this.#live.clear();
    const errors: unknown[] = [];
    for (const held of all) {
      clearTimeout(held.timer);
      await held.session.close().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw new AggregateError(errors, 'closing the handles failed');
  }

  #end(held: Held, why: EndedBy): void {
    if (this.#live.get(held.session.id) !== held) return;
    this.#live.delete(held.session.id);
    this.#ended.set(held.session.id, { caller: held.caller, why });
    if (this.#ended.size > ENDED_REMEMBERED) {
      this.#ended.delete(this.#ended.keys().next().value as string);
    }
    clearTimeout(held.timer);
    held.session
      .close()
      .catch((error: unknown) =>
        this.onError(`agenttool/di: ending ${held.kind.holds} ${held.session.id} failed`, error),
      );
  }

  /**
   * Ends `quota`'s idle handle of `kind` unused longest when it holds its most; fails
   * when all of its handles are busy. When the kind's handles, all callers together, are
   * at their most, the caller holding the most (more than one beyond what `quota` holds)
   * gives up its idle handle unused longest, so that a few callers cannot keep every
   * other one out; failing that, the call fails.
   */
  #makeRoom(kind: HandleKind, quota: string): void {
    let open = 0;
    const byQuota = new Map<string, { count: number; oldestIdle: Held | undefined }>();
    for (const held of this.#live.values()) {
      if (held.kind.argument !== kind.argument) continue;
      open++;
      const entry = byQuota.get(held.quota) ?? { count: 0, oldestIdle: undefined };
      entry.count++;
      if (
        held.inFlight === 0 &&
        (entry.oldestIdle === undefined || held.lastUsed < entry.oldestIdle.lastUsed)
      ) {
        entry.oldestIdle = held;
      }
      byQuota.set(held.quota, entry);
    }
    const own = byQuota.get(quota) ?? { count: 0, oldestIdle: undefined };
    if (own.count >= kind.maxPerCaller) {
      if (own.oldestIdle === undefined) {
        throw new Error(
          `${own.count} ${kind.holds}s are open for this caller and all are busy; wait for a call to finish and pass its ${kind.argument}`,
        );
      }
      this.#end(own.oldestIdle, 'most');
      return;
    }
    if (open < kind.maxOpen) return;
    let largest: { count: number; oldestIdle: Held | undefined } | undefined;
    for (const [other, entry] of byQuota) {
      if (other === quota || entry.oldestIdle === undefined || entry.count <= own.count + 1) {
        continue;
      }
      if (
        largest?.oldestIdle === undefined ||
        entry.count > largest.count ||
        (entry.count === largest.count && entry.oldestIdle.lastUsed < largest.oldestIdle.lastUsed)
      ) {
        largest = entry;
      }
    }
    if (largest?.oldestIdle !== undefined) {
      this.#end(largest.oldestIdle, 'share');
      return;
    }
    throw new Error(
      `the server holds its most ${kind.holds}s (${kind.maxOpen}, all callers together), and none could be taken back (a caller holding at least two more than this one gives up its idle one unused longest); pass the ${kind.argument} of one you hold, or try again once one has closed (after ${describeMs(kind.idleMs)} unused)`,
    );
  }
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
    let args = call.args;
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
      const subject = ctx.auth?.subject;
      const quota =
        subject === undefined || subject === ''
          ? `anonymous:${ctx.session.callerKey ?? ''}`
          : `subject:${subject}`;
      held = table.mint(kind, caller, quota, ctx.session);
      minted = true;
    }
    if (parsed !== undefined && argument in parsed) {
      const { [argument]: _dropped, ...rest } = parsed;
      args = JSON.stringify(rest);
    }
    if (held === undefined) return inner.execute({ ...call, args }, ctx);
    table.busy(held);
    try {
      const result = await inner.execute({ ...call, args }, ctx.with({ session: held.session }));
      return withHandle(result, kind, held.session.id, minted, structuredOk);
    } finally {
      table.done(held);
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

function describeMs(ms: number): string {
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  if (ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  if (ms % 1000 === 0) return plural(ms / 1000, 'second');
  return `${ms} ms`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
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
