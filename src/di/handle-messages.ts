// What a caller is told when the handles of a kind leave no room for one more.

/** What of a handle kind (see HandleKind) the messages name. */
interface KindNamed {
  readonly argument: string;
  readonly holds: string;
  readonly maxPerCaller: number;
}

/**
 * Why `quota`, holding its most of `kind` (`held.count`, `held.handles` of them by
 * handle, `held.minting` of those for calls not answered yet, the rest its lasting
 * sessions'), none of them idle to take back, gets no new one, and what would make room.
 */
export function callerFull(
  kind: KindNamed,
  quota: string,
  held: { readonly count: number; readonly handles: number; readonly minting: number },
): string {
  const { count, handles, minting } = held;
  const sessions = count - handles;
  // Idle ones may be left, each already to be taken back by a call still minting.
  const none =
    minting === 0
      ? 'all busy'
      : `${minting} of them for calls that have not answered yet, and none left idle to take back for one more`;
  if (sessions === 0) {
    return minting === 0
      ? `${count} ${kind.holds}s are open for this caller and all are busy; wait for a call to finish and pass its ${kind.argument}`
      : `${count} ${kind.holds}s are open for this caller against its most (${kind.maxPerCaller}), ${none}; wait for a call to finish and pass its ${kind.argument}`;
  }
  const by =
    handles === 0
      ? `all of them for its sessions`
      : `${sessions} for its sessions and ${handles} by ${kind.argument}, ${none}`;
  const then =
    handles === 0 ? '' : `; one held by ${kind.argument} can be taken back once its call has ended`;
  // Without authorization the callers counted apart are client addresses, where known.
  const who =
    quota.startsWith('subject:') || quota === 'anonymous:' ? 'this caller' : 'this client address';
  return `${who} already holds ${count} ${kind.holds}s, its most (${kind.maxPerCaller}): ${by}. A session keeps its ${kind.holds} until the session ends (its client closes it, or it goes unused), and there is room again then${then}`;
}

export function describeMs(ms: number): string {
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  if (ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  if (ms % 1000 === 0) return plural(ms / 1000, 'second');
  return `${ms} ms`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
