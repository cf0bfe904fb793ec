import { AgentToolError, errorMessage } from './errors';

/**
 * A details value meant to outlive the run. `recordNS()` names its namespace,
 * `"owner:kind"` by convention, never empty; its data is the value's JSON as
 * `JSON.stringify` writes it (so `toJSON` shapes it, as anywhere else).
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
 * (progress info, plain values, live handles); otherwise its namespace and JSON (the
 * text its `rawJson()` returns, when it has that method, else `JSON.stringify`).
 * Throws `agenttool: record <type>: empty namespace` for an empty namespace and
 * `agenttool: record <ns>: <reason>` when the value cannot be written as JSON.
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
  let data: string | undefined;
  try {
    // A value holding JSON text it must pass on byte for byte (a record that crossed
    // MCP) says so with rawJson(); re-serialising would round big integers.
    const raw = (details as { rawJson?: unknown }).rawJson;
    data =
      typeof raw === 'function'
        ? String((raw as () => unknown).call(details))
        : JSON.stringify(details);
  } catch (error) {
    throw new AgentToolError('INVALID_RECORD', `agenttool: record ${ns}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (data === undefined) {
    throw new AgentToolError(
      'INVALID_RECORD',
      `agenttool: record ${ns}: not representable as JSON`,
    );
  }
  return { ns, data };
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
