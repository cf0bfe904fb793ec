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
