// Call rates over the last minutes, for the dashboard's charts: one bucket per second (calls, errors, p50/p95 of
// the durations from a latency histogram), fed by the call events on the bus. The cumulative metrics (metrics.ts) say
// how many calls since start; this says how many per second just now. Kept per instance, in memory only.
import type { BusEvent, CallEvent, EventBus } from '../core/context.ts';
import { LatencyHistogram } from './latency-histogram.ts';

export interface SeriesPoint {
  /** Start of the second, epoch ms. */
  t: number;
  calls: number;
  errors: number;
  p50: number;
  p95: number;
}

/** Ten minutes of seconds. */
const KEEP = 600;
/**
 * How long a second's durations stay in a histogram, for late events (another instance's, on a shared bus); then
 * its p50 and p95 are kept as two numbers and a later event counts only in its calls and errors.
 */
const OPEN_MS = 5000;

interface Bucket {
  t: number;
  calls: number;
  errors: number;
  /** The durations while the second is open; then p50 and p95 hold what it said, in ms. */
  latency?: LatencyHistogram;
  p50: number;
  p95: number;
}

export class MetricsSeries {
  private readonly buckets: Bucket[] = [];
  /** Histograms of settled seconds, for the next ones (a few: only the last OPEN_MS seconds have one). */
  private readonly spare: LatencyHistogram[] = [];
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus) {
    this.unsubscribe = bus.subscribe((event: BusEvent) => {
      if (event.type !== 'call') return;
      const call = event as CallEvent;
      this.add(Date.parse(call.at) || Date.now(), call.durationMs, !!call.error);
    });
  }

  add(at: number, durationMs: number, failed: boolean): void {
    const t = at - (at % 1000);
    let b = this.buckets[this.buckets.length - 1];
    if (!b || b.t < t) {
      this.settle(t - OPEN_MS);
      b = { t, calls: 0, errors: 0, latency: this.spare.pop() ?? new LatencyHistogram(), p50: 0, p95: 0 };
      this.buckets.push(b);
      if (this.buckets.length > KEEP) this.buckets.shift();
    } else if (b.t > t) {
      // A late event (another instance's clock): count it in the bucket of its second if still kept.
      b = this.buckets.find((x) => x.t === t) ?? b;
    }
    b.calls++;
    if (failed) b.errors++;
    b.latency?.record(durationMs / 1000);
  }

  /** Seconds that started before `before` keep their percentiles as numbers and hand their histogram on. */
  private settle(before: number): void {
    for (let i = this.buckets.length - 1; i >= 0; i--) {
      const b = this.buckets[i];
      if (b.t >= before) continue;
      if (!b.latency) break;
      b.p50 = ms(b.latency.quantile(0.5));
      b.p95 = ms(b.latency.quantile(0.95));
      b.latency.reset();
      this.spare.push(b.latency);
      b.latency = undefined;
    }
  }

  /**
   * One point per second from `since` (default: ten minutes ago) up to the last whole second before `now`, seconds
   * without calls included as zeros, so a chart's x axis is time.
   */
  points(now = Date.now(), since = now - KEEP * 1000): SeriesPoint[] {
    const end = now - (now % 1000);
    const start = Math.max(since - (since % 1000), end - KEEP * 1000);
    const byT = new Map(this.buckets.map((b) => [b.t, b]));
    const out: SeriesPoint[] = [];
    for (let t = start; t < end; t += 1000) {
      const b = byT.get(t);
      out.push(b ? point(b) : { t, calls: 0, errors: 0, p50: 0, p95: 0 });
    }
    return out;
  }

  close(): void {
    this.unsubscribe();
  }
}

/** A second's point: its percentiles from its histogram while it is open, then as kept. */
function point({ t, calls, errors, latency, p50, p95 }: Bucket): SeriesPoint {
  return latency
    ? { t, calls, errors, p50: ms(latency.quantile(0.5)), p95: ms(latency.quantile(0.95)) }
    : { t, calls, errors, p50, p95 };
}

/** Seconds as milliseconds, to two decimals. */
const ms = (seconds: number) => Math.round(seconds * 100_000) / 100;
