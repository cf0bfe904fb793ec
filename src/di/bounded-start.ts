import { AgentToolError, errorMessage } from '../core';
import { type Running, sinceStart } from './lifecycle';

/** How long a start may take, and what may stop it. */
export interface StartBound {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/** Throws `INVALID_OPTIONS` for a bound that cannot be used. */
export function checkStartBound(root: string, bound: StartBound): void {
  const { signal, timeoutMs } = bound;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `ToolApp.create(${root}): signal must be an AbortSignal`,
    );
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `ToolApp.create(${root}): timeoutMs must be a positive number of milliseconds, not ${String(timeoutMs)}`,
    );
  }
}

/**
 * Runs `work` (the building and starting of an app) until it settles, or until the
 * signal aborts (`CANCELLED`) or `timeoutMs` passes (`TIMEOUT`), whichever comes first;
 * the error then names what was under way (`running`: the factories and hooks not
 * settled yet) and how long each had been waited for. `work` is not stopped (nothing
 * can stop a promise): its later failure is ignored, and whoever called this closes
 * what it built.
 */
export async function bounded<T>(
  root: string,
  bound: StartBound,
  running: ReadonlySet<Running>,
  work: () => Promise<T>,
): Promise<T> {
  const { signal, timeoutMs } = bound;
  if (signal?.aborted === true) {
    throw new AgentToolError(
      'CANCELLED',
      `ToolApp.create(${root}): the start was aborted (${errorMessage(signal.reason)}) before it began; nothing was built`,
      { cause: signal.reason },
    );
  }
  if (signal === undefined && timeoutMs === undefined) return work();
  let stop!: (error: unknown) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  const onAbort = (): void => stop(aborted(root, signal!, running));
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : // A delay past 2^31-1 ms would fire at once: clamped (about 24.8 days).
        setTimeout(
          () => stop(timedOut(root, timeoutMs, running)),
          Math.min(timeoutMs, 2 ** 31 - 1),
        );
  // Not unref'd: a start waiting on nothing but a promise that never settles would
  // otherwise let the process end without the error.
  const working = work();
  working.catch(() => undefined);
  try {
    return await Promise.race([working, stopped]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function underWay(running: ReadonlySet<Running>): string {
  const now = sinceStart();
  const waited = [...running].map(
    ({ what, since }) => `${what} had not settled after ${Math.round(now - since)} ms`,
  );
  return waited.length === 0 ? 'nothing was under way' : waited.join('; ');
}

function timedOut(root: string, timeoutMs: number, running: ReadonlySet<Running>): AgentToolError {
  return new AgentToolError(
    'TIMEOUT',
    `ToolApp.create(${root}): the start did not finish within timeoutMs (${timeoutMs} ms): ${underWay(running)}; what was built is closed. Make the factory or hook settle, or give the start more time`,
  );
}

function aborted(root: string, signal: AbortSignal, running: ReadonlySet<Running>): AgentToolError {
  return new AgentToolError(
    'CANCELLED',
    `ToolApp.create(${root}): the start was aborted (${errorMessage(signal.reason)}): ${underWay(running)}; what was built is closed`,
    { cause: signal.reason },
  );
}
