// system.metrics: per-capability call counts, errors, in-flight calls and latency percentiles since start.
// Read from the in-memory metrics the pipeline feeds; on a shared (Redis) store, merged with the snapshots the
// other live instances publish with their heartbeat, latency histograms included (observe/shared-metrics.ts).
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { hubInstanceId } from '../../../core/hub-instance.ts';
import { visible } from '../../../core/registry.ts';
import { instanceMetrics, liveSnapshots, mergeMetrics } from '../../../observe/shared-metrics.ts';

const MetricsSchema = z.object({
  calls: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  latencyMs: z.object({ p50: z.number(), p95: z.number(), p99: z.number(), max: z.number(), mean: z.number() }),
  transports: z
    .record(z.string(), z.object({ calls: z.number().int().nonnegative(), errors: z.number().int().nonnegative() }))
    .describe('Calls and errors per transport: stdio, http, rest, cli, internal.'),
  cache: z
    .object({ hits: z.number().int().nonnegative(), misses: z.number().int().nonnegative() })
    .optional()
    .describe('For a capability that keeps results: calls answered from a kept result (hits) and calls that ran.'),
});

/** `system.metrics` — call metrics per capability plus totals. */
export const systemMetrics = defineCapability({
  name: 'system.metrics',
  title: 'Call metrics',
  description:
    'Get call metrics per capability since the hub started. For each: calls, failed calls, calls in flight and latency in ms (p50, p95, p99 within 5 %, max, mean, all since start) and calls per transport, plus totals. With several instances on one Redis store, scope "all" (the default) adds up every live instance (latencies merged exactly, another instance\'s up to a heartbeat old) and scope "instance" shows only the one answering. Use it to spot failing or slow tools.',
  input: z.object({
    scope: z
      .enum(['all', 'instance'])
      .default('all')
      .describe(
        'all: every live instance sharing the store (the same as instance on a single machine); instance: only this one.',
      ),
  }),
  output: z.object({
    instances: z.array(z.string()).describe('Instances whose calls are counted (instance-list ids).'),
    capabilities: z.record(z.string(), MetricsSchema),
    totals: z.object({ calls: z.number().int().nonnegative(), errors: z.number().int().nonnegative() }),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async (input, ctx) => {
    const { metrics, registry, store, instanceId } = ctx.services;
    let snapshot = metrics.snapshot();
    let instances = [hubInstanceId(instanceId)];
    if (input.scope === 'all' && store.kind === 'redis') {
      const live = await liveSnapshots(store, instances[0], instanceMetrics(metrics));
      snapshot = mergeMetrics(live.values());
      instances = [...live.keys()].sort();
    }
    const capabilities: Record<string, z.output<typeof MetricsSchema>> = {};
    let calls = 0;
    let errors = 0;
    for (const [name, m] of Object.entries(snapshot)) {
      // Hide what the caller may not see; capabilities removed since keep their history.
      const entry = registry.get(name);
      if (entry && !visible(ctx.principal, entry.capability)) continue;
      capabilities[name] = m;
      calls += m.calls;
      errors += m.errors;
    }
    return { instances, capabilities, totals: { calls, errors } };
  },
});
