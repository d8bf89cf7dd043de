// "Did you mean …?" for a name nobody has: the known names closest to it, by edit distance (optimal string
// alignment: insert, delete, substitute, or swap two neighbours, each one edit — `craete` is one edit from `create`).
// Written here rather than taken from a package: twenty lines, run only on a refused call.

/** Edit distance between `a` and `b`, or `limit + 1` as soon as it is certain to exceed `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  // Three rows of the dynamic-programming table: two back (for swaps), the previous one and the current one.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current[j] = d;
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/**
 * Up to `max` of `known` nearest to `name`, nearest first: within a quarter of the name's length in edits (at least
 * 1, at most 3) and at most one edit further than the nearest, or ending in `name` after a domain separator
 * (`create` → `task.create`). Case counts as an edit only for the distance, not for finding the same name.
 */
export function nearestNames(name: string, known: Iterable<string>, max = 3): string[] {
  const wanted = name.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(wanted.length / 4)));
  const scored: { name: string; distance: number }[] = [];
  for (const candidate of known) {
    const lower = candidate.toLowerCase();
    if (candidate === name) continue;
    const distance =
      lower.endsWith(`.${wanted}`) || lower.endsWith(`__${wanted}`) ? 0 : editDistance(wanted, lower, limit);
    if (distance <= limit) scored.push({ name: candidate, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || (x.name < y.name ? -1 : 1));
  const nearest = scored[0]?.distance ?? 0;
  return scored
    .filter((s) => s.distance <= nearest + 1)
    .slice(0, max)
    .map((s) => s.name);
}
