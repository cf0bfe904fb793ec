/** Secrets shorter than this are not looked for: they would match ordinary words. */
const SHORTEST = 4;

/**
 * `text` with each of `secrets` (an entry's env values, header values, the secrets of
 * its URL) replaced by `***`, so a failure's message can be printed: a server's error
 * may quote the command line, the URL or a header it was given.
 */
export function scrubbed(text: string, secrets: readonly string[]): string {
  let result = text;
  // The longest first, so that a secret holding another is taken out whole.
  const ordered = [...new Set(secrets)]
    .filter((secret) => secret.length >= SHORTEST)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) result = result.split(secret).join('***');
  return result;
}

/**
 * `error` as the composition's clients may see it: itself when its message quotes none
 * of `secrets`, else a copy of its kind (its code, status, details kept) whose message
 * and stack have them taken out, without its cause (which quotes them). A server's
 * answer to a call may quote the headers or the URL it was sent (an HTTP 500 page, a
 * JSON-RPC error), and its clients may be remote callers who must not learn them.
 */
export function scrubbedError(error: unknown, secrets: readonly string[]): unknown {
  if (typeof error === 'string') return scrubbed(error, secrets);
  if (!(error instanceof Error)) return error;
  const message = scrubbed(error.message, secrets);
  if (message === error.message) return error;
  // A copy rather than a new error of a known class: whatever kind passes through (a
  // refusal with its Retry-After, a tool's error with its details) stays that kind.
  const copy = Object.create(Object.getPrototypeOf(error) as object | null) as Error;
  for (const key of Object.keys(error)) {
    Object.defineProperty(copy, key, {
      value: (error as unknown as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const hidden = { enumerable: false, writable: true, configurable: true };
  Object.defineProperty(copy, 'message', { ...hidden, value: message });
  if (error.stack !== undefined) {
    Object.defineProperty(copy, 'stack', { ...hidden, value: scrubbed(error.stack, secrets) });
  }
  return copy;
}
