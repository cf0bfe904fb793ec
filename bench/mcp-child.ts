// Runs a compiled benchmark helper in a fresh node process and reads the one JSON line
// it prints last.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ChildRun<T> {
  /** What the child printed (its last line of stdout, parsed). */
  readonly value: T;
  /** Spawn to exit, in nanoseconds. */
  readonly wallNs: number;
}

/** Runs `dist/bench/<file>` with `args`; rejects with its stderr when it fails. */
export function runChild<T>(file: string, args: readonly string[]): Promise<ChildRun<T>> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--expose-gc', join(__dirname, file), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const wallNs = Number(process.hrtime.bigint() - start);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || last === '') {
        reject(new Error(`${file} ${args.join(' ')} exited ${code}:\n${err}${out}`));
        return;
      }
      resolve({ value: JSON.parse(last) as T, wallNs });
    });
  });
}

/** The median of `values` (NaN for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
