// "Did you mean ...?" hints: the known word nearest to a misspelt one (a command, a flag, a scenario, a key, a
// metric), by Levenshtein edit distance, offered only when it is near enough to be a typo.

/**
 * The candidate nearest to `word` (case-insensitive), or undefined when none is within `maxDistance` edits
 * (by default a third of the word's length, at least 1).
 */
export function didYouMean(
  word: string,
  candidates: Iterable<string>,
  maxDistance: number = Math.max(1, Math.floor(word.length / 3)),
): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= maxDistance ? best : undefined;
}

/** ` (did you mean 'x'?)` or nothing: the hint as a message's suffix. */
export function didYouMeanSuffix(word: string, candidates: Iterable<string>, quote = "'"): string {
  const hint = didYouMean(word, candidates);
  return hint === undefined ? '' : ` (did you mean ${quote}${hint}${quote}?)`;
}

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}
