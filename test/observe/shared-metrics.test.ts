// Merging call metrics of several instances (system.metrics with scope all on a shared store).
import { describe, expect, it } from 'vitest';
import type { CapabilityMetrics } from '../../src/core/context.ts';
import { mergeMetrics } from '../../src/observe/shared-metrics.ts';

const m = (calls: number, errors: number, p50: number, max: number, mean: number, http: number): CapabilityMetrics => ({
  calls,
  errors,
  inFlight: 1,
  latencyMs: { p50, p95: p50 * 2, p99: p50 * 3, max, mean },
  transports: { http: { calls: http, errors }, ...(calls > http ? { stdio: { calls: calls - http, errors: 0 } } : {}) },
});

describe('mergeMetrics', () => {
  it('adds counts, keeps the highest percentiles and max, and weights the mean by calls', () => {
    const a = { echo: m(3, 1, 2, 9, 2, 3) };
    const b = { echo: m(1, 0, 5, 6, 6, 0), only_b: m(2, 0, 1, 1, 1, 2) };
    const merged = mergeMetrics([a, b]);
    expect(merged.echo).toEqual({
      calls: 4,
      errors: 1,
      inFlight: 2,
      latencyMs: { p50: 5, p95: 10, p99: 15, max: 9, mean: 3 },
      transports: { http: { calls: 3, errors: 1 }, stdio: { calls: 1, errors: 0 } },
    });
    expect(merged.only_b).toEqual(b.only_b);
    // The inputs are not changed.
    expect(a.echo.calls).toBe(3);
  });

  it('adds the result-cache hits and misses of the instances that have them', () => {
    const a = { lookup: { ...m(3, 0, 1, 1, 1, 3), cache: { hits: 2, misses: 1 } } };
    const b = { lookup: m(1, 0, 1, 1, 1, 1) };
    const c = { lookup: { ...m(2, 0, 1, 1, 1, 2), cache: { hits: 1, misses: 1 } } };
    expect(mergeMetrics([b, a, c]).lookup.cache).toEqual({ hits: 3, misses: 2 });
    expect(mergeMetrics([b]).lookup.cache).toBeUndefined();
  });

  it('answers an empty merge for no snapshots', () => {
    expect(mergeMetrics([])).toEqual({});
  });
});
