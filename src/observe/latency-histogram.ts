// The one latency histogram: system.metrics' percentiles and the Prometheus histogram per capability since start
// (metrics.ts, prometheus.ts) and the dashboard's per-second p50/p95 (metrics-series.ts). Fixed bounds, in seconds,
// log-spaced from 1 µs to 10⁴ s: every decade is split at 1, 2.5, 3 and 5 and each of those four parts into equal
// ratios, 49 buckets a decade, none wider than ×1.0494. So a percentile read from it lies in the bucket of the true
// one: within 4.95 % of it between 1 µs and 10⁴ s (below, within 1 µs; above, at most the max). Every Prometheus bound
// (DURATION_BUCKETS: 0.5 ms … 30 s) is one of its bounds exactly, and two histograms merge exactly by adding counts.
// 492 counts (Float64Array): 3.9 KB a histogram. docs/decisions.md, "One latency histogram".
import type { LatencySnapshot } from '../core/context.ts';

/** Where each decade is split, and into how many equal ratios up to the next split. */
const SPLITS: [mantissa: number, steps: number][] = [
  [1, 19],
  [2.5, 4],
  [3, 11],
  [5, 15],
];
const FIRST_DECADE = -6;
const LAST_DECADE = 4;

/** Upper bounds in seconds, ascending; bucket i holds (BOUNDS[i-1], BOUNDS[i]], the last bucket what is above. */
export const BOUNDS: Float64Array = (() => {
  const out = [Number(`1e${FIRST_DECADE}`)];
  for (let d = FIRST_DECADE; d < LAST_DECADE; d++)
    for (const [i, [m, steps]] of SPLITS.entries()) {
      // Parsed from decimal text, so 2.5e-3 is the same double as the literal 0.0025.
      const lo = Number(`${m}e${d}`);
      const hi = i + 1 < SPLITS.length ? Number(`${SPLITS[i + 1][0]}e${d}`) : Number(`1e${d + 1}`);
      for (let j = 1; j < steps; j++) out.push(lo * (hi / lo) ** (j / steps));
      out.push(hi);
    }
  return Float64Array.from(out);
})();
const TOP = BOUNDS[BOUNDS.length - 1];

/** Histograms of another layout (another version's bounds) cannot be merged with these. */
export const LAYOUT = `log:${FIRST_DECADE}..${LAST_DECADE}:${SPLITS.map(([m, s]) => `${m}/${s}`).join(',')}`;

// The index: a value's exponent and the first 5 bits of its mantissa (the top bits of the double: 32 cells an octave,
// each narrower than any bucket) name a cell, which a table maps to the first bucket that can hold it; one comparison
// finishes it, without a branch (a loop over the bounds there mispredicted and cost three times as much).
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** The index of the double's high word in `u32` (1 on little-endian machines). */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const cellOf = (x: number) => {
  f64[0] = x;
  return u32[HI] >>> 15;
};
const CELL0 = cellOf(BOUNDS[0]);
const CELLS: Uint16Array = (() => {
  const table = new Uint16Array(cellOf(TOP) - CELL0 + 1);
  let i = 0;
  for (let c = 0; c < table.length; c++) {
    // The least double of the cell.
    u32[HI] = ((CELL0 + c) << 15) >>> 0;
    u32[1 - HI] = 0;
    while (BOUNDS[i] < f64[0]) i++;
    table[c] = i;
    // At most one bound inside a cell, so one comparison places any value of it.
    if (c > 0 && table[c] - table[c - 1] > 1) throw new Error('Latency histogram: a cell holds two bounds.');
  }
  return table;
})();

/**
 * The bucket `seconds` falls in: an index into `counts`. record() computes it; a caller recording one observation in
 * several histograms computes it once and passes it.
 */
export function bucketOf(seconds: number): number {
  if (!(seconds > BOUNDS[0])) return 0;
  if (seconds > TOP) return BOUNDS.length;
  const i = CELLS[cellOf(seconds) - CELL0];
  return i + +(seconds > BOUNDS[i]);
}

/** The index of `bound` among BOUNDS; throws if it is not exactly one of them. */
export function boundIndex(bound: number): number {
  const i = BOUNDS.indexOf(bound);
  if (i < 0) throw new Error(`${bound} s is not a bound of the latency histogram.`);
  return i;
}

export class LatencyHistogram {
  readonly counts = new Float64Array(BOUNDS.length + 1);
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;

  /** One observation, in seconds (`bucket`: its bucketOf, if known): an index and an increment, nothing allocated. */
  record(seconds: number, bucket = bucketOf(seconds)): void {
    this.counts[bucket]++;
    this.count++;
    this.sum += seconds;
    if (seconds > this.max) this.max = seconds;
    if (seconds < this.min) this.min = seconds;
  }

  /**
   * The `q` quantile (0.95 for p95) in seconds, 0 when empty: linear within the bucket that holds it, the bucket
   * narrowed to the observed min and max.
   */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = q * this.count;
    let below = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const c = this.counts[i];
      if (c === 0 || below + c < rank) {
        below += c;
        continue;
      }
      const lo = Math.max(i === 0 ? 0 : BOUNDS[i - 1], this.min);
      const hi = Math.min(i < BOUNDS.length ? BOUNDS[i] : this.max, this.max);
      const f = (rank - below) / c;
      return f >= 1 ? hi : lo + (hi - lo) * f;
    }
    return this.max;
  }

  /** Observations at or below each bound given by its index (boundIndex), ascending: Prometheus's `le` buckets. */
  cumulative(indexes: readonly number[]): number[] {
    const out: number[] = [];
    let acc = 0;
    let i = 0;
    for (const to of indexes) {
      for (; i <= to; i++) acc += this.counts[i];
      out.push(acc);
    }
    return out;
  }

  /** Add another histogram's observations to this one (exact: the bounds are the same). */
  add(other: LatencyHistogram): this {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += other.counts[i];
    this.count += other.count;
    this.sum += other.sum;
    if (other.max > this.max) this.max = other.max;
    if (other.min < this.min) this.min = other.min;
    return this;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = 0;
  }

  /** The portable form another instance merges (non-empty buckets only). */
  toJSON(): LatencySnapshot {
    const buckets: [number, number][] = [];
    for (let i = 0; i < this.counts.length; i++) if (this.counts[i]) buckets.push([i, this.counts[i]]);
    return { layout: LAYOUT, buckets, sum: this.sum, min: this.count ? this.min : 0, max: this.max };
  }

  /** A histogram from its portable form; undefined if it has another layout or does not fit this one. */
  static from(s: LatencySnapshot): LatencyHistogram | undefined {
    if (s?.layout !== LAYOUT || !Array.isArray(s.buckets)) return undefined;
    const h = new LatencyHistogram();
    for (const [i, c] of s.buckets) {
      if (!Number.isInteger(i) || i < 0 || i >= h.counts.length || !(c > 0)) return undefined;
      h.counts[i] += c;
      h.count += c;
    }
    h.sum = s.sum;
    h.max = s.max;
    if (h.count) h.min = s.min;
    return h;
  }
}
