import type { ReadOptions } from './file-operations';

/**
 * The bytes all reads of file contents in this process hold at once, at most: 32 MiB,
 * eight of `read_file`'s largest reads. Reads past it wait their turn (first come, first
 * served), so that memory for contents is bounded by this, not by how many calls a
 * client sends at once (300 parallel 4 MiB reads took a server to 2.6 GB).
 */
export const READ_BYTES_AT_ONCE = 32 * 1024 * 1024;

interface Waiter {
  readonly bytes: number;
  readonly wake: () => void;
}

/**
 * A budget of bytes that callers take before they read and give back after, waiting in
 * line while it has no room. One taking more than the whole budget goes alone.
 */
export class ReadBudget {
  #used = 0;
  readonly #line: Waiter[] = [];

  constructor(readonly limit: number) {}

  /**
   * Waits until `bytes` fit (or nothing else is held), takes them, and returns the
   * function that gives back what is still held of them: all by default, or `bytes` of
   * them. Aborted while it waits, it leaves the line and throws the signal's reason.
   */
  async take(bytes: number, signal?: AbortSignal): Promise<(bytes?: number) => void> {
    signal?.throwIfAborted();
    // Those woken in line are given their bytes as they are woken.
    if (this.#line.length > 0 || !this.#fits(bytes)) await this.#wait(bytes, signal);
    else this.#used += bytes;
    let held = bytes;
    return (given = held) => {
      const back = Math.max(0, Math.min(given, held));
      held -= back;
      this.#used -= back;
      this.#wakeWhoFits();
    };
  }

  /** What is held now (for tests and reports). */
  get used(): number {
    return this.#used;
  }

  /** How many wait in line now (for tests and reports). */
  get waiting(): number {
    return this.#line.length;
  }

  #fits(bytes: number): boolean {
    return this.#used === 0 || this.#used + bytes <= this.limit;
  }

  #wait(bytes: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        wake: () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = (): void => {
        const at = this.#line.indexOf(waiter);
        if (at >= 0) this.#line.splice(at, 1);
        // The next in line may fit now that this one will not take its share.
        this.#wakeWhoFits();
        // The signal's reason as it is, as `throwIfAborted` throws it.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- see above
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.#line.push(waiter);
    });
  }

  #wakeWhoFits(): void {
    for (
      let next = this.#line[0];
      next !== undefined && this.#fits(next.bytes);
      next = this.#line[0]
    ) {
      this.#line.shift();
      this.#used += next.bytes;
      next.wake();
    }
  }
}

/** The bytes of file contents all reads in this process hold at once. */
export const fileContents = new ReadBudget(READ_BYTES_AT_ONCE);

/**
 * Takes `bytes` of {@link fileContents} for a read, once the caller's client has read
 * its earlier answers (`whenAnswersRead`): it waits for that holding nothing, and looks
 * again once its turn comes, giving the turn back to wait again if the client has
 * fallen behind meanwhile, so that a client slow to read holds back its own reads, never
 * another's. Returns what gives the bytes back.
 */
export async function readTurn(
  bytes: number,
  options: Pick<ReadOptions, 'signal' | 'whenAnswersRead'>,
): Promise<(bytes?: number) => void> {
  const { signal, whenAnswersRead } = options;
  let behind = whenAnswersRead?.(signal);
  for (;;) {
    if (behind !== undefined) await behind;
    const giveBack = await fileContents.take(bytes, signal);
    behind = whenAnswersRead?.(signal);
    if (behind === undefined) return giveBack;
    giveBack();
  }
}
