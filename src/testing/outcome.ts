import {
  CancelledError,
  type ContentPart,
  type Elicitation,
  errorMessage,
  type JsonObject,
  type LogLevel,
  type Output,
  outputText,
  type Result,
  recordOf,
  type ToolRecord,
} from 'agenttool';

/** A log line a tool sent during its call (`ctx.logMessage`), as the client received it. */
export interface LogLine {
  /** MCP's severity, `debug` to `emergency`. */
  readonly level: LogLevel;
  /** What the tool logged: any JSON value. */
  readonly data: unknown;
}

/**
 * One call as the model and its host see it, through an MCP client: a test asserts on
 * these rather than on the protocol. A failed call is an outcome too (its `error` set),
 * as a host hands a failure to the model; only a test's own mistake throws (an unknown
 * tool, a broken answer script, a closed client).
 */
export interface CallOutcome {
  /** The tool's name, as called. */
  readonly tool: string;
  /**
   * What the model reads: the output's text (the text, or the text of its textual
   * parts), or `Error: <message>` when the call failed, the prefix applied once.
   */
  readonly text: string;
  /** The output as the client maps it: text, or Open Responses content parts. On failure, {@link CallOutcome.text}. */
  readonly output: Output;
  /** The output's content parts (`input_image`, `input_file`, text as `text`); empty for text. */
  readonly parts: readonly ContentPart[];
  /** The structured result (MCP `structuredContent`), when the tool declared an output schema. */
  readonly structured: JsonObject | undefined;
  /**
   * The failure's message, once, without the `Error:` prefix: a tool's throw, an
   * argument the server refused (`invalid arguments: <path>: <msg>`), a cancellation.
   * Undefined when the call succeeded.
   */
  readonly error: string | undefined;
  /** What the client threw for a failed call (a `RemoteToolError` for the tool's own), else undefined. */
  readonly cause: unknown;
  /** True when the call was cancelled (its signal, or {@link RunningCall.cancel}). */
  readonly cancelled: boolean;
  /**
   * The records of the call, in order: each the tool wrote while it ran (`ctx.record`,
   * an injected `CallRecorder`), then the record of its result's details, which crosses
   * MCP under the record `_meta` key ({@link CallOutcome.record}).
   */
  readonly records: readonly ToolRecord[];
  /** The record of the result's details, as it crossed under the record `_meta` key. */
  readonly record: ToolRecord | undefined;
  /** The text of each progress update, in order. */
  readonly progress: readonly string[];
  /** The questions the tool asked, in order. */
  readonly questions: readonly Elicitation[];
  /** The log lines the tool sent that the client tied to this call. */
  readonly logs: readonly LogLine[];
}

/** What a call gathered besides its result: for `succeeded` and `failed`. */
export interface Gathered {
  readonly tool: string;
  readonly written: readonly ToolRecord[];
  readonly progress: readonly string[];
  readonly questions: readonly Elicitation[];
  readonly logs: readonly LogLine[];
}

/** The outcome of a call that returned a result. */
export function succeeded(result: Result, gathered: Gathered): CallOutcome {
  const record = recordOf(result.details);
  const output = result.output;
  return {
    tool: gathered.tool,
    text: outputText(output),
    output,
    parts: typeof output === 'string' ? [] : [...output],
    structured: result.structured,
    error: undefined,
    cause: undefined,
    cancelled: false,
    records: record === undefined ? [...gathered.written] : [...gathered.written, record],
    record,
    progress: [...gathered.progress],
    questions: [...gathered.questions],
    logs: [...gathered.logs],
  };
}

/** The outcome of a call that failed, as the model reads it (`Error: <message>`). */
export function failed(thrown: unknown, cancelled: boolean, gathered: Gathered): CallOutcome {
  const message = errorMessage(thrown);
  const details = (thrown as { details?: unknown } | null)?.details;
  // A failed result's details are never the model's, but their record still crosses.
  const record = safeRecordOf(details);
  const text = `Error: ${message}`;
  return {
    tool: gathered.tool,
    text,
    output: text,
    parts: [],
    structured: undefined,
    error: message,
    cause: thrown,
    cancelled: cancelled || thrown instanceof CancelledError,
    records: record === undefined ? [...gathered.written] : [...gathered.written, record],
    record,
    progress: [...gathered.progress],
    questions: [...gathered.questions],
    logs: [...gathered.logs],
  };
}

function safeRecordOf(details: unknown): ToolRecord | undefined {
  try {
    return recordOf(details);
  } catch {
    return undefined;
  }
}
