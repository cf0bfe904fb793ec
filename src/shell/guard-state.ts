/**
 * What a repository guard knows (see repository-guard.ts), as written to its record on
 * disk for the check made after its process is killed outright (guard-after-exit.ts).
 */
export interface GuardState {
  readonly version: 1;
  /** The writable folders it looks in (absolute). */
  readonly roots: readonly string[];
  readonly maxDirectories: number;
  /** When the record was made (ms since the epoch, set back by its margin). */
  readonly recordedAt: number;
  /** What each git directory held at the record, or `unread`. */
  readonly baseline: readonly (readonly [string, readonly string[] | 'unread'])[];
  /** What the sandbox kept read-only, by real path. */
  readonly mounted: readonly string[];
  /** The agents' settings one level down at the record: path, identity. */
  readonly settings: readonly (readonly [string, string])[];
}

/** `text` read as a {@link GuardState}; throws, saying what is wrong, when it is not one. */
export function parseGuardState(text: string): GuardState {
  const value: unknown = JSON.parse(text);
  const fail = (what: string): never => {
    throw new Error(`not a guard record: ${what}`);
  };
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const state = value as Record<string, unknown>;
  if (state['version'] !== 1) fail('version is not 1');
  const strings = (field: string): readonly string[] => {
    const list = state[field];
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
      return fail(`${field} is not a list of strings`);
    }
    return list;
  };
  const pairs = <T>(field: string, second: (item: unknown) => item is T): [string, T][] => {
    const list = state[field];
    const pair = (item: unknown): boolean =>
      Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && second(item[1]);
    if (!Array.isArray(list) || !list.every(pair)) return fail(`${field} is not a list of pairs`);
    return list as [string, T][];
  };
  const number = (field: string): number => {
    const item = state[field];
    return typeof item === 'number' && Number.isFinite(item)
      ? item
      : fail(`${field} is not a number`);
  };
  const isString = (item: unknown): item is string => typeof item === 'string';
  const isItems = (item: unknown): item is string[] | 'unread' =>
    item === 'unread' || (Array.isArray(item) && item.every(isString));
  return {
    version: 1,
    roots: strings('roots'),
    maxDirectories: number('maxDirectories'),
    recordedAt: number('recordedAt'),
    baseline: pairs('baseline', isItems),
    mounted: strings('mounted'),
    settings: pairs('settings', isString),
  };
}
