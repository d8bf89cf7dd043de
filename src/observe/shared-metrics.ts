// Call metrics of every instance on a shared store: each instance publishes its own snapshot with its heartbeat,
// and `system.metrics` merges the snapshots of the instances whose lease is alive. Counts add up exactly;
// percentiles cannot be merged from percentiles, so the merged p50/p95/p99 are the highest of the instances'
// (an upper bound, said in docs/scale-out.md), and the mean is weighted by calls.
import type { CapabilityMetrics } from '../core/context.ts';
import type { Store } from '../store/contract.ts';

/** The documents namespace holding one snapshot per hub instance, keyed by its instance-list id. */
export const INSTANCE_METRICS = 'metrics.instance';

export interface InstanceMetrics {
  capabilities: Record<string, CapabilityMetrics>;
}

/** Write this instance's snapshot (called with every heartbeat). */
export async function publishMetrics(store: Store, id: string, capabilities: Record<string, CapabilityMetrics>) {
  await store.documents.put(INSTANCE_METRICS, id, { capabilities } satisfies InstanceMetrics);
}

/**
 * Every live instance's metrics, this one's taken fresh: `ownId` with `own`, the others from their last published
 * snapshot (at most a heartbeat old). Snapshots of instances whose lease ended are left out (and deleted).
 */
export async function liveSnapshots(
  store: Store,
  ownId: string,
  own: Record<string, CapabilityMetrics>,
): Promise<Map<string, Record<string, CapabilityMetrics>>> {
  const [docs, instances] = await Promise.all([
    store.documents.list<InstanceMetrics>(INSTANCE_METRICS),
    store.instances.list(),
  ]);
  const now = Date.now();
  const alive = new Set(instances.filter((i) => i.expiresAt > now).map((i) => i.id));
  const out = new Map<string, Record<string, CapabilityMetrics>>([[ownId, own]]);
  for (const doc of docs) {
    if (doc.key === ownId) continue;
    if (alive.has(doc.key)) out.set(doc.key, doc.value.capabilities ?? {});
    else await store.documents.delete(INSTANCE_METRICS, doc.key).catch(() => false);
  }
  return out;
}

/** Merge per-instance snapshots into one per capability. */
export function mergeMetrics(
  snapshots: Iterable<Record<string, CapabilityMetrics>>,
): Record<string, CapabilityMetrics> {
  const out: Record<string, CapabilityMetrics> = {};
  for (const snapshot of snapshots) {
    for (const [name, m] of Object.entries(snapshot)) {
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
  return out;
}
