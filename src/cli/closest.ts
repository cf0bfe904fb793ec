/** The Levenshtein distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidates nearest to `name`, best first: those within a distance of about a
 * third of the name's length (at least 2), or containing it, at most `limit` of them.
 */
export function closestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  const threshold = Math.max(2, Math.ceil(wanted.length / 3));
  return [...candidates]
    .map((candidate) => {
      const lower = candidate.toLowerCase();
      const contains = wanted !== '' && (lower.includes(wanted) || wanted.includes(lower));
      return { candidate, distance: editDistance(wanted, lower), contains };
    })
    .filter((c) => c.distance <= threshold || c.contains)
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map((c) => c.candidate);
}
