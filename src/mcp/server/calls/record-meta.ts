import { errorMessage, recordOf } from '../../../core';

/**
 * The `_meta` key under which a served call's record travels, on success and error
 * results alike: `{"ns": "<namespace>", "data": "<JSON text>"}`, or `{"error": "<why>"}`
 * when the record cannot be built. The same string as the Go binding's `RecordMetaKey`.
 */
export const RECORD_META_KEY = 'io.github.christopherdavenport.agenttool/record';

/** What travels under {@link RECORD_META_KEY}. */
export type RecordMeta =
  { readonly ns: string; readonly data: string } | { readonly error: string };

/**
 * The `_meta` member for a result's details: undefined when the details are not
 * recordable; the record when they are; `{error}` when building the record failed (the
 * call still succeeds).
 */
export function recordMeta(details: unknown): { [RECORD_META_KEY]: RecordMeta } | undefined {
  try {
    const record = recordOf(details);
    if (record === undefined) return undefined;
    return { [RECORD_META_KEY]: { ns: record.ns, data: record.data } };
  } catch (error) {
    return { [RECORD_META_KEY]: { error: errorMessage(error) } };
  }
}
