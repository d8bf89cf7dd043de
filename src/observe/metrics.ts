// Per-capability call metrics kept in memory: counts, errors, in-flight and a latency window for
// percentiles. Fed by the pipeline's observer; read by system.metrics (Prometheus /metrics is prometheus.ts).
import type { CapabilityMetrics, MetricsView } from '../core/context.ts';

const WINDOW = 1024;

class Series {
  calls = 0;
  errors = 0;
  inFlight = 0;
  private readonly samples = new Float64Array(WINDOW);
  private n = 0;
  private sum = 0;
  private max = 0;

  readonly transports: Record<string, { calls: number; errors: number }> = {};
  /** Set by the first call the result cache saw (a capability without a cache never has one). */
  cache?: { hits: number; misses: number };

  record(ms: number, failed: boolean, transport: string): void {
    this.calls++;
    if (failed) this.errors++;
    let t = this.transports[transport];
    if (!t) {
      t = { calls: 0, errors: 0 };
      this.transports[transport] = t;
    }
    t.calls++;
    if (failed) t.errors++;
    this.samples[this.n % WINDOW] = ms;
    this.n++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  view(): CapabilityMetrics {
    const k = Math.min(this.n, WINDOW);
    const sorted = Array.from(this.samples.subarray(0, k)).sort((a, b) => a - b);
    const q = (p: number) => (k ? round(sorted[Math.min(k - 1, Math.floor(p * k))]) : 0);
    return {
      calls: this.calls,
      errors: this.errors,
      inFlight: this.inFlight,
      latencyMs: {
        p50: q(0.5),
        p95: q(0.95),
        p99: q(0.99),
        max: round(this.max),
        mean: this.calls ? round(this.sum / this.calls) : 0,
      },
      transports: structuredClone(this.transports),
      ...(this.cache ? { cache: { ...this.cache } } : {}),
    };
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

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

  finished(name: string, ms: number, failed: boolean, transport = 'internal'): void {
    const s = this.get(name);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.record(ms, failed, transport);
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
}
