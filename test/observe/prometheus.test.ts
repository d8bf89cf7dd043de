// PromMetrics keeps the per-call series as plain numbers and hands them to prom-client when scraped: the text
// must be exactly what prom-client's own Counter, Gauge and Histogram print for the same calls.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { DURATION_BUCKETS, PromMetrics } from '../../src/observe/prometheus.ts';

/** The lines of one metric family (HELP, TYPE and samples) from a text exposition. */
function family(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter(
      (l) =>
        l === `# HELP ${name}` ||
        l.startsWith(`# HELP ${name} `) ||
        l.startsWith(`# TYPE ${name} `) ||
        /^[a-z_]+/.exec(l)?.[0]?.replace(/_(bucket|sum|count)$/, '') === name,
    );
}

it('prints calls, errors, in-flight calls and latencies as prom-client does', async () => {
  const metrics = new PromMetrics(() => ({ 'task.create': { state: 'open', failures: 5, openedAt: null, opens: 1 } }));
  const reference = new Registry();
  const calls = new Counter({
    name: 'switchboard_calls_total',
    help: 'Calls by capability, transport and outcome.',
    labelNames: ['capability', 'transport', 'outcome'],
    registers: [reference],
  });
  const errors = new Counter({
    name: 'switchboard_call_errors_total',
    help: 'Failed calls by error code.',
    labelNames: ['capability', 'transport', 'code'],
    registers: [reference],
  });
  const inFlight = new Gauge({
    name: 'switchboard_calls_in_flight',
    help: 'Calls running now.',
    labelNames: ['capability', 'transport'],
    registers: [reference],
  });
  const duration = new Histogram({
    name: 'switchboard_call_duration_seconds',
    help: 'Call latency, from lookup to outcome.',
    labelNames: ['capability', 'transport'],
    buckets: DURATION_BUCKETS,
    registers: [reference],
  });

  // Latencies on, between and beyond the bounds; two capabilities, two transports, failures with codes.
  const seconds = [0, 0.0001, 0.0005, 0.0007, 0.001, 0.003, 0.05, 0.2, 1, 4, 30, 31, 120];
  const cases: [string, string, string | undefined][] = [
    ['echo', 'stdio', undefined],
    ['echo', 'rest', undefined],
    ['task.create', 'rest', 'INVALID_INPUT'],
    ['task.create', 'rest', undefined],
    ['echo', 'stdio', 'TIMEOUT'],
  ];
  for (const [i, s] of seconds.entries()) {
    const [capability, transport, code] = cases[i % cases.length];
    metrics.started(capability, transport);
    inFlight.inc({ capability, transport });
    metrics.finished(capability, transport, s, code);
    inFlight.dec({ capability, transport });
    calls.inc({ capability, transport, outcome: code ? 'error' : 'ok' });
    if (code) errors.inc({ capability, transport, code });
    duration.observe({ capability, transport }, s);
  }
  // One call still running.
  metrics.started('echo', 'http');
  inFlight.inc({ capability: 'echo', transport: 'http' });
  duration.zero({ capability: 'echo', transport: 'http' });

  const text = await metrics.prometheus();
  const expected = await reference.metrics();
  for (const name of [
    'switchboard_calls_total',
    'switchboard_call_errors_total',
    'switchboard_calls_in_flight',
    'switchboard_call_duration_seconds',
  ]) {
    const ours = family(text, name);
    expect(ours.length).toBeGreaterThan(2);
    expect(ours.sort()).toEqual(family(expected, name).sort());
  }
  expect(text).toContain('switchboard_calls_in_flight{capability="echo",transport="http"} 1');
  expect(text).toContain('switchboard_call_duration_seconds_bucket{le="+Inf",capability="echo",transport="stdio"} 5');
  expect(text).toContain('switchboard_breaker_state{capability="task.create"} 2');
  // The JSON form carries every label on each value.
  const json = await metrics.registry.getMetricsAsJSON();
  const histogram = json.find((m) => m.name === 'switchboard_call_duration_seconds');
  expect(histogram?.values).toContainEqual({
    labels: { capability: 'echo', transport: 'stdio', le: 0.001 },
    value: 2,
    metricName: 'switchboard_call_duration_seconds_bucket',
  });
});

it('starts again from zero when the registry is reset', async () => {
  const metrics = new PromMetrics(() => ({}));
  metrics.started('echo', 'stdio');
  metrics.finished('echo', 'stdio', 0.002);
  metrics.registry.resetMetrics();
  const text = await metrics.prometheus();
  expect(text).toContain('switchboard_call_duration_seconds_count{capability="echo",transport="stdio"} 0');
  expect(text).not.toMatch(/switchboard_calls_total\{/);
});
