/**
 * An error for a condition the server met and handled (a message too large, a client's
 * malformed request), not a fault in its code: reported without the stack, which would
 * only say where, and which a client could make the server write once per request.
 */
export function plainError(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}

/**
 * `error` as reported: a request the SDK refused for what its client sent ("Rejected
 * inbound request (<why>): ..."; the client was answered 400 saying so) as a
 * {@link plainError}, anything else as it is.
 */
export function withoutClientStack(error: Error): Error {
  return error.message.startsWith('Rejected inbound request (') ? plainError(error.message) : error;
}
