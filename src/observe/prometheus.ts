// Prometheus metrics through prom-client: calls, errors, in-flight and a latency histogram per capability
// and transport, circuit-breaker states, and the process's own metrics; served at GET /metrics.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BreakerView } from '../policy/breaker.ts';

const BREAKER_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

export class PromMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'capability' | 'transport' | 'outcome'>;
  private readonly errors: Counter<'capability' | 'transport' | 'code'>;
  private readonly inFlight: Gauge<'capability' | 'transport'>;
  private readonly duration: Histogram<'capability' | 'transport'>;

  constructor(breakers: () => Record<string, BreakerView>) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: 'switchboard_calls_total',
      help: 'Calls by capability, transport and outcome.',
      labelNames: ['capability', 'transport', 'outcome'],
      registers,
    });
    this.errors = new Counter({
      name: 'switchboard_call_errors_total',
      help: 'Failed calls by error code.',
      labelNames: ['capability', 'transport', 'code'],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'switchboard_calls_in_flight',
      help: 'Calls running now.',
      labelNames: ['capability', 'transport'],
      registers,
    });
    this.duration = new Histogram({
      name: 'switchboard_call_duration_seconds',
      help: 'Call latency, from lookup to outcome.',
      labelNames: ['capability', 'transport'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
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
    collectDefaultMetrics({ register: this.registry, prefix: 'switchboard_' });
  }

  /** Label-bound children per capability × transport, so the hot path skips label hashing. */
  private readonly series = new Map<
    string,
    {
      inFlight: Gauge.Internal<string>;
      ok: Counter.Internal;
      failed: Counter.Internal;
      duration: Histogram.Internal<string>;
    }
  >();

  private seriesFor(capability: string, transport: string) {
    const key = `${capability}\0${transport}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        inFlight: this.inFlight.labels(capability, transport),
        ok: this.calls.labels(capability, transport, 'ok'),
        failed: this.calls.labels(capability, transport, 'error'),
        duration: this.duration.labels(capability, transport),
      };
      this.series.set(key, s);
    }
    return s;
  }

  started(capability: string, transport: string): void {
    this.seriesFor(capability, transport).inFlight.inc();
  }

  finished(capability: string, transport: string, seconds: number, errorCode?: string): void {
    const s = this.seriesFor(capability, transport);
    s.inFlight.dec();
    (errorCode ? s.failed : s.ok).inc();
    if (errorCode) this.errors.inc({ capability, transport, code: errorCode });
    s.duration.observe(seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  prometheus(): Promise<string> {
    return this.registry.metrics();
  }
}
