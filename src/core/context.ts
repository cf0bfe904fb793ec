import { type AuthInfo } from './auth';
import {
  type Root,
  type RootsRequest,
  type SamplingRequest,
  type SamplingResult,
} from './client-features';
import { type Answer, CANCELLED_ANSWER, type Elicitation } from './elicitation';
import { AgentToolError, MissingCapabilityError } from './errors';
import { type JsonValue } from './json';
import { isRecordable, type Recordable, recordOf, type ToolRecord } from './records';
import { ProgressInfo, type Result } from './result';
import { type LogLevel, type LogSink, type Session } from './session';

/**
 * One call of a tool, as the harness hands it over.
 */
export interface Call {
  /** The `call_id` of the model's function call; unique within a batch. */
  readonly id: string;
  /** The arguments as the model wrote them: raw JSON text. Empty means `{}`. */
  readonly args: string;
  /**
   * The arguments already decoded from `args`, when the harness has them decoded (an
   * MCP server receives an object, not text). A harness that sets it guarantees that
   * `JSON.parse(args)` equals it (`{}` for empty `args`), so a tool may use it instead of
   * parsing `args`; it is shared, never to be modified. Absent means: parse `args`.
   */
  readonly value?: JsonValue;
  /**
   * Minted by the harness, opaque: the same when a call is run again, new for a new
   * call; empty or absent means none.
   */
  readonly idempotencyKey?: string;
  /** Receives each progress update; the caller serialises. */
  readonly onUpdate?: (update: Result) => void;
}

/**
 * Writes a record durably before it returns (or before its promise settles); may be
 * called concurrently; a failure reaches the tool that wrote.
 */
export type RecordFunc = (record: ToolRecord, ctx: ToolContext) => void | Promise<void>;

/**
 * Puts a question to the user. Throwing means the harness failed to ask; a refusal is
 * an answer (`decline` or `cancel`). May be called concurrently for one call.
 */
export type Elicitor = (question: Elicitation, ctx: ToolContext) => Answer | Promise<Answer>;

/**
 * Has the client's model write the next message. Throwing means the host failed to get
 * an answer (or the client refused); there is no answer that stands for "nobody".
 */
export type Sampler = (
  request: SamplingRequest,
  ctx: ToolContext,
) => SamplingResult | Promise<SamplingResult>;

/** Lists the client's roots. Throwing means the host failed to get them. */
export type RootsLister = (
  request: RootsRequest,
  ctx: ToolContext,
) => readonly Root[] | Promise<readonly Root[]>;

/**
 * What {@link ToolContext.ask} does when the context has no elicitor: `cancel` (the
 * contract: nobody to ask answers `cancel`), or `refuse` (throw a
 * {@link MissingCapabilityError}: an MCP 2026-07-28 server, whose protocol fails a
 * request that needs a capability the client did not declare).
 */
export type AskWithoutElicitor = 'cancel' | 'refuse';

/** What a context is made from; every member is optional. */
export interface ContextInit {
  readonly signal?: AbortSignal;
  readonly call?: Call;
  readonly recorder?: RecordFunc | undefined;
  readonly elicitor?: Elicitor | undefined;
  readonly session?: Session | undefined;
  readonly log?: LogSink | undefined;
  readonly auth?: AuthInfo | undefined;
  /** Has the client's model write (see {@link ToolContext.sample}); none by default. */
  readonly sampler?: Sampler | undefined;
  /** Lists the client's roots (see {@link ToolContext.roots}); none by default. */
  readonly rootsLister?: RootsLister | undefined;
  /** What `ask` does without an elicitor; `cancel` by default. */
  readonly askWithoutElicitor?: AskWithoutElicitor | undefined;
}

/**
 * The context of one call: its cancellation signal (the host's interrupt), the call,
 * and the ways to report progress, write a record now, ask the user and log. The
 * same context is reachable from code deep inside the call through
 * {@link currentContext}.
 */
export interface ToolContext {
  /** Aborted when the host interrupts the call: stop what this call started. */
  readonly signal: AbortSignal;
  readonly call: Call;
  readonly recorder: RecordFunc | undefined;
  readonly elicitor: Elicitor | undefined;
  readonly session: Session | undefined;
  readonly log: LogSink | undefined;
  /**
   * The verified caller the call is served for (MCP over HTTP with authorization: the
   * bearer token's subject, scopes, client and expiry); undefined where the host knows
   * none.
   */
  readonly auth: AuthInfo | undefined;
  /** Has the client's model write; undefined where the host offers no model. */
  readonly sampler: Sampler | undefined;
  /** Lists the client's roots; undefined where the host knows none. */
  readonly rootsLister: RootsLister | undefined;
  /** What {@link ToolContext.ask} does without an elicitor (`cancel` unless the host says). */
  readonly askWithoutElicitor: AskWithoutElicitor;
  /**
   * Reports progress: a {@link Result}, a {@link ProgressInfo} (sent as the details of
   * a result whose text is its message) or a message. A no-op when nobody listens.
   */
  progress(update: Result | ProgressInfo | string): void;
  /**
   * Writes a recordable value now. Throws, without calling the recorder, when the
   * value is not recordable, has an empty namespace or cannot be written as JSON; a
   * no-op when no recorder is installed; otherwise the recorder's failure is thrown.
   */
  record(details: Recordable | null | undefined): Promise<void>;
  /**
   * Asks the user. With no elicitor installed the answer is `cancel`, unless the host
   * refuses instead ({@link ToolContext.askWithoutElicitor}): then it throws a
   * {@link MissingCapabilityError} for `elicitation`.
   */
  ask(question: Elicitation): Promise<Answer>;
  /**
   * Has the client's model write the next message of `request.messages`. Throws a
   * {@link MissingCapabilityError} for `sampling` when there is no sampler (an MCP
   * client that did not declare sampling); the sampler's own failure otherwise.
   */
  sample(request: SamplingRequest): Promise<SamplingResult>;
  /**
   * The client's roots. Throws a {@link MissingCapabilityError} for `roots` when there
   * is no roots lister (an MCP client that did not declare roots).
   */
  roots(request?: RootsRequest): Promise<readonly Root[]>;
  /** Sends a log line to the client, when one listens (MCP `notifications/message`). */
  logMessage(level: LogLevel, data: unknown): void;
  /** A context like this one with the given members replaced. */
  with(changes: ContextInit): ToolContext;
}

const NO_CALL: Call = Object.freeze({ id: '', args: '' });
const NEVER_ABORTED = new AbortController().signal;

/** What a context asks its client through, besides its elicitor: rarely set, so kept apart. */
interface ClientAccess {
  readonly sampler: Sampler | undefined;
  readonly rootsLister: RootsLister | undefined;
  readonly askWithoutElicitor: AskWithoutElicitor;
}

const NO_CLIENT_ACCESS: ClientAccess = Object.freeze({
  sampler: undefined,
  rootsLister: undefined,
  askWithoutElicitor: 'cancel',
});

/**
 * @internal Where a context's signal comes from when it is made on first read (see
 * {@link createContextWithSignalSource}); `signal` gives the same signal every time.
 */
export interface SignalSource {
  readonly signal: AbortSignal;
}

class CallContext implements ToolContext {
  readonly #client: ClientAccess;
  #signal: AbortSignal | undefined;
  readonly #source: SignalSource | undefined;

  constructor(
    signal: AbortSignal | undefined,
    source: SignalSource | undefined,
    readonly call: Call,
    readonly recorder: RecordFunc | undefined,
    readonly elicitor: Elicitor | undefined,
    readonly session: Session | undefined,
    readonly log: LogSink | undefined,
    readonly auth: AuthInfo | undefined,
    client: ClientAccess,
  ) {
    this.#signal = signal;
    this.#source = source;
    this.#client = client;
  }

  get signal(): AbortSignal {
    return (this.#signal ??= this.#source?.signal ?? NEVER_ABORTED);
  }

  /** `ctx` for another call (see {@link contextForCall}), sharing everything else. */
  static forCall(ctx: CallContext, call: Call): CallContext {
    return new CallContext(
      ctx.#signal,
      ctx.#source,
      call,
      ctx.recorder,
      ctx.elicitor,
      ctx.session,
      ctx.log,
      ctx.auth,
      ctx.#client,
    );
  }

  get sampler(): Sampler | undefined {
    return this.#client.sampler;
  }

  get rootsLister(): RootsLister | undefined {
    return this.#client.rootsLister;
  }

  get askWithoutElicitor(): AskWithoutElicitor {
    return this.#client.askWithoutElicitor;
  }

  progress(update: Result | ProgressInfo | string): void {
    const onUpdate = this.call.onUpdate;
    if (onUpdate === undefined) return;
    if (typeof update === 'string') onUpdate({ output: update });
    else if (update instanceof ProgressInfo) onUpdate({ output: update.message, details: update });
    else onUpdate(update);
  }

  async record(details: Recordable | null | undefined): Promise<void> {
    if (details === undefined || details === null) return;
    if (!isRecordable(details)) {
      throw new AgentToolError(
        'INVALID_RECORD',
        'agenttool: record: the value is not recordable; give it a recordNS() method or build it with recordable(ns, data)',
      );
    }
    const record = recordOf(details);
    if (record === undefined || this.recorder === undefined) return;
    await this.recorder(record, this);
  }

  async ask(question: Elicitation): Promise<Answer> {
    if (this.elicitor !== undefined) return this.elicitor(question, this);
    if (this.#client.askWithoutElicitor === 'cancel') return CANCELLED_ANSWER;
    throw new MissingCapabilityError(
      'elicitation',
      'agenttool: ask: there is nobody to ask: the client does not take questions (over MCP: it did not declare the elicitation capability)',
    );
  }

  async sample(request: SamplingRequest): Promise<SamplingResult> {
    const sampler = this.#client.sampler;
    if (sampler === undefined) {
      throw new MissingCapabilityError(
        'sampling',
        'agenttool: sample: there is no model to ask: the client does not lend its model (over MCP: it did not declare the sampling capability)',
      );
    }
    return sampler(request, this);
  }

  async roots(request: RootsRequest = {}): Promise<readonly Root[]> {
    const lister = this.#client.rootsLister;
    if (lister === undefined) {
      throw new MissingCapabilityError(
        'roots',
        'agenttool: roots: the client shares no roots (over MCP: it did not declare the roots capability)',
      );
    }
    return lister(request, this);
  }

  logMessage(level: LogLevel, data: unknown): void {
    this.log?.(level, data);
  }

  with(changes: ContextInit): ToolContext {
    return contextFrom({
      signal: 'signal' in changes ? changes.signal : this.signal,
      call: 'call' in changes ? changes.call : this.call,
      recorder: 'recorder' in changes ? changes.recorder : this.recorder,
      elicitor: 'elicitor' in changes ? changes.elicitor : this.elicitor,
      session: 'session' in changes ? changes.session : this.session,
      log: 'log' in changes ? changes.log : this.log,
      auth: 'auth' in changes ? changes.auth : this.auth,
      sampler: 'sampler' in changes ? changes.sampler : this.sampler,
      rootsLister: 'rootsLister' in changes ? changes.rootsLister : this.rootsLister,
      askWithoutElicitor:
        'askWithoutElicitor' in changes ? changes.askWithoutElicitor : this.askWithoutElicitor,
    });
  }
}

/** A new call context. Without a signal it is never aborted; without a call, the call is empty. */
export function createContext(init: ContextInit = {}): ToolContext {
  return contextFrom(init);
}

/**
 * @internal A new call context whose signal is `source.signal`, read when the signal is
 * first read: a host whose call signal is costly to link (an MCP server links it to the
 * request and to its own stop) pays nothing for a tool that never reads it.
 */
export function createContextWithSignalSource(
  init: Omit<ContextInit, 'signal'>,
  source: SignalSource,
): ToolContext {
  return contextFrom(init, source);
}

function contextFrom(init: ContextInit, source?: SignalSource): CallContext {
  return new CallContext(
    source === undefined ? (init.signal ?? NEVER_ABORTED) : undefined,
    source,
    init.call ?? NO_CALL,
    init.recorder,
    init.elicitor,
    init.session,
    init.log,
    init.auth,
    clientAccessOf(init),
  );
}

function clientAccessOf(init: ContextInit): ClientAccess {
  const ask = init.askWithoutElicitor ?? 'cancel';
  if (init.sampler === undefined && init.rootsLister === undefined && ask === 'cancel') {
    return NO_CLIENT_ACCESS;
  }
  return { sampler: init.sampler, rootsLister: init.rootsLister, askWithoutElicitor: ask };
}

/**
 * `ctx` for another call, as `ctx.with({ call })` makes it, without the changes object:
 * what an executor does for every job.
 */
export function contextForCall(ctx: ToolContext, call: Call): ToolContext {
  if (!(ctx instanceof CallContext)) return ctx.with({ call });
  return CallContext.forCall(ctx, call);
}
