import { AgentToolError, errorMessage } from './errors';
import { goCompact, goMarshalText } from './go-json';
import { DEPTH_EXCEEDED, depthExceeded, nonFiniteProblem, textDepthExceeded } from './json';

/**
 * A details value meant to outlive the run. `recordNS()` names its namespace,
 * `"owner:kind"` by convention, never empty; its data is the value's JSON as
 * `JSON.stringify` writes it (so `toJSON` shapes it, as anywhere else), in the bytes
 * Go's `json.Marshal` writes.
 */
export interface Recordable {
  recordNS(): string;
}

/** One record: a namespace and the JSON text of the data. */
export interface ToolRecord {
  readonly ns: string;
  /** The data as JSON text, kept byte for byte. */
  readonly data: string;
}

/** True for a value with a `recordNS()` method. */
export function isRecordable(value: unknown): value is Recordable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { recordNS?: unknown }).recordNS === 'function'
  );
}

/**
 * The record a details value makes: `undefined` when it is not {@link Recordable}
 * (progress info, plain values, live handles); otherwise its namespace and JSON, in the
 * bytes the Go binding's `RecordOf` (`json.Marshal`) writes for the same value, so a
 * record is the same bytes from either binding: `<`, `>`, `&`, U+2028 and U+2029
 * escaped as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`. A value holding JSON
 * text it passes on as is (a record that crossed MCP) hands it over with `rawJson()`;
 * that text is checked and compacted as Go compacts a `MarshalJSON` result, its key
 * order and numbers kept. Throws `agenttool: record <type>: empty namespace` for an
 * empty namespace, `agenttool: record <ns>: <reason>` when the value cannot be written
 * as JSON, and `agenttool: record <ns>: json: exceeded max depth of 1000` for data
 * nested deeper than `MAX_JSON_DEPTH`.
 */
export function recordOf(details: unknown): ToolRecord | undefined {
  if (!isRecordable(details)) return undefined;
  const ns = details.recordNS();
  if (typeof ns !== 'string' || ns === '') {
    throw new AgentToolError(
      'INVALID_RECORD',
      `agenttool: record ${typeName(details)}: empty namespace`,
    );
  }
  const raw = (details as { rawJson?: unknown }).rawJson;
  const data =
    typeof raw === 'function'
      ? rawRecordData(ns, () => String((raw as () => unknown).call(details)))
      : recordData(ns, details);
  return { ns, data };
}

function recordData(ns: string, details: object): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(details);
  } catch (error) {
    // JSON.stringify recurses: data nested too deeply overflows the stack.
    if (error instanceof RangeError && depthExceeded(details) !== undefined) {
      throw tooDeep(ns, error);
    }
    throw new AgentToolError('INVALID_RECORD', `agenttool: record ${ns}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (json === undefined) {
    throw new AgentToolError(
      'INVALID_RECORD',
      `agenttool: record ${ns}: not representable as JSON`,
    );
  }
  if (textDepthExceeded(json) !== undefined) throw tooDeep(ns);
  // JSON.stringify writes NaN and infinities as null; Go's json.Marshal refuses them.
  const problem = json.includes('null') ? nonFiniteProblem(details) : undefined;
  if (problem !== undefined) {
    throw new AgentToolError('INVALID_RECORD', `agenttool: record ${ns}: ${problem}`);
  }
  return goMarshalText(json);
}

function rawRecordData(ns: string, rawJson: () => string): string {
  let text: string;
  try {
    text = rawJson();
  } catch (error) {
    throw new AgentToolError('INVALID_RECORD', `agenttool: record ${ns}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const compact = goCompact(text);
  if (!compact.ok) {
    throw new AgentToolError(
      'INVALID_RECORD',
      `agenttool: record ${ns}: json: error calling rawJson: ${compact.message}`,
    );
  }
  return compact.text;
}

function tooDeep(ns: string, cause?: unknown): AgentToolError {
  return new AgentToolError(
    'INVALID_RECORD',
    `agenttool: record ${ns}: json: ${DEPTH_EXCEEDED}`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * A recordable value from a namespace and plain data: `recordable('shell:process-group',
 * { pgid })` records `{"pgid":…}` under that namespace.
 */
export function recordable<T>(ns: string, data: T): Recordable & { readonly data: T } {
  return {
    data,
    recordNS: () => ns,
    toJSON: () => data,
  } as Recordable & { readonly data: T };
}

function typeName(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}
