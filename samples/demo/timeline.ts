/** When one job of a batch ran, as the host saw it. */
export interface Span {
  readonly label: string;
  /** Milliseconds from the batch's start to the moment the job was handed to its tool. */
  start?: number;
  /** Milliseconds from the batch's start to its final event. */
  end?: number;
}

/**
 * The timeline of one batch: when each job started (the executor's `onStart`) and
 * ended (its final event), drawn as bars on one time axis, with which jobs overlapped.
 */
export class Timeline {
  readonly #origin = performance.now();
  readonly spans: Span[];

  constructor(labels: readonly string[]) {
    this.spans = labels.map((label) => ({ label }));
  }

  /** Milliseconds since the batch began. */
  now(): number {
    return performance.now() - this.#origin;
  }

  started(index: number): number {
    const at = this.now();
    this.spans[index]!.start = at;
    return at;
  }

  ended(index: number): number {
    const at = this.now();
    this.spans[index]!.end = at;
    return at;
  }

  /** The jobs whose run overlapped job `index`'s. */
  alongside(index: number): number[] {
    const span = this.spans[index]!;
    return this.spans.flatMap((other, i) => (i !== index && overlaps(span, other) ? [i] : []));
  }

  /** One bar per job on a shared axis `width` columns wide, then the times. */
  render(width = 40): string {
    const total = Math.max(1, ...this.spans.map((s) => s.end ?? 0));
    const scale = width / total;
    const labelWidth = Math.max(...this.spans.map((s) => s.label.length));
    const lines = this.spans.map((span) => {
      if (span.start === undefined) {
        return `  ${span.label.padEnd(labelWidth)} |${' '.repeat(width)}| never started`;
      }
      const from = Math.min(width - 1, Math.floor((span.start ?? 0) * scale));
      const to = Math.max(from + 1, Math.ceil((span.end ?? total) * scale));
      const bar = ' '.repeat(from) + '█'.repeat(to - from) + ' '.repeat(Math.max(0, width - to));
      const times =
        span.start === undefined
          ? 'never started'
          : `${ms(span.start)} to ${ms(span.end ?? total)}`;
      return `  ${span.label.padEnd(labelWidth)} |${bar}| ${times}`;
    });
    return `${lines.join('\n')}\n  ${' '.repeat(labelWidth)}  0${' '.repeat(width - 1)}${ms(total)}`;
  }
}

function overlaps(a: Span, b: Span): boolean {
  if (a.start === undefined || b.start === undefined) return false;
  const aEnd = a.end ?? Infinity;
  const bEnd = b.end ?? Infinity;
  return a.start < bEnd && b.start < aEnd;
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}
