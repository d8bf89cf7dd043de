// Call metrics of every instance on a shared store: each instance publishes its own snapshot with its heartbeat,
// with each capability's latency histogram, and `system.metrics` merges the snapshots of the instances whose lease is
// alive. Counts add up exactly, and so do the histograms (the same fixed buckets everywhere), so the merged
// p50/p95/p99 are those of every instance's calls together; the mean is weighted by calls. A snapshot without a
// histogram of this layout (an instance of an older version) makes that capability's percentiles the highest of the
// instances' instead, an upper bound.
import type { CapabilityMetrics, LatencySnapshot, MetricsView } from '../core/context.ts';
import type { Store } from '../store/contract.ts';
import { LatencyHistogram } from './latency-histogram.ts';

/** The documents namespace holding one snapshot per hub instance, keyed by its instance-list id. */
export const INSTANCE_METRICS = 'metrics.instance';

export interface InstanceMetrics {
  capabilities: Record<string, CapabilityMetrics>;
  /** Each capability's latency histogram since the instance started (absent from older versions' snapshots). */
  latency?: Record<string, LatencySnapshot>;
}

/** This instance's metrics as it publishes them. */
export function instanceMetrics(metrics: MetricsView): InstanceMetrics {
  return { capabilities: metrics.snapshot(), latency: metrics.latency() };
}

/** Write this instance's snapshot (called with every heartbeat). */
export async function publishMetrics(store: Store, id: string, metrics: MetricsView) {
  await store.documents.put(INSTANCE_METRICS, id, instanceMetrics(metrics));
}

/**
 * Every live instance's metrics, this one's taken fresh: `ownId` with `own`, the others from their last published
 * snapshot (at most a heartbeat old). Snapshots of instances whose lease ended are left out (and deleted).
 */
export async function liveSnapshots(
  store: Store,
  ownId: string,
  own: InstanceMetrics,
): Promise<Map<string, InstanceMetrics>> {
  const [docs, instances] = await Promise.all([
    store.documents.list<InstanceMetrics>(INSTANCE_METRICS),
    store.instances.list(),
  ]);
  const now = Date.now();
  const alive = new Set(instances.filter((i) => i.expiresAt > now).map((i) => i.id));
  const out = new Map<string, InstanceMetrics>([[ownId, own]]);
  for (const doc of docs) {
    if (doc.key === ownId) continue;
    if (alive.has(doc.key))
      out.set(doc.key, { capabilities: doc.value.capabilities ?? {}, latency: doc.value.latency });
    else await store.documents.delete(INSTANCE_METRICS, doc.key).catch(() => false);
  }
  return out;
}

const ms = (seconds: number) => Math.round(seconds * 1_000_000) / 1000;

/** Merge per-instance snapshots into one per capability. */
export function mergeMetrics(snapshots: Iterable<InstanceMetrics>): Record<string, CapabilityMetrics> {
  const out: Record<string, CapabilityMetrics> = {};
  /** Per capability, the instances' histograms added up; null once an instance had none to add. */
  const latency = new Map<string, LatencyHistogram | null>();
  for (const snapshot of snapshots) {
    for (const [name, m] of Object.entries(snapshot.capabilities)) {
      const own = snapshot.latency?.[name];
      const histogram = own && LatencyHistogram.from(own);
      const merged = latency.get(name);
      latency.set(name, merged === null || !histogram ? null : merged ? merged.add(histogram) : histogram);
      const into = out[name];
      if (!into) {
        out[name] = structuredClone(m);
        continue;
      }
      const calls = into.calls + m.calls;
      into.latencyMs = {
        p50: Math.max(into.latencyMs.p50, m.latencyMs.p50),
        p95: Math.max(into.latencyMs.p95, m.latencyMs.p95),
        p99: Math.max(into.latencyMs.p99, m.latencyMs.p99),
        max: Math.max(into.latencyMs.max, m.latencyMs.max),
        mean: calls
          ? Math.round(((into.latencyMs.mean * into.calls + m.latencyMs.mean * m.calls) / calls) * 1000) / 1000
          : 0,
      };
      into.calls = calls;
      into.errors += m.errors;
      into.inFlight += m.inFlight;
      for (const [t, c] of Object.entries(m.transports)) {
        const tt = into.transports[t];
        into.transports[t] = { calls: (tt?.calls ?? 0) + c.calls, errors: (tt?.errors ?? 0) + c.errors };
      }
      if (m.cache)
        into.cache = {
          hits: (into.cache?.hits ?? 0) + m.cache.hits,
          misses: (into.cache?.misses ?? 0) + m.cache.misses,
        };
    }
  }
  // Every instance had a histogram: the percentiles and mean of all their calls together.
  for (const [name, h] of latency) {
    if (!h) continue;
    const m = out[name].latencyMs;
    m.p50 = ms(h.quantile(0.5));
    m.p95 = ms(h.quantile(0.95));
    m.p99 = ms(h.quantile(0.99));
    m.mean = h.count ? ms(h.sum / h.count) : 0;
  }
  return out;
}
