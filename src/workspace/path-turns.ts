/**
 * Calls that take turns by key (a file's path), each once the one before it on its key
 * has ended, in the order they asked; one whose signal aborts while it waits gives up
 * its place at once, and the next still waits for the one before.
 */
export class PathTurns {
  /** The turn of the last call on each key: the next one waits for it. */
  readonly #last = new Map<string, Promise<void>>();

  take<T>(key: string, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    const before = this.#last.get(key);
    const call = before === undefined ? run() : turnCome(before, signal).then(run);
    const turn =
      before === undefined
        ? call.then(nothing, nothing)
        : Promise.all([before, call.catch(nothing)]).then(nothing);
    this.#last.set(key, turn);
    // Forgotten once the turn is over, not when this call gives up: the one before may
    // still be under way, and the next must wait for it.
    void turn.then(() => {
      if (this.#last.get(key) === turn) this.#last.delete(key);
    });
    return call;
  }
}

function nothing(): void {}

/** Resolves when `before` (a turn, never rejected) does; rejects once `signal` aborts. */
function turnCome(before: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return before;
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void before.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
