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

/** A path as a message shows it unquoted: whole when short, else start…end with its length. */
export function shortPath(path: string): string {
  if (path.length <= MAX_SHOWN) return path;
  return `${path.slice(0, KEPT)}…${path.slice(-KEPT)} (${path.length} characters)`;
}
