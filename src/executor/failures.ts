import { AgentToolError, CancelledError, isProgrammingFault } from '../core';

/** True for a promise or any object with a `then` method (a tool may return either). */
export function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The error of a job cancelled before it was handed to its tool. */
export function cancelled(id: string, signal: AbortSignal): CancelledError {
  return new CancelledError(`call ${JSON.stringify(id)} was cancelled before it started`, {
    cause: signal.reason,
  });
}

/** onStart's own failure: its error as is, a programming fault named as onStart's. */
export function onStartFailure(id: string, thrown: unknown): Error {
  if (!isProgrammingFault(thrown)) return thrown as Error;
  const value = thrown instanceof Error ? String(thrown) : describe(thrown);
  const error = new AgentToolError(
    'ON_START',
    `agenttool: OnStart for call ${JSON.stringify(id)} panicked: ${value.replace(/\s*[\r\n]+\s*/g, ' ')}`,
    { cause: thrown },
  );
  return error;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
