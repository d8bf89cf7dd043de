// Per-capability call metrics kept in memory since the hub started: counts, errors, in-flight and a latency histogram
// for percentiles. Fed by the pipeline's observer; read by system.metrics (Prometheus /metrics is prometheus.ts).
import type { CapabilityMetrics, LatencySnapshot, MetricsView } from '../core/context.ts';
import { bucketOf, LatencyHistogram } from './latency-histogram.ts';

class Series {
  calls = 0;
  errors = 0;
  inFlight = 0;
  readonly latency = new LatencyHistogram();

  readonly transports: Record<string, { calls: number; errors: number }> = {};
  /** Set by the first call the result cache saw (a capability without a cache never has one). */
  cache?: { hits: number; misses: number };

  record(seconds: number, bucket: number, failed: boolean, transport: string): void {
    this.calls++;
    if (failed) this.errors++;
    let t = this.transports[transport];
    if (!t) {
      t = { calls: 0, errors: 0 };
      this.transports[transport] = t;
    }
    t.calls++;
    if (failed) t.errors++;
    this.latency.record(seconds, bucket);
  }

  view(): CapabilityMetrics {
    const h = this.latency;
    return {
      calls: this.calls,
      errors: this.errors,
      inFlight: this.inFlight,
      latencyMs: {
        p50: ms(h.quantile(0.5)),
        p95: ms(h.quantile(0.95)),
        p99: ms(h.quantile(0.99)),
        max: ms(h.max),
        mean: h.count ? ms(h.sum / h.count) : 0,
      },
      transports: structuredClone(this.transports),
      ...(this.cache ? { cache: { ...this.cache } } : {}),
    };
  }
}

/** Seconds as milliseconds to the microsecond. */
const ms = (seconds: number) => Math.round(seconds * 1_000_000) / 1000;

export class CallMetrics implements MetricsView {
  private readonly series = new Map<string, Series>();

  private get(name: string): Series {
    let s = this.series.get(name);
    if (!s) {
      s = new Series();
      this.series.set(name, s);
    }
    return s;
  }

  started(name: string): void {
    this.get(name).inFlight++;
  }

  /** A call ended after `seconds` (`bucket`: their bucketOf, when the caller has it already). */
  finished(name: string, seconds: number, failed: boolean, transport = 'internal', bucket = bucketOf(seconds)): void {
    const s = this.get(name);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.record(seconds, bucket, failed, transport);
  }

  /** A call of a capability that keeps results was answered from them (`hit`) or ran (`miss`). */
  cached(name: string, result: 'hit' | 'miss'): void {
    const s = this.get(name);
    s.cache ??= { hits: 0, misses: 0 };
    if (result === 'hit') s.cache.hits++;
    else s.cache.misses++;
  }

  snapshot(): Record<string, CapabilityMetrics> {
    const out: Record<string, CapabilityMetrics> = {};
    for (const [name, s] of [...this.series].sort(([a], [b]) => a.localeCompare(b))) out[name] = s.view();
    return out;
  }

  latency(): Record<string, LatencySnapshot> {
    const out: Record<string, LatencySnapshot> = {};
    for (const [name, s] of this.series) out[name] = s.latency.toJSON();
    return out;
  }
}
