/**
 * Collects a command's output within a byte cap: it keeps the first half of the cap and
 * the last half, and says in between how much it left out, since both the start (what
 * ran) and the end (how it failed) are what a reader wants from a long output.
 */
export class BoundedOutput {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  /** @param maxBytes the most bytes of output kept, markers aside; at least 2. */
  constructor(readonly maxBytes: number) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 2) {
      throw new RangeError(`maxOutputBytes must be an integer of at least 2, got ${maxBytes}`);
    }
    this.headCap = Math.ceil(maxBytes / 2);
    this.tailCap = maxBytes - this.headCap;
  }

  /** Bytes received so far, kept or not. */
  get receivedBytes(): number {
    return this.total;
  }

  /** True once more bytes arrived than the cap keeps. */
  get truncated(): boolean {
    return this.total > this.maxBytes;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    this.trimTail();
  }

  /** The output as text: all of it, or its head, a truncation line, and its tail. */
  text(): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    const headText = head.subarray(0, utf8Boundary(head, head.length)).toString('utf8');
    const tailText = tail.subarray(utf8Boundary(tail, 0)).toString('utf8');
    const omitted = this.total - head.length - tail.length;
    return `${headText}\n${truncationLine(omitted, this.total)}\n${tailText}`;
  }

  private trimTail(): void {
    let excess = this.tailBytes - this.tailCap;
    while (excess > 0) {
      const first = this.tail[0];
      if (first === undefined) return;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        excess -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        excess = 0;
      }
    }
  }
}

/** The line that stands where output was left out. */
export function truncationLine(omitted: number, total: number): string {
  return `[output truncated: ${omitted} of ${total} bytes not shown]`;
}

/**
 * The nearest index at or after `from` (for a tail) or at or before it (for a head, when
 * `from` is the length) that does not split a UTF-8 sequence, so a cut never shows a
 * broken character.
 */
function utf8Boundary(buffer: Buffer, from: number): number {
  const isContinuation = (i: number) => ((buffer[i] ?? 0) & 0xc0) === 0x80;
  if (from === 0) {
    let i = 0;
    while (i < buffer.length && i < 4 && isContinuation(i)) i += 1;
    return i;
  }
  // Walk back over continuation bytes to the lead byte; keep the sequence if complete.
  let lead = from - 1;
  while (lead >= 0 && from - lead < 4 && isContinuation(lead)) lead -= 1;
  if (lead < 0) return from;
  const byte = buffer[lead] ?? 0;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + length <= from ? from : lead;
}
