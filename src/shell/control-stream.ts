/** A control line the driver printed: `<marker> <kind>[ <value>]`. */
export interface ControlLine {
  /** The marker the line started with (see {@link ControlStream.expect}). */
  readonly marker: string;
  readonly kind: string;
  readonly value: string;
}

/** The longest control line we wait for; anything longer is not ours. */
const MAX_CONTROL_LINE = 256;
/** What follows the marker in a line we printed: a letter and maybe a number. */
const CONTROL_LINE = /^([A-Z])(?: (-?\d+))?$/;

/**
 * Splits the shell's stdout into command output and control lines. A control line
 * starts with a marker the driver announced with {@link ControlStream.expect} and ends
 * at a newline; it may land anywhere, even inside a line of output, since the shell
 * prints it while the command runs. Each marker is good for one line: once seen it is
 * forgotten, so a copy printed later is output like any other. Output is passed on as
 * soon as it cannot be the start of an expected marker.
 */
export class ControlStream {
  private readonly markers = new Map<string, Buffer>();
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly onData: (chunk: Buffer) => void,
    private readonly onControl: (line: ControlLine) => void,
  ) {}

  /** Looks out for one control line that starts with `marker`. */
  expect(marker: string): void {
    this.markers.set(marker, Buffer.from(`${marker} `, 'utf8'));
  }

  /** Stops looking out for `marker`; bytes held back for it are output again. */
  forget(marker: string): void {
    this.markers.delete(marker);
    this.push(Buffer.alloc(0));
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const found = this.firstMarker();
      if (found === undefined) {
        this.flushUpTo(this.pending.length - this.partialMarkerLength());
        return;
      }
      const { at, marker, bytes } = found;
      const end = this.pending.indexOf(0x0a, at + bytes.length);
      if (end === -1 && this.pending.length - at <= MAX_CONTROL_LINE) {
        this.flushUpTo(at);
        return;
      }
      const match =
        end === -1 || end - at > MAX_CONTROL_LINE
          ? null
          : CONTROL_LINE.exec(this.pending.subarray(at + bytes.length, end).toString());
      if (match === null) {
        // Not a line we printed: let it through as output.
        this.flushUpTo(at + bytes.length);
        continue;
      }
      this.flushUpTo(at);
      this.pending = this.pending.subarray(end - at + 1);
      this.markers.delete(marker);
      this.onControl({ marker, kind: match[1] ?? '', value: match[2] ?? '' });
    }
  }

  /** The earliest expected marker in `pending`. */
  private firstMarker(): { at: number; marker: string; bytes: Buffer } | undefined {
    let first: { at: number; marker: string; bytes: Buffer } | undefined;
    for (const [marker, bytes] of this.markers) {
      const at = this.pending.indexOf(bytes);
      if (at !== -1 && (first === undefined || at < first.at)) first = { at, marker, bytes };
    }
    return first;
  }

  private flushUpTo(index: number): void {
    if (index <= 0) return;
    const out = this.pending.subarray(0, index);
    this.pending = this.pending.subarray(index);
    this.onData(out);
  }

  /** How many bytes at the end of `pending` could be the start of an expected marker. */
  private partialMarkerLength(): number {
    let longest = 0;
    for (const bytes of this.markers.values()) {
      const max = Math.min(bytes.length - 1, this.pending.length);
      for (let n = max; n > longest; n -= 1) {
        const tail = this.pending.subarray(this.pending.length - n);
        if (tail.equals(bytes.subarray(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}
