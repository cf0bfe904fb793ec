/** The longest text a message shows whole; longer ones show their start and end. */
const MAX_SHOWN = 120;
/** How much of each end of a long text a message keeps. */
const KEPT = 50;

/**
 * A path as a message shows it, quoted: whole when short, else its first and last 50
 * characters with its length (`"/a/b…"…"…/z.txt" (100000 characters)`), so that a huge
 * path never makes a huge message.
 */
export function quotePath(path: string): string {
  const quoted = JSON.stringify(path);
  if (quoted.length <= MAX_SHOWN) return quoted;
  return `${JSON.stringify(path.slice(0, KEPT))}…${JSON.stringify(path.slice(-KEPT))} (${path.length} characters)`;
}

/**
 * A path as a message shows it unquoted: whole when short, else start…end with its
 * length; quoted, as {@link quotePath} shows it, when it holds a control character (a
 * line end in a name must not read as the message's next line).
 */
export function shortPath(path: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(path)) return quotePath(path);
  if (path.length <= MAX_SHOWN) return path;
  return `${path.slice(0, KEPT)}…${path.slice(-KEPT)} (${path.length} characters)`;
}
