/**
 * The benchmarks' one measuring tool: each figure is the median of several timed rounds
 * after a warm-up, and every table prints ratios against a named baseline measured in
 * the same run.
 */
export interface Figure {
  readonly name: string;
  /** Nanoseconds per operation (median of the rounds). */
  readonly nsPerOp: number;
}

export interface MeasureOptions {
  /** Operations per round. */
  readonly ops: number;
  /** Timed rounds; the median is reported. */
  readonly rounds?: number;
  /** Untimed rounds first, to let the JIT settle. */
  readonly warmup?: number;
}

/** Times `round(ops)` (which performs `ops` operations) and returns ns per operation. */
export async function measure(
  name: string,
  round: (ops: number) => void | Promise<void>,
  options: MeasureOptions,
): Promise<Figure> {
  const rounds = options.rounds ?? 7;
  const warmup = options.warmup ?? 2;
  for (let i = 0; i < warmup; i++) await round(options.ops);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await round(options.ops);
    samples.push(Number(process.hrtime.bigint() - start) / options.ops);
  }
  samples.sort((a, b) => a - b);
  return { name, nsPerOp: samples[Math.floor(samples.length / 2)] ?? Number.NaN };
}

function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/**
 * Prints a table: each figure per operation and its ratio to `baseline` (ours / theirs;
 * below 1 is faster than the baseline).
 */
export function report(title: string, figures: readonly Figure[], baseline: string): void {
  const base = figures.find((f) => f.name === baseline);
  if (base === undefined) throw new Error(`report: no figure named ${baseline}`);
  const width = Math.max(...figures.map((f) => f.name.length));
  console.log(`\n${title}`);
  for (const f of figures) {
    const ratio = f.nsPerOp / base.nsPerOp;
    console.log(
      `  ${f.name.padEnd(width)}  ${formatNs(f.nsPerOp).padStart(10)}/op  ${ratio.toFixed(2)}x ${baseline}`,
    );
  }
}
