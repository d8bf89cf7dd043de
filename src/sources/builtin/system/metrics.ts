// system.metrics: per-capability call counts, errors, in-flight calls and latency percentiles since start.
// Read from the in-memory metrics the pipeline feeds; nothing here touches the store.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { visible } from '../../../core/registry.ts';

const MetricsSchema = z.object({
  calls: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  latencyMs: z.object({ p50: z.number(), p95: z.number(), p99: z.number(), max: z.number(), mean: z.number() }),
  transports: z
    .record(z.string(), z.object({ calls: z.number().int().nonnegative(), errors: z.number().int().nonnegative() }))
    .describe('Calls and errors per transport: stdio, http, rest, cli, internal.'),
});

/** `system.metrics` — call metrics per capability plus totals. */
export const systemMetrics = defineCapability({
  name: 'system.metrics',
  title: 'Call metrics',
  description:
    'Get call metrics per capability since the hub started. For each: calls, failed calls, calls in flight and latency in ms (p50, p95, p99 over the last 1024 calls, max, mean) and calls per transport, plus totals. Use it to spot failing or slow tools.',
  input: z.object({}),
  output: z.object({
    capabilities: z.record(z.string(), MetricsSchema),
    totals: z.object({ calls: z.number().int().nonnegative(), errors: z.number().int().nonnegative() }),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: (_input, ctx) => {
    const { metrics, registry } = ctx.services;
    const capabilities: Record<string, z.output<typeof MetricsSchema>> = {};
    let calls = 0;
    let errors = 0;
    for (const [name, m] of Object.entries(metrics.snapshot())) {
      // Hide what the caller may not see; capabilities removed since keep their history.
      const entry = registry.get(name);
      if (entry && !visible(ctx.principal, entry.capability)) continue;
      capabilities[name] = m;
      calls += m.calls;
      errors += m.errors;
    }
    return { capabilities, totals: { calls, errors } };
  },
});
