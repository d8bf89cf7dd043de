// The per-second call series behind the dashboard's charts.
import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/observe/events.ts';
import { MetricsSeries } from '../../src/observe/metrics-series.ts';

const call = (at: number, durationMs: number, failed = false) => ({
  type: 'call' as const,
  name: 'task.list',
  input: {},
  principal: 'p',
  transport: 'rest' as const,
  requestId: 'r',
  durationMs,
  at: new Date(at).toISOString(),
  ...(failed ? { error: { code: 'INTERNAL' as const, message: 'x' } } : {}),
});

describe('MetricsSeries', () => {
  it('counts calls and errors per second from the bus, with p50/p95, and zeros for quiet seconds', () => {
    const bus = new InProcessBus();
    const series = new MetricsSeries(bus);
    const t0 = 1_700_000_000_000;
    for (let i = 1; i <= 100; i++) bus.publish(call(t0 + 10, i, i % 10 === 0));
    bus.publish(call(t0 + 2500, 7));
    const points = series.points(t0 + 3000, t0);
    expect(points.map((p) => p.t)).toEqual([t0, t0 + 1000, t0 + 2000]);
    expect(points[0]).toMatchObject({ calls: 100, errors: 10 });
    // Read from the second's latency histogram: within 5 % of the 50th and the 95th of the durations 1…100 ms.
    expect(Math.abs(points[0].p50 - 50) / 50).toBeLessThan(0.05);
    expect(Math.abs(points[0].p95 - 95) / 95).toBeLessThan(0.05);
    expect(points[1]).toMatchObject({ calls: 0, errors: 0, p50: 0, p95: 0 });
    expect(points[2]).toMatchObject({ calls: 1, p50: 7, p95: 7 });
    series.close();
    bus.publish(call(t0 + 2600, 1));
    expect(series.points(t0 + 3000, t0)[2].calls).toBe(1);
  });

  it("keeps a second's percentiles once it is over, and counts a late call in its second", () => {
    const bus = new InProcessBus();
    const series = new MetricsSeries(bus);
    const t0 = 1_700_000_000_000;
    for (const ms of [10, 20, 30]) series.add(t0 + 100, ms, false);
    const first = series.points(t0 + 1000, t0)[0];
    expect(first).toMatchObject({ calls: 3, errors: 0 });
    // Calls ten seconds later settle the first second: the same point, the histogram handed on.
    series.add(t0 + 10_100, 5, false);
    series.add(t0 + 11_100, 7, false);
    expect(series.points(t0 + 12_000, t0)[0]).toEqual(first);
    expect(series.points(t0 + 12_000, t0)[11]).toMatchObject({ calls: 1, p50: 7, p95: 7 });
    // Another instance's late call: in its second's counts (a settled second keeps its percentiles).
    series.add(t0 + 500, 1000, true);
    expect(series.points(t0 + 12_000, t0)[0]).toEqual({ ...first, calls: 4, errors: 1 });
    series.close();
  });
});
