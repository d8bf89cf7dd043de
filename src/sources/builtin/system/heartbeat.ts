// system.heartbeat: extend a registered instance's lease. An expired lease is not revived — the caller
// must register again, because its tasks may already have gone to someone else.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { InstanceIdSchema, leaseTtlMs, sweepExpiredInstances } from './lease.ts';

/** `system.heartbeat` — extend an instance lease by `system.instance_ttl_ms`. */
export const systemHeartbeat = defineCapability({
  name: 'system.heartbeat',
  title: 'Heartbeat',
  description:
    'Keep a registered instance alive: extends its lease by ttlMs from now. Call it at least every ttlMs/2. If the lease already ended the call fails with NOT_FOUND; call system.register again (tasks it held have returned to pending).',
  input: z.object({ instanceId: InstanceIdSchema }),
  output: z.object({
    instanceId: z.string(),
    expiresAt: z.string().describe('ISO time at which the lease now ends.'),
    ttlMs: z.number().int().positive(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ instanceId }, ctx) => {
    const { services } = ctx;
    // Expire first: whether a late heartbeat succeeds must not depend on when the timer last ran.
    await sweepExpiredInstances(services);
    const ttlMs = leaseTtlMs(services);
    const instance = await services.store.instances.heartbeat(instanceId, ttlMs);
    if (!instance) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `Instance '${instanceId}' is not registered (or its lease expired); call system.register first.`,
        { instanceId },
      );
    }
    return { instanceId, expiresAt: new Date(instance.expiresAt).toISOString(), ttlMs };
  },
});
