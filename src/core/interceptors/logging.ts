import { AgentToolError, errorMessage, toolFailure } from '../errors';
import { type Result } from '../result';
import { activeTraceIds } from '../telemetry';
import { type CallHandler, type Interceptor, type ToolExecutionContext } from './chain';
import { optionalFunction } from './options';

/**
 * One call as {@link LoggingInterceptor} logs it, once it has ended: field names in
 * snake case, as OpenTelemetry's log data model names `trace_id` and `span_id`. The
 * call's arguments and result are never logged (they may carry secrets).
 */
export interface CallLogEntry {
  /** When the call ended (ISO 8601). */
  readonly time: string;
  /** `info` for a call that succeeded, `error` for one that failed. */
  readonly level: 'info' | 'error';
  /** What is logged: a tool call. */
  readonly event: 'tool_call';
  /** The tool's name. */
  readonly tool: string;
  /** The call's id (`mcp_<n>` for a served call, the job's call id in a batch). */
  readonly call_id: string;
  /** `ok` when the call gave a result, `error` when it failed (the model read `Error: ...`). */
  readonly outcome: 'ok' | 'error';
  /** How long the rest of the chain and the tool took, in milliseconds. */
  readonly duration_ms: number;
  /** Why the call failed: the message the model reads after `Error: `. */
  readonly error?: string;
  /** The failure's `AgentToolError` code, when it has one (`RATE_LIMITED`, `PANIC`, ...). */
  readonly error_code?: string;
  /** The verified caller (`ctx.auth.subject`), when the call carries credentials. */
  readonly subject?: string;
  /** The trace the call ran in (32 hex digits), when OpenTelemetry traces it. */
  readonly trace_id?: string;
  /** The span active when the call began (16 hex digits), when OpenTelemetry traces it. */
  readonly span_id?: string;
}

/**
 * Where {@link LoggingInterceptor} writes, and the token an app provides one under
 * (`{ provide: CallLogSink, useValue: ... }`, or a class extending it): an app's
 * logging interceptor finds it as its module sees it. A sink that throws (or rejects)
 * fails a call that had succeeded, as a recorder's failure does: a log that cannot be
 * written is not skipped silently; a call that failed keeps its own error.
 */
export abstract class CallLogSink {
  /** Writes one entry; the call waits for the promise, when it returns one. */
  abstract write(entry: CallLogEntry): void | Promise<void>;
}

/** What {@link LoggingInterceptor} takes. */
export interface LoggingOptions {
  /**
   * Where the entries go: a sink, or a function of the entry. By default the app's
   * `CallLogSink` provider when there is one, else one JSON line per call on stderr
   * (never stdout, which a stdio server speaks MCP on).
   */
  readonly sink?: CallLogSink | ((entry: CallLogEntry) => void | Promise<void>) | undefined;
}

/** The sink of last resort: one JSON line per entry on stderr. */
const STDERR_SINK: CallLogSink = {
  write: (entry) => void process.stderr.write(`${JSON.stringify(entry)}\n`),
};

/**
 * Logs each call once it has ended, as one structured {@link CallLogEntry}: the tool, the
 * call's id, how it ended and how long it took, who made it (the verified subject; never
 * a session id, which may stand for the session), and the trace it ran in
 * (the active OpenTelemetry span, as `agenttool`'s other log lines carry it). It sees
 * what the interceptors after it do (a refusal by a rate limit, a cached answer) as
 * the call's outcome.
 */
export class LoggingInterceptor implements Interceptor {
  readonly #sink: CallLogSink | undefined;

  constructor(options: LoggingOptions = {}) {
    const sink = options?.sink;
    if (typeof sink === 'function') {
      const write = optionalFunction<(entry: CallLogEntry) => void>(
        'LoggingInterceptor',
        'sink',
        sink,
      )!;
      this.#sink = { write };
    } else if (sink === undefined || typeof (sink as Partial<CallLogSink>).write === 'function') {
      this.#sink = sink;
    } else {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        'LoggingInterceptor: sink must be a CallLogSink (an object with write(entry)) or a function of the entry',
      );
    }
  }

  /** Runs the rest, then writes how the call ended. */
  async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
    const ids = activeTraceIds();
    const started = performance.now();
    let result: Result;
    try {
      result = await next.handle();
    } catch (error) {
      await this.#write(context, entry(context, started, ids, { error })).catch(() => undefined);
      throw error;
    }
    await this.#write(context, entry(context, started, ids, undefined));
    return result;
  }

  async #write(context: ToolExecutionContext, line: CallLogEntry): Promise<void> {
    const sink =
      this.#sink ?? (await context.resolve(CallLogSink, { optional: true })) ?? STDERR_SINK;
    await sink.write(line);
  }
}

function entry(
  context: ToolExecutionContext,
  started: number,
  ids: { readonly traceId: string; readonly spanId: string } | undefined,
  thrown: { readonly error: unknown } | undefined,
): CallLogEntry {
  const failed = thrown !== undefined;
  // As the model will read it: a programming fault as the tool's panic.
  const failure = failed ? toolFailure(context.tool.name, thrown.error) : undefined;
  const code = failure instanceof AgentToolError ? failure.code : undefined;
  const auth = context.ctx.auth;
  return {
    time: new Date().toISOString(),
    level: failed ? 'error' : 'info',
    event: 'tool_call',
    tool: context.tool.name,
    call_id: context.call.id,
    outcome: failed ? 'error' : 'ok',
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    ...(failure === undefined ? {} : { error: errorMessage(failure) }),
    ...(code === undefined ? {} : { error_code: code }),
    ...(auth === undefined ? {} : { subject: auth.subject }),
    ...(ids === undefined ? {} : { trace_id: ids.traceId, span_id: ids.spanId }),
  };
}
