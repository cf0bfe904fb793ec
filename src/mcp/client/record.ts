import { isJsonObject, type Recordable } from '../../core';

/**
 * The `_meta` key under which a served tool's record crosses MCP, as
 * `{"ns": "<namespace>", "data": "<the data's JSON, as a string>"}`. The same string as
 * the Go binding's `RecordMetaKey`, so records cross between bindings.
 */
export const RECORD_META_KEY = 'io.github.christopherdavenport.agenttool/record';

/**
 * The details of a remote call whose result carried a record under
 * {@link RECORD_META_KEY}: the record's namespace, its data exactly as the server wrote
 * it, and the raw result.
 *
 * `data` (and {@link RemoteRecord.rawJson}) keep the bytes verbatim: key order,
 * whitespace and integers beyond 2^53 survive. `toJSON` parses them, so anything that
 * re-serialises through `JSON.stringify` (including core `recordOf`) gets JSON with the
 * same meaning, but big integers rounded to doubles; read `rawJson()` where bytes matter.
 */
export class RemoteRecord implements Recordable {
  constructor(
    readonly ns: string,
    /** The record's data as JSON text, exactly as it crossed; "" reads as `null`. */
    readonly data: string,
    /** The raw `tools/call` result the record came with. */
    readonly result: unknown,
  ) {}

  recordNS(): string {
    return this.ns;
  }

  /** The data's JSON text, byte for byte as the server sent it (`null` when empty). */
  rawJson(): string {
    return this.data === '' ? 'null' : this.data;
  }

  toJSON(): unknown {
    return JSON.parse(this.rawJson()) as unknown;
  }
}

/**
 * The details of a raw result: a {@link RemoteRecord} when its `_meta` carries a well
 * formed record (a non-empty string `ns` and a `data` string holding valid JSON), else
 * the raw result itself.
 */
export function detailsOf(result: Record<string, unknown>): unknown {
  const meta = result['_meta'];
  if (!isJsonObject(meta)) return result;
  const entry = meta[RECORD_META_KEY];
  if (!isJsonObject(entry)) return result;
  const { ns, data } = entry;
  if (typeof ns !== 'string' || ns === '' || typeof data !== 'string') return result;
  try {
    JSON.parse(data);
  } catch {
    return result;
  }
  return new RemoteRecord(ns, data, result);
}
