// system.health: the hub's own health and that of each component (store, later upstream servers).
// The worst component status is the hub's status, so one glance tells a caller whether to proceed.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';

/** How long a health answer is kept for callers with the same roles (`[policy.capabilities."system.health"] cache_ms`). */
export const HEALTH_CACHE_MS = 1000;

const StatusSchema = z.enum(['healthy', 'degraded', 'unhealthy']);

/** `system.health` — run every registered health check. */
export const systemHealth = defineCapability({
  name: 'system.health',
  title: 'Hub health',
  description:
    "Check whether Switchboard and its components (store, connected servers, loaded files) are working. Returns an overall status ('healthy', 'degraded' or 'unhealthy'), one entry per component with a detail, files that failed to load, the uptime and this hub's instance id. Call it when other tools fail unexpectedly.",
  input: z.object({}),
  output: z.object({
    status: StatusSchema,
    services: z.record(z.string(), z.object({ status: StatusSchema, detail: z.string().optional() })),
    uptimeMs: z.number().int().nonnegative(),
    instanceId: z.string(),
    problems: z
      .array(
        z.object({
          source: z.enum(['handlers', 'plugins', 'scripts']),
          file: z.string(),
          line: z.number().int().optional(),
          column: z.number().int().optional(),
          message: z.string(),
        }),
      )
      .describe('Files found but not loaded (a handler module, plugin manifest or compiled script), each with why.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // ClaudeBench keeps its health for 30 s (`@Instrumented(30)`); a second is enough to spare the checks a flood of
  // probes and short enough that a change shows at once. Per instance: the answer is this hub's own health.
  policy: { cache: { ttlMs: HEALTH_CACHE_MS, perInstance: true } },
  handle: async (_input, ctx) => {
    const { health, startedAt, instanceId, problems } = ctx.services;
    const report = await health.run();
    return {
      ...report,
      uptimeMs: Math.max(0, Date.now() - startedAt.getTime()),
      instanceId,
      problems: problems.forCaller(),
    };
  },
});
