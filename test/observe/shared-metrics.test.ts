// Merging call metrics of several instances (system.metrics with scope all on a shared store).
import { describe, expect, it } from 'vitest';
import type { CapabilityMetrics } from '../../src/core/context.ts';
import { LatencyHistogram } from '../../src/observe/latency-histogram.ts';
import { CallMetrics } from '../../src/observe/metrics.ts';
import { instanceMetrics, mergeMetrics } from '../../src/observe/shared-metrics.ts';

const m = (calls: number, errors: number, p50: number, max: number, mean: number, http: number): CapabilityMetrics => ({
  calls,
  errors,
  inFlight: 1,
  latencyMs: { p50, p95: p50 * 2, p99: p50 * 3, max, mean },
  transports: { http: { calls: http, errors }, ...(calls > http ? { stdio: { calls: calls - http, errors: 0 } } : {}) },
});

describe('mergeMetrics', () => {
  it("merges the latency histograms exactly: the percentiles of all the instances' calls together", () => {
    // Instance a: 900 fast calls; instance b: 100 slow ones. The highest of the two p50s would say 200 ms.
    const a = new CallMetrics();
    const b = new CallMetrics();
    const whole = new LatencyHistogram();
    for (let i = 0; i < 900; i++) {
      a.started('echo');
      a.finished('echo', 0.001 + i * 1e-6, false, 'http');
      whole.record(0.001 + i * 1e-6);
    }
    for (let i = 0; i < 100; i++) {
      b.started('echo');
      b.finished('echo', 0.2 + i * 1e-3, i < 5, 'stdio');
      whole.record(0.2 + i * 1e-3);
    }
    const merged = mergeMetrics([instanceMetrics(a), instanceMetrics(b)]).echo;
    const ms = (s: number) => Math.round(s * 1_000_000) / 1000;
    expect(merged).toEqual({
      calls: 1000,
      errors: 5,
      inFlight: 0,
      latencyMs: {
        p50: ms(whole.quantile(0.5)),
        p95: ms(whole.quantile(0.95)),
        p99: ms(whole.quantile(0.99)),
        max: 299,
        mean: ms(whole.sum / 1000),
      },
      transports: { http: { calls: 900, errors: 0 }, stdio: { calls: 100, errors: 5 } },
    });
    expect(merged.latencyMs.p50).toBeLessThan(2);
    expect(merged.latencyMs.p95).toBeGreaterThan(200);
    // Through the store (JSON) the same.
    expect(mergeMetrics(JSON.parse(JSON.stringify([instanceMetrics(a), instanceMetrics(b)]))).echo).toEqual(merged);
  });

  it("without every instance's histogram (an older version), adds counts, keeps the highest percentiles and max, and weights the mean by calls", () => {
    const a = { echo: m(3, 1, 2, 9, 2, 3) };
    const b = { echo: m(1, 0, 5, 6, 6, 0), only_b: m(2, 0, 1, 1, 1, 2) };
    const withHistogram = new CallMetrics();
    withHistogram.started('echo');
    withHistogram.finished('echo', 0.001, false, 'http');
    for (const snapshots of [
      [{ capabilities: a }, { capabilities: b }],
      [{ capabilities: a, latency: { echo: withHistogram.latency().echo } }, { capabilities: b }],
    ]) {
      const merged = mergeMetrics(snapshots);
      expect(merged.echo).toEqual({
        calls: 4,
        errors: 1,
        inFlight: 2,
        latencyMs: { p50: 5, p95: 10, p99: 15, max: 9, mean: 3 },
        transports: { http: { calls: 3, errors: 1 }, stdio: { calls: 1, errors: 0 } },
      });
      expect(merged.only_b).toEqual(b.only_b);
    }
    // The inputs are not changed.
    expect(a.echo.calls).toBe(3);
  });

  it('adds the result-cache hits and misses of the instances that have them', () => {
    const a = { lookup: { ...m(3, 0, 1, 1, 1, 3), cache: { hits: 2, misses: 1 } } };
    const b = { lookup: m(1, 0, 1, 1, 1, 1) };
    const c = { lookup: { ...m(2, 0, 1, 1, 1, 2), cache: { hits: 1, misses: 1 } } };
    expect(mergeMetrics([b, a, c].map((capabilities) => ({ capabilities }))).lookup.cache).toEqual({
      hits: 3,
      misses: 2,
    });
    expect(mergeMetrics([{ capabilities: b }]).lookup.cache).toBeUndefined();
  });

  it('answers an empty merge for no snapshots', () => {
    expect(mergeMetrics([])).toEqual({});
  });
});
