// Small statistics helpers for the benchmark.

/** The q-quantile (0..1) of a list of numbers, nearest-rank. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => quantile(values, 0.5);

/**
 * The order of round `round` in an A/B (or A/B/C…) benchmark: as given, then reversed, then as given… so the drift of
 * a shared machine falls on every variant alike.
 */
export const alternating = (items, round) => (round % 2 ? [...items].reverse() : items);

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Reject after `ms` with a message naming what timed out; every wait in the benchmark is bounded. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
