// system.get_state: one snapshot of the shared board — live instances, task counts per status and the
// latest events — so an agent can orient itself in a single call.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { BusEvent, CallEvent } from '../../../core/context.ts';
import { maySeeEvent } from '../../../observe/event-view.ts';
import { TASK_STATUSES, type TaskStatus, type TaskStore } from '../../../store/contract.ts';
import { InstanceViewSchema, instanceView, sweepExpiredInstances } from './lease.ts';

const RECENT_EVENTS = 20;
const PAGE = 500;

/**
 * An event as a client may see it. Call events lose their input and output: a snapshot that embeds
 * outputs would embed earlier snapshots inside itself and grow without bound, and outputs can be large.
 *
 * @example
 * summarizeEvent({ type: 'call', name: 'task.list', input: {}, output: [...], ... }) // { type: 'call', name: 'task.list', ok: true, ... }
 */
export function summarizeEvent(event: BusEvent): Record<string, unknown> {
  if (event.type !== 'call') return { ...event };
  const { input: _input, output: _output, error, ...rest } = event as CallEvent;
  return { ...rest, ok: !error, ...(error ? { error: { code: error.code, message: error.message } } : {}) };
}

/** Count tasks in one status by paging; the store contract has no count, and this stays within it. */
async function countStatus(tasks: TaskStore, status: TaskStatus): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await tasks.list({ status: [status], limit: PAGE, cursor });
    count += page.tasks.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return count;
}

const CountsSchema = z.object(
  Object.fromEntries(TASK_STATUSES.map((s) => [s, z.number().int().nonnegative()])) as Record<TaskStatus, z.ZodNumber>,
);

/** `system.get_state` — instances, task counts and recent events in one call. */
export const systemGetState = defineCapability({
  name: 'system.get_state',
  title: 'Board state',
  description:
    'Get a snapshot of the shared board in one call. Returns the registered instances with their lease expiry, how many tasks are pending, assigned, in_progress, completed and failed, and the 20 most recent hub events (oldest first). Use it to orient yourself before picking up work.',
  input: z.object({}),
  output: z.object({
    instances: z.array(InstanceViewSchema),
    tasks: CountsSchema,
    recentEvents: z.array(z.object({ seq: z.number(), event: z.record(z.string(), z.unknown()) })),
  }),
  // Read-only for the caller: the expiry sweep it runs only enforces leases that already ended.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async (_input, ctx) => {
    const { services } = ctx;
    const { store } = services;
    await sweepExpiredInstances(services);
    const [instances, counts, events] = await Promise.all([
      store.instances.list(),
      Promise.all(TASK_STATUSES.map((s) => countStatus(store.tasks, s))),
      store.events.recent(RECENT_EVENTS),
    ]);
    return {
      instances: instances.map(instanceView),
      tasks: Object.fromEntries(TASK_STATUSES.map((s, i) => [s, counts[i]])) as Record<TaskStatus, number>,
      recentEvents: events
        .filter((e) => maySeeEvent(services.registry, ctx.principal, e.event))
        .map((e) => ({ seq: e.seq, event: summarizeEvent(e.event) })),
    };
  },
});
