// Instance leases: the id and view schemas, the configured TTL and the expiry sweep that hands an
// expired instance's tasks back to the board. Shared by system.register, .heartbeat, .get_state and the timer.
import { z } from 'zod';
import type { Services } from '../../../core/context.ts';
import type { Instance } from '../../../store/contract.ts';

/** Used when the configuration carries no `system.instance_ttl_ms` (the schema default is the same). */
export const DEFAULT_INSTANCE_TTL_MS = 30_000;

/** An instance id as clients choose it: 1..128 characters of `[A-Za-z0-9_.:-]`. */
export const InstanceIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.:-]+$/, "Use only letters, digits and '_', '.', ':', '-' (e.g. 'claude-1' or 'host:worker.2').")
  .describe("Stable id of the calling agent or worker, e.g. 'claude-1'.");

/** An instance as system tools return it: times as ISO strings so a model can read them. */
export const InstanceViewSchema = z.object({
  id: z.string(),
  roles: z.array(z.string()),
  registeredAt: z.string().describe('ISO time of the first registration.'),
  lastSeenAt: z.string().describe('ISO time of the last register or heartbeat.'),
  expiresAt: z.string().describe('ISO time at which the lease ends unless a heartbeat extends it.'),
});
export type InstanceView = z.output<typeof InstanceViewSchema>;

/**
 * The wire view of a stored instance.
 *
 * @example
 * instanceView(await store.instances.register('w1', [], 30_000)).expiresAt // '2030-01-01T00:00:30.000Z'
 */
export function instanceView(instance: Instance): InstanceView {
  return {
    id: instance.id,
    roles: instance.roles,
    registeredAt: instance.registeredAt,
    lastSeenAt: instance.lastSeenAt,
    expiresAt: new Date(instance.expiresAt).toISOString(),
  };
}

/**
 * The lease length in ms, read from the live configuration on every use so `system.config` changes
 * apply to the next register / heartbeat without a restart.
 *
 * @example
 * const ttl = leaseTtlMs(ctx.services); // 30000 by default
 */
export function leaseTtlMs(services: Services): number {
  const ttl = services.config.get().system?.instance_ttl_ms;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : DEFAULT_INSTANCE_TTL_MS;
}

/** How often the background sweep runs: a quarter of the lease, at most 1 s, at least 25 ms. */
export function sweepPeriodMs(services: Services): number {
  return Math.max(25, Math.min(1000, Math.floor(leaseTtlMs(services) / 4)));
}

export interface ExpiredInstance {
  id: string;
  /** Ids of the tasks that went back to pending. */
  released: string[];
}

/**
 * Remove every instance whose lease ended before `now`, put its assigned / in-progress tasks back to
 * pending and publish `instance.expired` for each. Safe to run concurrently (also across hubs sharing a
 * store): `instances.expire` hands each expired id to exactly one caller, so tasks are released once.
 *
 * @example
 * const expired = await sweepExpiredInstances(services, Date.now() + 60_000); // [{ id: 'w1', released: ['t1'] }]
 */
export async function sweepExpiredInstances(services: Services, now: number = Date.now()): Promise<ExpiredInstance[]> {
  const ids = await services.store.instances.expire(now);
  const expired: ExpiredInstance[] = [];
  for (const id of ids) {
    const released = await services.store.tasks.releaseInstance(id);
    const at = new Date().toISOString();
    services.bus.publish({ type: 'instance.expired', id, released, at });
    // Subscribers following the board see the released tasks change like any other transition.
    for (const taskId of released)
      services.bus.publish({ type: 'task.changed', id: taskId, status: 'pending', action: 'release', at });
    expired.push({ id, released });
  }
  return expired;
}
