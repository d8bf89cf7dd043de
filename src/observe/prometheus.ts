// Prometheus metrics through prom-client: calls, errors, in-flight and a latency histogram per capability
// and transport, circuit-breaker states, and (once the HTTP server starts) the process's own; served at GET /metrics.
//
// The per-call series are plain numbers on the hot path, handed to prom-client when scraped: prom-client hashes
// the labels on every update, even through label-bound children — about 1.3 µs per call for the four updates,
// against a whole pipeline of about 15 µs (BENCHMARKS.md, issue 3).
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import type { BreakerView } from '../policy/breaker.ts';
import { boundIndex, bucketOf, LatencyHistogram } from './latency-histogram.ts';

const BREAKER_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Upper bounds of the latency histogram, in seconds: each a bound of LatencyHistogram, whose counts they sum. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Where each of them is among the histogram's bounds (throws at load if one is not exactly one of them). */
const DURATION_INDEXES = DURATION_BUCKETS.map(boundIndex);

/** One capability × transport: what the hot path updates. */
class CallSeries {
  inFlight = 0;
  ok = 0;
  failed = 0;
  /** Latencies since start (or the last reset), in seconds; `_bucket`, `_sum` and `_count` are read from it. */
  readonly latency = new LatencyHistogram();

  constructor(readonly labels: { capability: string; transport: string }) {}
}

/**
 * The latency histogram as prom-client exports one (cumulative `_bucket` series with `le`, then `+Inf`, `_sum`,
 * `_count`), read from the call series when scraped; prom-client's Histogram has no way to be set from counts.
 */
class DurationHistogram {
  readonly name = 'switchboard_call_duration_seconds';
  readonly help = 'Call latency, from lookup to outcome.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(private readonly series: () => Iterable<CallSeries>) {}

  /** The form the text exposition reads: `le` as the label, the series' labels shared (as prom-client's own). */
  async getForPromString() {
    type Value = { labels: object; sharedLabels: object; value: number; metricName: string };
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series()) {
      const { latency } = s;
      for (const [i, value] of latency.cumulative(DURATION_INDEXES).entries())
        values.push({ labels: { le: DURATION_BUCKETS[i] }, sharedLabels: s.labels, value, metricName: bucket });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: latency.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: s.labels, value: latency.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: latency.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (`getMetricsAsJSON`): every label on the value. */
  async get() {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...sharedLabels, ...labels },
        value,
        metricName,
      })),
    };
  }

  /** `registry.resetMetrics()`: the call counts start again from zero (they are read from the same series). */
  reset(): void {
    for (const s of this.series()) {
      s.latency.reset();
      s.ok = 0;
      s.failed = 0;
    }
  }
}

export class PromMetrics {
  readonly registry = new Registry();
  private readonly errors: Counter<'capability' | 'transport' | 'code'>;
  private readonly cacheLookups: Counter<'capability' | 'result'>;
  /** Per capability, then transport: two lookups and no key to build on every call. */
  private readonly series = new Map<string, Map<string, CallSeries>>();

  constructor(breakers: () => Record<string, BreakerView>) {
    const registers = [this.registry];
    const series = () => this.allSeries();
    new Counter({
      name: 'switchboard_calls_total',
      help: 'Calls by capability, transport and outcome.',
      labelNames: ['capability', 'transport', 'outcome'],
      registers,
      collect() {
        this.reset();
        for (const s of series()) {
          if (s.ok) this.inc({ ...s.labels, outcome: 'ok' }, s.ok);
          if (s.failed) this.inc({ ...s.labels, outcome: 'error' }, s.failed);
        }
      },
    });
    this.errors = new Counter({
      name: 'switchboard_call_errors_total',
      help: 'Failed calls by error code.',
      labelNames: ['capability', 'transport', 'code'],
      registers,
    });
    this.cacheLookups = new Counter({
      name: 'switchboard_cache_lookups_total',
      help: 'Calls of capabilities that keep results (policy.cache), by whether a kept result answered (hit) or the call ran (miss).',
      labelNames: ['capability', 'result'],
      registers,
    });
    new Gauge({
      name: 'switchboard_calls_in_flight',
      help: 'Calls running now.',
      labelNames: ['capability', 'transport'],
      registers,
      collect() {
        this.reset();
        for (const s of series()) this.set(s.labels, s.inFlight);
      },
    });
    this.registry.registerMetric(new DurationHistogram(series) as unknown as Metric);
    new Gauge({
      name: 'switchboard_breaker_state',
      help: 'Circuit breaker state per capability: 0 closed, 1 half-open, 2 open.',
      labelNames: ['capability'],
      registers,
      collect() {
        this.reset();
        for (const [capability, view] of Object.entries(breakers()))
          this.set({ capability }, BREAKER_VALUE[view.state]);
      },
    });
  }

  private processMetrics = false;

  /**
   * prom-client's process metrics (CPU, memory, heap, event-loop lag, GC) from now on. The HTTP server, the one
   * place that serves /metrics, starts them; a stdio server does not pay for their observers at start-up.
   */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'switchboard_' });
  }

  private seriesFor(capability: string, transport: string): CallSeries {
    let byTransport = this.series.get(capability);
    if (!byTransport) {
      byTransport = new Map();
      this.series.set(capability, byTransport);
    }
    let s = byTransport.get(transport);
    if (!s) {
      s = new CallSeries({ capability, transport });
      byTransport.set(transport, s);
    }
    return s;
  }

  private *allSeries(): Iterable<CallSeries> {
    for (const byTransport of this.series.values()) yield* byTransport.values();
  }

  started(capability: string, transport: string): void {
    this.seriesFor(capability, transport).inFlight++;
  }

  /** A call ended after `seconds` (`bucket`: their bucketOf, when the caller has it already). */
  finished(
    capability: string,
    transport: string,
    seconds: number,
    errorCode?: string,
    bucket = bucketOf(seconds),
  ): void {
    const s = this.seriesFor(capability, transport);
    s.inFlight--;
    if (errorCode) {
      s.failed++;
      this.errors.inc({ capability, transport, code: errorCode });
    } else s.ok++;
    s.latency.record(seconds, bucket);
  }

  /** A call of a capability that keeps results was answered from them (`hit`) or ran (`miss`). */
  cached(capability: string, result: 'hit' | 'miss'): void {
    this.cacheLookups.inc({ capability, result });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  prometheus(): Promise<string> {
    return this.registry.metrics();
  }
}
