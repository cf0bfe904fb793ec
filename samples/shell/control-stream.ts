/** A control line the driver printed: `<marker> <kind>[ <value>]`. */
export interface ControlLine {
  readonly kind: string;
  readonly value: string;
}

/** The longest control line we wait for; anything longer is not ours. */
const MAX_CONTROL_LINE = 256;
/** What follows the marker in a line we printed: a letter and maybe a number. */
const CONTROL_LINE = /^([A-Z])(?: (-?\d+))?$/;

/**
 * Splits the shell's stdout into command output and control lines. A control line
 * starts with the marker (random bytes the command cannot guess) and ends at a newline;
 * it may land anywhere, even inside a line of output, since the shell prints it while
 * the command runs. Output is passed on as soon as it cannot be the start of a marker.
 */
export class ControlStream {
  private readonly marker: Buffer;
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    marker: string,
    private readonly onData: (chunk: Buffer) => void,
    private readonly onControl: (line: ControlLine) => void,
  ) {
    this.marker = Buffer.from(`${marker} `, 'utf8');
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const at = this.pending.indexOf(this.marker);
      if (at === -1) {
        this.flushUpTo(this.pending.length - this.partialMarkerLength());
        return;
      }
      const end = this.pending.indexOf(0x0a, at + this.marker.length);
      if (end === -1 && this.pending.length - at <= MAX_CONTROL_LINE) {
        this.flushUpTo(at);
        return;
      }
      const match =
        end === -1 || end - at > MAX_CONTROL_LINE
          ? null
          : CONTROL_LINE.exec(this.pending.subarray(at + this.marker.length, end).toString());
      if (match === null) {
        // Not a line we printed: let it through as output.
        this.flushUpTo(at + this.marker.length);
        continue;
      }
      this.flushUpTo(at);
      this.pending = this.pending.subarray(end - at + 1);
      this.onControl({ kind: match[1] ?? '', value: match[2] ?? '' });
    }
  }

  private flushUpTo(index: number): void {
    if (index <= 0) return;
    const out = this.pending.subarray(0, index);
    this.pending = this.pending.subarray(index);
    this.onData(out);
  }

  /** How many bytes at the end of `pending` could be the start of the marker. */
  private partialMarkerLength(): number {
    const max = Math.min(this.marker.length - 1, this.pending.length);
    for (let n = max; n > 0; n -= 1) {
      const tail = this.pending.subarray(this.pending.length - n);
      if (tail.equals(this.marker.subarray(0, n))) return n;
    }
    return 0;
  }
}
