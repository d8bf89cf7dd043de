// The one latency histogram behind system.metrics, Prometheus and the dashboard's series.
import { describe, expect, it } from 'vitest';
import { BOUNDS, boundIndex, bucketOf, LAYOUT, LatencyHistogram } from '../../src/observe/latency-histogram.ts';
import { DURATION_BUCKETS } from '../../src/observe/prometheus.ts';

/** The bucket by its definition: the first bound at or above the value. */
const reference = (s: number) => {
  let i = 0;
  while (i < BOUNDS.length && s > BOUNDS[i]) i++;
  return i;
};

/** The nearest-rank percentile of sorted data: the ⌈q·n⌉-th smallest. */
const nearestRank = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];

/** A deterministic generator (mulberry32), so a failure repeats. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('LatencyHistogram', () => {
  it('has log-spaced bounds from 1 µs to 10⁴ s, none wider than ×1.0494, 492 counts', () => {
    expect(BOUNDS[0]).toBe(1e-6);
    expect(BOUNDS[BOUNDS.length - 1]).toBe(1e4);
    let widest = 0;
    for (let i = 1; i < BOUNDS.length; i++) {
      expect(BOUNDS[i]).toBeGreaterThan(BOUNDS[i - 1]);
      widest = Math.max(widest, BOUNDS[i] / BOUNDS[i - 1]);
    }
    expect(widest).toBeLessThan(1.0495);
    expect(new LatencyHistogram().counts.length).toBe(492);
  });

  it('has every Prometheus bound exactly, so the le buckets are sums of its counts', () => {
    for (const b of DURATION_BUCKETS) expect(BOUNDS[boundIndex(b)]).toBe(b);
    expect(() => boundIndex(0.0042)).toThrow(/not a bound/);
    const h = new LatencyHistogram();
    // On, just above and just below each Prometheus bound: `le` counts a value equal to the bound.
    const values = DURATION_BUCKETS.flatMap((b) => [b, b * (1 + 2 ** -52), b * (1 - 2 ** -53)]);
    for (const v of values) h.record(v);
    expect(h.cumulative(DURATION_BUCKETS.map(boundIndex))).toEqual(
      DURATION_BUCKETS.map((b) => values.filter((v) => v <= b).length),
    );
  });

  it('puts each value in the bucket its bounds say, at the edges too', () => {
    const next = random(1);
    const values = [0, -1, 1e-9, 1e-6, 2e4, Number.POSITIVE_INFINITY];
    for (const b of BOUNDS) values.push(b, b * (1 + 2 ** -52), b * (1 - 2 ** -53));
    for (let i = 0; i < 100_000; i++) values.push(Math.exp(Math.log(1e-7) + next() * Math.log(1e12)));
    const wrong = values.filter((v) => bucketOf(v) !== reference(v));
    expect(wrong).toEqual([]);
  });

  it('reads percentiles within the width of a bucket (4.95 %) of the true ones, clamped to min and max', () => {
    const next = random(2);
    // Log-normal durations around 20 ms, and a uniform 1…100 ms.
    for (const data of [
      Array.from({ length: 20_000 }, () => 0.02 * Math.exp(1.5 * (next() + next() + next() - 1.5))),
      Array.from({ length: 100 }, (_, i) => (i + 1) / 1000),
    ]) {
      const h = new LatencyHistogram();
      for (const v of data) h.record(v);
      const sorted = [...data].sort((a, b) => a - b);
      for (const q of [0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999]) {
        const truth = nearestRank(sorted, q);
        expect(Math.abs(h.quantile(q) - truth) / truth).toBeLessThan(0.0495);
      }
      expect(h.quantile(1)).toBe(sorted[sorted.length - 1]);
      expect(h.quantile(0)).toBe(sorted[0]);
      expect(h.count).toBe(data.length);
      expect(h.max).toBe(sorted[sorted.length - 1]);
    }
    // One value, or one repeated: exactly it. Nothing: 0.
    const one = new LatencyHistogram();
    one.record(0.0071);
    expect([one.quantile(0.5), one.quantile(0.99)]).toEqual([0.0071, 0.0071]);
    expect(new LatencyHistogram().quantile(0.5)).toBe(0);
    // Beyond the last bound: between it and the max.
    const slow = new LatencyHistogram();
    for (const v of [2e4, 3e4]) slow.record(v);
    expect(slow.quantile(0.5)).toBeGreaterThanOrEqual(2e4);
    expect(slow.quantile(1)).toBe(3e4);
  });

  it('merges exactly: two halves added are the whole, also through the portable form', () => {
    const next = random(3);
    const data = Array.from({ length: 5000 }, () => 0.001 * Math.exp(3 * next()));
    const whole = new LatencyHistogram();
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (const [i, v] of data.entries()) {
      whole.record(v);
      (i % 3 ? a : b).record(v);
    }
    const merged = LatencyHistogram.from(JSON.parse(JSON.stringify(a)))?.add(
      LatencyHistogram.from(JSON.parse(JSON.stringify(b))) as LatencyHistogram,
    );
    expect(merged).toBeDefined();
    expect([...(merged as LatencyHistogram).counts]).toEqual([...whole.counts]);
    expect(merged).toMatchObject({ count: whole.count, min: whole.min, max: whole.max });
    expect(merged?.sum).toBeCloseTo(whole.sum, 12);
    for (const q of [0.5, 0.95, 0.99]) expect(merged?.quantile(q)).toBeCloseTo(whole.quantile(q), 12);
    // Another layout, or a bucket that does not exist here, is not merged.
    expect(LatencyHistogram.from({ ...a.toJSON(), layout: 'other' })).toBeUndefined();
    expect(LatencyHistogram.from({ ...a.toJSON(), buckets: [[492, 1]] })).toBeUndefined();
    expect(a.toJSON().layout).toBe(LAYOUT);
  });

  it('starts again from nothing when reset', () => {
    const h = new LatencyHistogram();
    h.record(0.5);
    h.reset();
    expect(h.toJSON()).toEqual({ layout: LAYOUT, buckets: [], sum: 0, min: 0, max: 0 });
    expect(h.quantile(0.5)).toBe(0);
  });
});
