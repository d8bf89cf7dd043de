// system.register: an agent or worker announces itself and takes a lease of `system.instance_ttl_ms`.
// Tasks assigned to it return to pending if the lease runs out without a heartbeat.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { InstanceIdSchema, InstanceViewSchema, instanceView, leaseTtlMs, sweepExpiredInstances } from './lease.ts';

/** `system.register` — create or refresh an instance lease. */
export const systemRegister = defineCapability({
  name: 'system.register',
  title: 'Register instance',
  description:
    'Register this agent or worker with the hub so tasks can be assigned to it. Registering again with the same instanceId refreshes the lease and replaces its roles. The lease lasts ttlMs; keep it alive with system.heartbeat, or its assigned tasks go back to pending.',
  input: z.object({
    instanceId: InstanceIdSchema,
    roles: z
      .array(z.string().min(1).max(64))
      .max(32)
      .default([])
      .describe("What this instance does, e.g. ['coder', 'reviewer']. Informational; shown in system.get_state."),
  }),
  output: InstanceViewSchema.extend({
    ttlMs: z.number().int().positive().describe('Lease length; heartbeat well before it ends.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ instanceId, roles }, ctx) => {
    const { services } = ctx;
    // Sweep first so a re-registration after expiry starts from a clean slate (its old tasks released).
    await sweepExpiredInstances(services);
    const ttlMs = leaseTtlMs(services);
    const instance = await services.store.instances.register(instanceId, roles, ttlMs);
    services.bus.publish({
      type: 'instance.registered',
      id: instance.id,
      roles: instance.roles,
      at: new Date().toISOString(),
    });
    return { ...instanceView(instance), ttlMs };
  },
});
