import { AgentToolError } from '../errors';

// The checks the built-in interceptors make of their options, when they are made: a
// wrong option fails at start-up, never a call.

/** `value` as a whole number of at least `min`, or `INVALID_OPTIONS` naming `where`. */
export function wholeNumber(where: string, name: string, value: unknown, min: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  throw new AgentToolError(
    'INVALID_OPTIONS',
    `${where}: ${name} must be a whole number, ${min} or more, got ${shown(value)}`,
  );
}

/** `value` as a function when given, or `INVALID_OPTIONS` naming `where`. */
export function optionalFunction<F extends (...args: never[]) => unknown>(
  where: string,
  name: string,
  value: unknown,
): F | undefined {
  if (value === undefined || typeof value === 'function') return value as F | undefined;
  throw new AgentToolError(
    'INVALID_OPTIONS',
    `${where}: ${name} must be a function, got ${shown(value)}`,
  );
}

function shown(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  return JSON.stringify(value) ?? typeof value;
}
