import { setMaxListeners } from 'node:events';
import { type Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import {
  AgentToolError,
  type Call,
  CancelledError,
  describeValue,
  errorMessage,
  goQuote,
  isJsonObject,
  type JsonObject,
  type LogLevel,
  type LogSink,
  parseArguments,
  ProgressInfo,
  type Result,
  type ToolContext,
  ValidationError,
} from '../../core';
import { causes, CONNECTION_CLOSED, connectionClosedError, httpFailure } from './errors';
import { argumentsToSend } from './exact-integers';
import { describedExcerpt, excerpt, jsonExcerpt } from './excerpts';
import { CALL_HEADER, LOG_CALL_META_KEY } from './log-routing';
import { mirrorsParamHeaders, type ParamHeader, paramHeaderValues } from './param-headers';
import { refusalOf } from './refusals';
import { REPLAY_SAFE_HEADER } from './safe-retry';
import {
  askCall,
  askHandler,
  type CallInFlight,
  type ElicitationHandler,
  type ElicitParams,
} from './elicitation';
import {
  notOffered,
  rootsFor,
  type RootsSource,
  sampleFor,
  type SamplingHandler,
} from './sampling-and-roots';
import { clientSdk } from './sdk-modules';
import { CANCEL_META_KEY, SESSION_META_KEY, SESSIONS_EXTENSION } from './session-extension';
import { STREAM_HEADER } from './stream-ends';
import { carriedTask, followTask, type TaskLine } from './tasks/follow';
import { linkedSignal, unlessAborted } from '../signals';

/** How long a call's progress token stays routable after the call returns. */
const PROGRESS_LINGER_MS = 1000;

/** How long giving up on a parked call waits for the server to hear it, at most (ms). */
const GIVE_UP_TIMEOUT_MS = 5000;

/**
 * How long after a call is given up a 2025-era server's request or log line that names no
 * call is taken to be possibly that call's (see `RemoteCalls.owner`): a server that goes
 * on with a cancelled call stops within it, or its questions go to no one.
 */
export const GIVEN_UP_MS = 60_000;

/** The most requests made of one call (the first and its answered retries), as the SDKs do. */
const MAX_REQUESTS = 10;

/** A result schema that takes a result as it came (the adapter maps it itself). */
export const RAW_RESULT: StandardSchemaV1<unknown, JsonObject> = {
  '~standard': {
    version: 1,
    vendor: 'agenttool',
    validate: (value) =>
      isJsonObject(value)
        ? { value }
        : { issues: [{ message: `the result is ${describedExcerpt(value)}, not an object` }] },
  },
};

/** How calls reach the server, as the connection set them up. */
export interface CallOptions {
  /** Questions are answered (by the call's elicitor, or the caller's handler). */
  readonly elicitation: boolean;
  /** The caller's own answerer of questions; it wins over the call's elicitor. */
  readonly elicitationHandler: ElicitationHandler | undefined;
  /** A server's sampling requests are answered (by the call's sampler, or the caller's handler). */
  readonly sampling?: boolean;
  /** The caller's own lender of a model; it wins over the call's sampler. */
  readonly samplingHandler?: SamplingHandler | undefined;
  /** Where a server's `roots/list` is answered from; undefined: it is not. */
  readonly roots?: RootsSource | undefined;
  /** A limit on each call, in milliseconds. */
  readonly timeout: number;
  /** Where a log line goes that belongs to no call with a log sink. */
  readonly onLog: LogSink | undefined;
  /** The least severe log line wanted; undefined: every line. */
  readonly logLevel: LogLevel | undefined;
  /**
   * The transport is ours over HTTP: a call's requests can be marked so that the log
   * lines on their response streams name the call (see `routingLogLines`).
   */
  readonly routesLogLines: boolean;
  /**
   * The transport is ours over Streamable HTTP: it tells when a call's response stream
   * ended for good without the answer (see `tellingStreamEnds`).
   */
  readonly tellsStreamEnds: boolean;
  /**
   * The transport writes each message as JSON text (ours: a command or a URL), so an
   * integer beyond 2^53 in a call's arguments can be sent as written.
   */
  readonly writesJsonText: boolean;
  /**
   * Opens a new session after the server said (404) it does not know the stale
   * client's 2025-era session; false when it cannot (the caller gave a transport).
   */
  readonly reinitialize?: (stale: Client) => Promise<boolean>;
}

/** What each request of a call, or a request made outside one, is sent with. */
export interface SendOptions {
  readonly signal: AbortSignal;
  readonly timeout: number;
  readonly allowInputRequired: boolean;
  readonly headers?: Record<string, string>;
}

/** MCP's log levels, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** The `_meta` key of a 2026-07-28 request's log level (the SDK's `LOG_LEVEL_META_KEY`). */
const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';

/**
 * The calls of one connection: their progress tokens, the calls in flight (a 2025-era
 * server's questions go to the sole one), the session handle a 2026-07-28 server gave,
 * and the round trips that answer a 2026-07-28 server's questions.
 */
export class RemoteCalls {
  readonly #inFlight = new Set<CallInFlight>();
  /** The calls in flight whose requests are marked, by their mark, for their log lines. */
  readonly #marked = new Map<string, CallInFlight>();
  #marks = 0;
  readonly #progress = new Map<string, (update: Result) => void>();
  #progressCounter = 0;
  #handle: string | undefined;
  /**
   * The calls given up lately (cancelled, timed out) without their server's answer, by
   * their caller, each until when its server may still be running it and ask for it: a
   * request or log line that names no call then goes to no other caller's call (see
   * {@link RemoteCalls.owner}).
   */
  #givenUp: { readonly caller: unknown; readonly until: number }[] = [];
  /** Per SDK client: aborted when the server lost its session (calls waiting in it end). */
  readonly #lost = new WeakMap<Client, AbortController>();
  /** The clients whose session the server lost, each told once. */
  readonly #lostOnce = new WeakSet<Client>();
  /** Per request waiting on its response stream, by its mark: aborted when the stream ended. */
  readonly #streams = new Map<string, AbortController>();
  #streamMarks = 0;

  constructor(
    private readonly client: () => Client,
    private readonly options: CallOptions,
    /** Aborted (with the reason) when the connection closes. */
    private readonly closing: AbortSignal,
  ) {}

  /**
   * The server no longer knows `client`'s session: the calls waiting in it end with
   * "connection lost" (their streams cannot be resumed); later calls go on. Once per
   * client.
   */
  sessionLost(client: Client): void {
    if (this.#lostOnce.has(client)) return;
    this.#lostOnce.add(client);
    this.#lost.get(client)?.abort(new Error('the server no longer knows the session (404)'));
    this.#lost.delete(client);
  }

  /**
   * The response stream of the request marked `mark` ended for good: if the request is
   * still waiting, its answer cannot come, and it fails with "connection lost".
   */
  streamEnded(mark: string): void {
    this.#streams
      .get(mark)
      ?.abort(new Error('the server ended the response stream without an answer'));
  }

  #lostSignal(client: Client): AbortSignal {
    let lost = this.#lost.get(client);
    if (lost === undefined) {
      lost = new AbortController();
      // Every request of the session listens to it (see RemoteTools' close signal).
      setMaxListeners(0, lost.signal);
      this.#lost.set(client, lost);
    }
    return lost.signal;
  }

  /** The session handle a 2026-07-28 server gave, if one did. */
  get handle(): string | undefined {
    return this.#handle;
  }

  /** Aborted (with the reason) when the connection closes. */
  get closed(): AbortSignal {
    return this.closing;
  }

  /** True when the connection answers anything a server needs: questions, the model or roots. */
  get takesInput(): boolean {
    const o = this.options;
    return o.elicitation || o.sampling === true || o.roots !== undefined;
  }

  /**
   * Counts `entry` among the calls in flight until the returned function is called, so a
   * 2025-era server's question, sampling or roots request made while it is the only one
   * goes to its context (a prompt or a resource asked for with a context).
   */
  enter(entry: CallInFlight): () => void {
    this.#inFlight.add(entry);
    return () => this.#inFlight.delete(entry);
  }

  /** The calls in flight, for a 2025-era server's questions. */
  inFlight(): CallInFlight[] {
    return [...this.#inFlight];
  }

  /**
   * The call a 2025-era server's question, sampling request or log line belongs to, by
   * its `_meta`: the call whose response stream carried it (over HTTP, which our fetch
   * marks; none once that call has ended), else the one call in flight. None when there
   * is none or several, or when another caller's call (another session or subject: a
   * composed server's clients) was given up within {@link GIVEN_UP_MS} (its server may
   * still be running it, and ask for it): MCP ties such a request to no call, and it must
   * not reach another caller's.
   */
  owner(meta: unknown): { readonly call: CallInFlight | undefined; readonly why: string } {
    const mark = isJsonObject(meta) ? meta[LOG_CALL_META_KEY] : undefined;
    if (typeof mark === 'string') {
      const call = this.#marked.get(mark);
      return { call, why: call === undefined ? 'the call it came with has ended' : '' };
    }
    const only = this.#inFlight.size === 1 ? this.#inFlight.values().next().value : undefined;
    if (only === undefined) return { call: undefined, why: `${this.#inFlight.size} in flight` };
    const now = Date.now();
    this.#givenUp = this.#givenUp.filter((given) => given.until > now);
    const caller = callerOf(only.ctx);
    if (this.#givenUp.some((given) => given.caller !== caller)) {
      return {
        call: undefined,
        why: "another caller's call given up lately may still be running on the server",
      };
    }
    return { call: only, why: '' };
  }

  /** A `notifications/progress` arrived: hand it to the call whose token it names. */
  progressed(params: {
    progressToken: unknown;
    progress: number;
    total?: number | undefined;
    message?: string | undefined;
  }): void {
    if (typeof params.progressToken !== 'string') return;
    const onUpdate = this.#progress.get(params.progressToken);
    if (onUpdate === undefined) return;
    const text = params.message ?? '';
    try {
      onUpdate({
        output: text,
        details: new ProgressInfo(params.progress, params.total ?? 0, text),
      });
    } catch {
      // A failing progress listener must not break the connection.
    }
  }

  /**
   * A `notifications/message` arrived. MCP ties a log line to no request; a line that came
   * on a call's own response stream (HTTP, marked by our fetch) goes to that call's log
   * sink, or to `onLog` when the call has none. Any other line goes to the sink of the
   * call in flight when there is exactly one and it has a sink, and to `onLog` otherwise
   * (no call, several, or one without a sink). Lines below `logLevel` are dropped,
   * whatever the server sends.
   */
  logged(params: {
    level: LogLevel;
    data?: unknown;
    logger?: string | undefined;
    _meta?: Record<string, unknown> | undefined;
  }): void {
    const wanted = this.options.logLevel;
    if (wanted !== undefined && LOG_LEVELS.indexOf(params.level) < LOG_LEVELS.indexOf(wanted)) {
      return;
    }
    const owner = this.owner(params._meta).call;
    const sink = owner?.ctx.log ?? this.options.onLog;
    try {
      sink?.(params.level, params.data, params.logger);
    } catch {
      // A failing log sink must not break the connection.
    }
  }

  /**
   * Calls `remote` with the call's arguments and resolves with the raw result. A
   * 2026-07-28 server's questions come back with the call: each is put to the call's
   * elicitor (all of one round at once) and the answers go back with the request state,
   * until the server returns the result. Over a 2026-07-28 connection that is not stdio,
   * each request carries the `Mcp-Param-*` headers of the arguments `paramHeaders`
   * declares (the tool's `x-mcp-header` properties, SEP-2243).
   */
  async call(
    remote: string,
    call: Call,
    ctx: ToolContext,
    replaySafe = false,
    paramHeaders: readonly ParamHeader[] = [],
  ): Promise<JsonObject> {
    if (this.closing.aborted) throw connectionClosedError(remote);
    if (ctx.signal.aborted) throw cancelled(remote, ctx.signal);
    // Arguments given as text are sent as written, however long their integers (as Go).
    const args =
      call.value === undefined
        ? argumentsToSend(remote, call.args, parseArguments(call.args), this.options.writesJsonText)
        : call.value;
    if (!isJsonObject(args)) {
      throw new ValidationError('', `expected object, got ${describeValue(args)}`);
    }
    const ended = new AbortController();
    const entry: CallInFlight = { ctx, ended: ended.signal };
    const token = call.onUpdate !== undefined ? `agenttool-${++this.#progressCounter}` : undefined;
    if (token !== undefined && call.onUpdate !== undefined)
      this.#progress.set(token, call.onUpdate);
    this.#inFlight.add(entry);
    // Only a call with a sink of its own needs its lines told apart from the others', and
    // any call where the server may ask: its questions go to it alone.
    const mark =
      this.options.routesLogLines && (ctx.log !== undefined || this.takesInput)
        ? String(++this.#marks)
        : undefined;
    if (mark !== undefined) this.#marked.set(mark, entry);
    const linked = linkedSignal(ctx.signal, this.closing);
    try {
      const mirrored = this.#mirrored(paramHeaders, args);
      return await this.#rounds(
        remote,
        args,
        mirrored,
        token,
        entry,
        mark,
        linked.signal,
        replaySafe,
      );
    } catch (error) {
      if (this.closing.aborted) throw connectionClosedError(remote);
      if (ctx.signal.aborted || isRequestTimeout(error)) {
        // Given up without the server's answer: it may still run the call, and ask for it.
        this.#givenUp.push({ caller: callerOf(ctx), until: Date.now() + GIVEN_UP_MS });
      }
      if (ctx.signal.aborted) throw cancelled(remote, ctx.signal);
      if (error instanceof AgentToolError) throw error;
      throw this.#failure(callWhere(remote), error);
    } finally {
      linked.dispose();
      ended.abort();
      this.#inFlight.delete(entry);
      if (mark !== undefined) this.#marked.delete(mark);
      // The token stays routable a second after the call returns, as the contract says,
      // so progress that raced the result over another stream still arrives.
      if (token !== undefined) {
        setTimeout(() => this.#progress.delete(token), PROGRESS_LINGER_MS).unref();
      }
    }
  }

  /** The `Mcp-Param-*` headers of a call with `args`, when the connection mirrors them. */
  #mirrored(declared: readonly ParamHeader[], args: JsonObject): Record<string, string> {
    if (declared.length === 0 || !mirrorsParamHeaders(this.client())) return {};
    return paramHeaderValues(declared, args);
  }

  async #rounds(
    remote: string,
    args: JsonObject,
    mirrored: Readonly<Record<string, string>>,
    token: string | undefined,
    entry: CallInFlight,
    mark: string | undefined,
    signal: AbortSignal,
    replaySafe: boolean,
  ): Promise<JsonObject> {
    let retry: { inputResponses: Record<string, unknown>; requestState?: string } | undefined;
    // A 2026-07-28 server sends a request's log lines only when the request names a level.
    const logLevel =
      this.client().getProtocolEra() === 'modern' &&
      (entry.ctx.log !== undefined || this.options.onLog !== undefined)
        ? (this.options.logLevel ?? 'debug')
        : undefined;
    // The state of a call the server holds parked for this client's answers, until a
    // request carrying it has been answered.
    let held: string | undefined;
    try {
      for (let requests = 1; ; requests++) {
        const meta: Record<string, unknown> = {};
        if (token !== undefined) meta.progressToken = token;
        if (logLevel !== undefined) meta[LOG_LEVEL_META_KEY] = logLevel;
        if (this.#handle !== undefined) meta[SESSION_META_KEY] = this.#handle;
        const request = {
          method: 'tools/call',
          params: {
            name: remote,
            arguments: args,
            ...(Object.keys(meta).length === 0 ? {} : { _meta: meta }),
            ...retry,
          },
        } as const;
        // Answers to a parked call run nothing twice: a server takes a request state once.
        // Each request carries the arguments, so each carries their Mcp-Param-* headers.
        const headers: Record<string, string> = { ...mirrored };
        if (mark !== undefined) headers[CALL_HEADER] = mark;
        // Only our own fetch (a transport made here from a URL) takes the mark off.
        if (this.options.routesLogLines && (replaySafe || retry !== undefined)) {
          headers[REPLAY_SAFE_HEADER] = '1';
        }
        const options = {
          signal,
          timeout: this.options.timeout,
          allowInputRequired: true,
          ...(Object.keys(headers).length === 0 ? {} : { headers }),
        };
        const result = await this.#request(
          callWhere(remote),
          (client, sent) => client.request(request, RAW_RESULT, sent),
          options,
        );
        this.#noteHandle(result);
        held = typeof result.requestState === 'string' ? result.requestState : undefined;
        const task = carriedTask(result);
        if (task !== undefined && this.client().getProtocolEra() !== 'modern') {
          // Only a 2026-07-28 server answers a call with a task unasked (this client
          // declares the extension); in a 2025-era session a task comes only for a call
          // that asks for one, and this client asks for none.
          throw new AgentToolError(
            'PROTOCOL',
            `mcp: call ${goQuote(remote)}: the server answered with a task, which a call in a 2025-era session gets only when it asks for one (this client does not)`,
          );
        }
        if (task !== undefined) {
          // The call is the task's now: no state is held, and giving up cancels the task.
          held = undefined;
          const line = this.#taskLine(remote, entry);
          return await followTask(remote, task, entry.ctx, line, signal, this.options.timeout);
        }
        if (result.resultType !== 'input_required') return result;
        const o = this.options;
        if (!o.elicitation && o.sampling !== true && o.roots === undefined) {
          throw new AgentToolError(
            'PROTOCOL',
            `mcp: call ${goQuote(remote)}: the server needs input the client did not give; multi round-trip handling is off (connect with elicitation, sampling or roots)`,
          );
        }
        if (requests >= MAX_REQUESTS) {
          throw new AgentToolError(
            'PROTOCOL',
            `mcp: call ${goQuote(remote)}: the server still needs input after ${MAX_REQUESTS} requests`,
          );
        }
        const inputRequests = isJsonObject(result.inputRequests) ? result.inputRequests : {};
        const answered: (readonly [string, unknown])[] = await Promise.all(
          Object.entries(inputRequests).map(
            async ([id, request]) =>
              [id, await this.answer(callWhere(remote), request, entry, signal)] as const,
          ),
        );
        retry = { inputResponses: Object.fromEntries(answered) };
        if (typeof result.requestState === 'string') retry.requestState = result.requestState;
      }
    } catch (error) {
      // A call given up while its server waits for answers is stopped there at once,
      // rather than after the server's abandon timeout.
      if (held !== undefined) void this.#giveUp(remote, args, mirrored, held);
      throw error;
    }
  }

  /**
   * Tells a 2026-07-28 agenttool server that the call parked under `state` is given up
   * (`_meta[CANCEL_META_KEY]`); bounded, and nothing is made of its answer.
   */
  async #giveUp(
    remote: string,
    args: JsonObject,
    mirrored: Readonly<Record<string, string>>,
    state: string,
  ): Promise<void> {
    // Only a server that offers the extension knows the mark; another would resume the call.
    if (!offersSessionsExtension(this.client())) return;
    const meta: Record<string, unknown> = { [CANCEL_META_KEY]: true };
    if (this.#handle !== undefined) meta[SESSION_META_KEY] = this.#handle;
    await this.client()
      .request(
        {
          method: 'tools/call',
          params: { name: remote, arguments: args, requestState: state, _meta: meta },
        },
        RAW_RESULT,
        // Whatever comes back is read by nobody: no question of it is to be answered.
        {
          timeout: GIVE_UP_TIMEOUT_MS,
          allowInputRequired: true,
          ...(Object.keys(mirrored).length === 0 ? {} : { headers: { ...mirrored } }),
        },
      )
      .catch(() => undefined);
  }

  /**
   * Sends one request of a call in the current session. When the server answers that it
   * does not know the session (404: its instance went away), or a new session replaced
   * it while the request was out, the call never ran, so it is made once more, in the
   * new session. A call waiting in a session the server lost otherwise fails with
   * "connection lost": it may have run.
   */
  async #request<T>(
    where: string,
    send: (client: Client, options: SendOptions) => Promise<T>,
    options: SendOptions,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = this.client();
      const lost = this.#lostSignal(client);
      const stream = new AbortController();
      const linked = linkedSignal(options.signal, lost, stream.signal);
      let sent = options;
      let mark: string | undefined;
      if (this.options.tellsStreamEnds) {
        mark = String(++this.#streamMarks);
        this.#streams.set(mark, stream);
        sent = { ...options, headers: { ...options.headers, [STREAM_HEADER]: mark } };
      }
      try {
        return await send(client, { ...sent, signal: linked.signal });
      } catch (error) {
        if (options.signal.aborted) throw error;
        // The stream ended without the answer: the call may have run, so it is not made again.
        if (stream.signal.aborted) throw this.#failure(where, stream.signal.reason);
        // Its own POST answered 404. The SDK reports that to the connection before the
        // request rejects; the session's other calls are marked lost once a new one is open.
        const stale = sessionNotFound(error) || (!lost.aborted && client !== this.client());
        if (!stale) throw lost.aborted ? this.#failure(where, lost.reason) : error;
        if (attempt > 1) throw error;
        const reopened = await unlessAborted(
          this.options.reinitialize?.(client) ?? Promise.resolve(false),
          options.signal,
        );
        if (reopened !== true) throw error;
      } finally {
        linked.dispose();
        if (mark !== undefined) this.#streams.delete(mark);
      }
    }
  }

  /**
   * Sends one request that is not a tool call (a prompt, a resource, a listing, a
   * completion), as a call's requests are sent: in the current session (made once more
   * in a new one when the server lost it before the request ran), bounded by the
   * connection's close, `signal` and `timeout` (the `callTimeout` by default). Failures
   * read `<where>: <reason>` as a call's do; an abort of `signal` reads `<where>:
   * context canceled`.
   */
  async send<T>(
    where: string,
    send: (client: Client, options: SendOptions) => Promise<T>,
    options: { readonly signal?: AbortSignal | undefined; readonly timeout?: number | undefined },
  ): Promise<T> {
    if (this.closing.aborted)
      throw new AgentToolError('CONNECTION', `${where}: ${CONNECTION_CLOSED}`);
    const signal = options.signal;
    if (signal?.aborted === true) throw cancelledAt(where, signal);
    const linked =
      signal === undefined ? linkedSignal(this.closing) : linkedSignal(signal, this.closing);
    try {
      return await this.#request(where, send, {
        signal: linked.signal,
        timeout: options.timeout ?? this.options.timeout,
        allowInputRequired: true,
      });
    } catch (error) {
      if (this.closing.aborted) {
        throw new AgentToolError('CONNECTION', `${where}: ${CONNECTION_CLOSED}`, { cause: error });
      }
      // Not closing, so the caller's own signal ended it.
      if (linked.signal.aborted && signal !== undefined) throw cancelledAt(where, signal);
      if (error instanceof AgentToolError) throw error;
      throw this.#failure(where, error);
    } finally {
      linked.dispose();
    }
  }

  /** How a task the server answered a call with is followed on this connection. */
  #taskLine(remote: string, entry: CallInFlight): TaskLine {
    return {
      request: (method, params, signal) =>
        this.client().request({ method, params } as never, RAW_RESULT, {
          signal,
          timeout: this.options.timeout,
        }),
      // A question to a client that takes none is declined, as a 2025-era server hears;
      // a model's turn or the roots go as they would in a call's round.
      answer: (request, signal) => {
        if (!this.options.elicitation && isJsonObject(request)) {
          if (request.method === 'elicitation/create') return Promise.resolve({ action: 'cancel' });
        }
        return this.answer(callWhere(remote), request, entry, signal);
      },
    };
  }

  /**
   * The answer to one request a 2026-07-28 server sent back with a request (a call, a
   * prompt, a resource): a question (`elicitation/create`), a turn of a model
   * (`sampling/createMessage`) or the roots (`roots/list`), each answered as the options
   * say, by the caller's handler or the context of `entry`. Without an entry (a request
   * made with no context), a question with no handler is answered `cancel`, and a turn
   * of a model or the roots with no handler or list fails naming the option to give.
   */
  async answer(
    where: string,
    request: unknown,
    entry: CallInFlight | undefined,
    signal: AbortSignal,
  ): Promise<unknown> {
    const method = isJsonObject(request) ? request.method : undefined;
    const params = isJsonObject(request) ? request.params : undefined;
    const o = this.options;
    switch (method) {
      case 'elicitation/create': {
        if (!o.elicitation) break;
        const own = o.elicitationHandler;
        if (own !== undefined) return askHandler(own, params as ElicitParams, signal);
        if (entry === undefined) return { action: 'cancel' };
        return askCall(entry, params as ElicitParams, signal);
      }
      case 'sampling/createMessage':
        if (o.sampling !== true || (entry === undefined && o.samplingHandler === undefined)) break;
        return sampleFor(entry, o.samplingHandler, params, signal);
      case 'roots/list':
        if (o.roots === undefined || (entry === undefined && o.roots.kind === 'call')) break;
        return rootsFor(entry, o.roots, signal);
    }
    throw notOffered(where, method, request, entry === undefined);
  }

  /**
   * A call's failure, saying what happened: a protocol error, an answer that does not
   * read as one, no answer in time, a lost connection. What the server said is cut at
   * 8 KiB, what it sent quoted cut short (see excerpts.ts).
   */
  #failure(where: string, error: unknown): AgentToolError {
    const sdk = clientSdk();
    if (sdk.ProtocolError.isInstance(error)) {
      if (error instanceof sdk.MissingRequiredClientCapabilityError) {
        return new AgentToolError(
          'PROTOCOL',
          `${where}: the server needs a client capability this connection does not declare, ${jsonExcerpt(error.requiredCapabilities)} (connectMcp's elicitation, sampling and roots options declare them): ${excerpt(errorMessage(error))}`,
          { cause: error },
        );
      }
      return new AgentToolError('PROTOCOL', `${where}: ${excerpt(errorMessage(error))}`, {
        cause: error,
      });
    }
    // The server refused the request before it ran (a share or a limit): it is busy, not
    // gone, so the connection stands (RATE_LIMITED, not CONNECTION).
    const refusal = refusalOf(where, error, where.startsWith('mcp: call ') ? 'call' : 'request');
    if (refusal !== undefined) return refusal;
    const http = httpFailure(error);
    if (http !== undefined)
      return new AgentToolError(http.code, `${where}: ${http.message}`, { cause: error });
    if (
      error instanceof sdk.SdkError &&
      (error.code === sdk.SdkErrorCode.InvalidResult ||
        error.code === sdk.SdkErrorCode.UnsupportedResultType)
    ) {
      // The server answered, with something that is not the answer: the connection is fine.
      return new AgentToolError(
        'PROTOCOL',
        `${where}: the server's answer does not read as one: ${excerpt(errorMessage(error))}`,
        { cause: error },
      );
    }
    if (isRequestTimeout(error)) {
      return new AgentToolError(
        'CONNECTION',
        `${where}: no answer within ${this.options.timeout} ms (the callTimeout option)`,
        { cause: error },
      );
    }
    return new AgentToolError('CONNECTION', `${where}: connection lost: ${causes(error)}`, {
      cause: error,
    });
  }

  // A 2026-07-28 server hands its session handle back with results: carry it on.
  #noteHandle(result: JsonObject): void {
    const meta = result._meta;
    if (!isJsonObject(meta)) return;
    const handle = meta[SESSION_META_KEY];
    if (typeof handle === 'string' && handle !== '') this.#handle = handle;
  }
}

/**
 * True when the server offers agenttool's sessions extension: it ends a session on
 * `SESSION_END_METHOD` and stops a parked call given up with `CANCEL_META_KEY`.
 */
export function offersSessionsExtension(client: Client): boolean {
  const extensions = client.getServerCapabilities()?.extensions;
  return isJsonObject(extensions) && extensions[SESSIONS_EXTENSION] !== undefined;
}

/** True for the HTTP 404 a server answers a request of a 2025-era session it does not know. */
function sessionNotFound(error: unknown): boolean {
  const sdk = clientSdk();
  return error instanceof sdk.SdkHttpError && error.status === 404;
}

/** How a call's failures begin: `mcp: call "<remote>"`. */
function callWhere(remote: string): string {
  return `mcp: call ${goQuote(remote)}`;
}

/** A request its caller's signal ended: `<where>: context canceled` (or `deadline exceeded`). */
export function cancelledAt(where: string, signal: AbortSignal): CancelledError {
  const reason: unknown = signal.reason;
  const timedOut =
    typeof reason === 'object' &&
    reason !== null &&
    (reason as { name?: unknown }).name === 'TimeoutError';
  return new CancelledError(
    `${where}: ${timedOut ? 'context deadline exceeded' : 'context canceled'}`,
    {
      cause: reason,
    },
  );
}

/**
 * A call its context ended: `mcp: call "<remote>": context canceled` (`context deadline
 * exceeded` when the signal timed out), as the Go binding's client reads (the Go SDK's
 * `CallTool` returns `ctx.Err()`). The signal's reason stays on `cause`.
 */
function cancelled(remote: string, signal: AbortSignal): CancelledError {
  return cancelledAt(callWhere(remote), signal);
}

/** Whether `error` is the SDK's timeout of a request (the `callTimeout` option). */
function isRequestTimeout(error: unknown): boolean {
  const sdk = clientSdk();
  return error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout;
}

/**
 * Who a call is for, as far as a connection can tell callers apart: its session (a
 * composed server's client), else its authenticated subject; undefined for a caller
 * that is neither, all such calls being one caller's.
 */
function callerOf(ctx: ToolContext): unknown {
  return ctx.session ?? ctx.auth?.subject;
}
