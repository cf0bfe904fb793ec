import { type ContentPart, isContentPart, type Output } from './content';
import { AgentToolError, errorMessage } from './errors';
import { goMarshalText } from './go-json';
import {
  DEPTH_EXCEEDED,
  depthExceeded,
  isJsonObject,
  type JsonObject,
  nonFiniteProblem,
  textDepthExceeded,
} from './json';

/**
 * What a call produced. `output` is what the model sees; `details` never reach the
 * model (a host, a recorder or a UI may read them); `terminate` asks the loop to stop,
 * honoured only when every result of the batch sets it; `structured` is the result as
 * a JSON object, for a tool that declares an output schema (MCP's `structuredContent`).
 */
export interface Result {
  readonly output: Output;
  readonly details?: unknown;
  readonly terminate?: boolean;
  /**
   * The structured result: a JSON object that a tool's `outputSchema` describes. An MCP
   * server sends it as `structuredContent` (checked against the output schema) beside
   * `output` as content; an MCP client sets it from the server's `structuredContent`.
   * The model reads `output`, never this member by itself.
   */
  readonly structured?: JsonObject;
}

/** A result whose output is the text `s`. */
export function text(s: string): Result {
  return { output: s };
}

/** A result whose output is the given content parts. */
export function parts(...contentParts: ContentPart[]): Result {
  return { output: contentParts };
}

/** `Error: <message>`: the text the model sees for a failed call, applied once. */
export function errorResult(error: unknown): Result {
  return { output: `Error: ${errorMessage(error)}` };
}

/**
 * Progress as the details of a progress update: MCP's `{progress, total, message}`.
 * A `total` of 0 means unknown. Not recordable.
 */
export class ProgressInfo {
  constructor(
    readonly progress: number,
    readonly total = 0,
    readonly message = '',
  ) {}
}

const RESULT_KEYS: ReadonlySet<string> = new Set(['output', 'details', 'terminate', 'structured']);

/**
 * True for a value shaped as a {@link Result}: a plain object with an `output` that is
 * a string or an array of content parts, a `structured` member (if any) that is a JSON
 * object, and no members besides `details`, `terminate` and `structured`.
 */
export function isResult(value: unknown): value is Result {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { output, structured } = value as { output?: unknown; structured?: unknown };
  if (typeof output !== 'string' && !isPartsArray(output)) return false;
  if (structured !== undefined && !isJsonObject(structured)) return false;
  for (const key of Object.keys(value)) if (!RESULT_KEYS.has(key)) return false;
  return true;
}

function isPartsArray(value: unknown): value is ContentPart[] {
  return Array.isArray(value) && value.every(isContentPart);
}

/**
 * The output conversion a typed tool applies to what its function returned:
 * a {@link Result} as is; a string as text; a non-empty array of content parts as parts;
 * `undefined`/`null` as the empty text; anything else as its JSON text, in the bytes
 * the Go binding's `Output` (`json.Marshal`) writes: `<`, `>`, `&`, U+2028 and U+2029
 * escaped (`\u003c`, ...). A value JSON cannot encode fails with
 * `encode result: <reason>`: one holding NaN or an infinite number with Go's
 * `encode result: json: unsupported value: NaN` (`+Inf`, `-Inf`), one nested deeper
 * than `MAX_JSON_DEPTH` with `encode result: json: exceeded max depth of 1000`.
 */
export function toResult(value: unknown): Result {
  if (value === undefined || value === null) return { output: '' };
  if (typeof value === 'string') return { output: value };
  if (Array.isArray(value) && value.length > 0 && isPartsArray(value)) return { output: value };
  if (isResult(value)) return value;
  return { output: goMarshalText(jsonText(value)) };
}

/**
 * A structured result: `structured` is `value` as JSON (a plain object: a class
 * instance's own enumerable fields, dates as their ISO text, as `JSON.stringify` writes
 * them), and `output` is `text` when given, else that JSON in the bytes Go's
 * `json.Marshal` writes, which is what MCP asks a tool with structured content to send
 * as text too. A value whose JSON is not an object fails with `encode result: a
 * structured result is a JSON object, got <kind>`; one JSON cannot encode fails as
 * {@link toResult} does.
 */
export function structuredResult(value: object, text?: string): Result {
  const json = jsonText(value);
  const structured: unknown = JSON.parse(json);
  if (!isJsonObject(structured)) {
    const kind = Array.isArray(structured)
      ? 'array'
      : structured === null
        ? 'null'
        : typeof structured;
    throw new AgentToolError(
      'INVALID_OUTPUT',
      `encode result: a structured result is a JSON object, got ${kind}`,
    );
  }
  return { output: text ?? goMarshalText(json), structured };
}

/** `value` as JSON text, or the contract's `encode result:` error. */
function jsonText(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    // JSON.stringify recurses: a value nested too deeply overflows the stack.
    const reason =
      error instanceof RangeError && depthExceeded(value) !== undefined
        ? `json: ${DEPTH_EXCEEDED}`
        : errorMessage(error);
    throw new AgentToolError('INVALID_OUTPUT', `encode result: ${reason}`, { cause: error });
  }
  if (json === undefined) {
    throw new AgentToolError('INVALID_OUTPUT', `encode result: ${typeof value} is not JSON`);
  }
  if (textDepthExceeded(json) !== undefined) {
    throw new AgentToolError('INVALID_OUTPUT', `encode result: json: ${DEPTH_EXCEEDED}`);
  }
  // JSON.stringify writes NaN and ±Infinity as null, where Go's json.Marshal fails; only
  // text with a null in it can hide one, so only then is the value walked again.
  if (json.includes('null')) refuseNonFinite(value);
  return json;
}

/** Throws Go's `encode result: json: unsupported value: NaN` (`+Inf`, `-Inf`), if `value` has one. */
function refuseNonFinite(value: unknown): void {
  const problem = nonFiniteProblem(value);
  if (problem !== undefined) {
    throw new AgentToolError('INVALID_OUTPUT', `encode result: ${problem}`);
  }
}
