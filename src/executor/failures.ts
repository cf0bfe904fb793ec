import { AgentToolError, CancelledError, goQuote, isProgrammingFault, PanicError } from '../core';

/** True for a promise or any object with a `then` method (a tool may return either). */
export function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * The error of a job cancelled before it was handed to its tool. The message is what
 * the Go binding's job completes with, `ctx.Err()`: `context deadline exceeded` when the
 * signal was aborted by a timeout (`AbortSignal.timeout`), else `context canceled`. The
 * signal's reason stays on `cause` and the call on `callId`, for hosts.
 */
export function cancelled(id: string, signal: AbortSignal): CancelledError {
  const reason: unknown = signal.reason;
  const message = isTimeout(reason) ? 'context deadline exceeded' : 'context canceled';
  return new CancelledError(message, { cause: reason, callId: id });
}

/**
 * The error of a job whose tool or onStart stopped on the batch's cancellation by
 * throwing the signal's reason (what `signal.throwIfAborted()` does), or undefined when
 * `thrown` is anything else. It reads as a job cancelled before its turn does, as Go's
 * job does when its tool returns `ctx.Err()`: stopping is neither the tool's own error
 * nor a panic, whatever the reason is (a string, a DOMException of another realm). A
 * `@Tool` class's tool hands a thrown non-Error on as a PanicError holding it; that
 * counts too.
 */
export function stoppedBy(
  thrown: unknown,
  signal: AbortSignal,
  id: string,
): CancelledError | undefined {
  if (!signal.aborted) return undefined;
  const value = thrown instanceof PanicError ? thrown.value : thrown;
  return value === signal.reason ? cancelled(id, signal) : undefined;
}

function isTimeout(reason: unknown): boolean {
  return (
    typeof reason === 'object' &&
    reason !== null &&
    (reason as { name?: unknown }).name === 'TimeoutError'
  );
}

/** onStart's own failure: its error as is, a programming fault named as onStart's. */
export function onStartFailure(id: string, thrown: unknown): Error {
  if (!isProgrammingFault(thrown)) return thrown as Error;
  const value = thrown instanceof Error ? String(thrown) : describe(thrown);
  const error = new AgentToolError(
    'ON_START',
    `agenttool: OnStart for call ${goQuote(id)} panicked: ${value.replace(/\s*[\r\n]+\s*/g, ' ')}`,
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
