// Call rates over the last minutes, for the dashboard's charts: one bucket per second (calls, errors, p50/p95 of
// the durations), fed by the call events on the bus. The cumulative metrics (metrics.ts) say how many calls since
// start; this says how many per second just now. Kept per instance, in memory only.
import type { BusEvent, CallEvent, EventBus } from '../core/context.ts';

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
/** Durations kept per second for the percentiles; beyond it, a uniform sample of them. */
const SAMPLE = 256;

interface Bucket {
  t: number;
  calls: number;
  errors: number;
  durations: number[];
}

export class MetricsSeries {
  private readonly buckets: Bucket[] = [];
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
      b = { t, calls: 0, errors: 0, durations: [] };
      this.buckets.push(b);
      if (this.buckets.length > KEEP) this.buckets.shift();
    } else if (b.t > t) {
      // A late event (another instance's clock): count it in the bucket of its second if still kept.
      b = this.buckets.find((x) => x.t === t) ?? b;
    }
    b.calls++;
    if (failed) b.errors++;
    if (b.durations.length < SAMPLE) b.durations.push(durationMs);
    else {
      const i = Math.floor(Math.random() * b.calls);
      if (i < SAMPLE) b.durations[i] = durationMs;
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
    for (let t = start; t < end; t += 1000) out.push(point(byT.get(t) ?? { t, calls: 0, errors: 0, durations: [] }));
    return out;
  }

  close(): void {
    this.unsubscribe();
  }
}

function point(b: Bucket): SeriesPoint {
  const sorted = [...b.durations].sort((x, y) => x - y);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
  return { t: b.t, calls: b.calls, errors: b.errors, p50: round(at(0.5)), p95: round(at(0.95)) };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
