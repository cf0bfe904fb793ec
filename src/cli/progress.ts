import { type Writable } from 'node:stream';
import { outputText, ProgressInfo, type Result } from './public-api';
import { terminalSafe } from './terminal-text';

const BAR_WIDTH = 24;

/** How many bytes of progress one call may print as plain lines (as the MCP server's default). */
export const PROGRESS_BUDGET_BYTES = 64 * 1024;

/** The line that ends a call's progress once its budget is spent. */
export const PROGRESS_TRUNCATED = '[progress truncated]';

/**
 * Shows a call's progress on a stream: on a terminal, one line redrawn in place with a
 * bar when the total is known; elsewhere (a pipe, a file, a CI log) one plain line per
 * update.
 */
export class ProgressDisplay {
  readonly #stream: Writable & { columns?: number };
  readonly #live: boolean;
  #shown = false;
  #budget: number;

  /**
   * Plain lines stop at `budgetBytes` (64 KiB by default) with one
   * `[progress truncated]` line: a chatty tool cannot fill a log without bound.
   */
  constructor(
    stream: Writable & { isTTY?: boolean; columns?: number },
    live = stream.isTTY,
    budgetBytes = PROGRESS_BUDGET_BYTES,
  ) {
    this.#stream = stream;
    this.#live = live === true;
    this.#budget = budgetBytes;
  }

  /** Shows one update of the call `label`. */
  update(label: string, update: Result): void {
    const line = describeProgress(label, update);
    if (!this.#live) {
      if (this.#budget < 0) return;
      const text = `${line}\n`;
      this.#budget -= Buffer.byteLength(text);
      this.#stream.write(this.#budget < 0 ? `${PROGRESS_TRUNCATED}\n` : text);
      return;
    }
    // A terminal of unknown size reports 0 columns.
    const width = Math.max(20, (this.#stream.columns || 80) - 1);
    this.#stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    this.#shown = true;
  }

  /** Removes the live line, before other text is written or when the call ends. */
  clear(): void {
    if (!this.#shown) return;
    this.#stream.write('\r\x1b[2K');
    this.#shown = false;
  }
}

/**
 * One update as text: `label [#####-----] 3/10 message`, or `label 3 message` without a
 * total; what the tool or its server wrote shown safe (see terminal-text.ts).
 */
export function describeProgress(label: string, update: Result): string {
  return terminalSafe(progressLine(label, update));
}

function progressLine(label: string, update: Result): string {
  const details = update.details;
  const text = outputText(update.output).replace(/\s+/g, ' ').trim();
  if (!(details instanceof ProgressInfo)) return `${label} ${text}`.trimEnd();
  const message = (details.message || text).replace(/\s+/g, ' ').trim();
  if (details.total > 0) {
    const ratio = Math.min(1, Math.max(0, details.progress / details.total));
    const filled = Math.round(ratio * BAR_WIDTH);
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
    return `${label} ${bar} ${shown(details.progress)}/${shown(details.total)} ${message}`.trimEnd();
  }
  return `${label} ${shown(details.progress)} ${message}`.trimEnd();
}

/**
 * `n` with at most three decimals (below 1, six significant digits): a server that keeps
 * a quiet call alive moves the tool's own numbers on by a millionth (3 of 10 reads 3,
 * not 3.0000028610229492; 1234567 reads 1234567).
 */
function shown(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Math.abs(n) >= 1 ? Math.round(n * 1000) / 1000 : Number(n.toPrecision(6)));
}
