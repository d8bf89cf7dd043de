// The least-loaded live instance, for task.assign without an instance (ClaudeBench's "assign it to the least
// loaded instance"). Load is the number of assigned and in_progress tasks an instance holds now.
import type { Services } from '../../../core/context.ts';
import { SwitchboardError } from '../../../core/errors.ts';

/** Tasks counted per instance; an instance holding more than this counts as this many (a page of task.list). */
const LOAD_CAP = 500;

/**
 * The live instance with the fewest open tasks, ties broken by id so the choice is reproducible. Two assignments
 * racing may both pick the same instance: the load is advice, not a reservation (task.claim is the pull model that
 * needs no choice at all).
 *
 * @example
 * await leastLoaded(services); // 'w2'
 */
export async function leastLoaded(services: Services): Promise<string> {
  const { store } = services;
  const now = Date.now();
  const live = (await store.instances.list()).filter((i) => i.expiresAt >= now).map((i) => i.id);
  if (live.length === 0)
    throw new SwitchboardError(
      'NOT_FOUND',
      'No live instance to assign the task to: none is registered (or every lease has expired). An instance registers with system.register; or pass instanceId.',
    );
  const loads = await Promise.all(
    live.map(async (id) => {
      const page = await store.tasks.list({ assignedTo: id, status: ['assigned', 'in_progress'], limit: LOAD_CAP });
      return { id, load: page.tasks.length };
    }),
  );
  loads.sort((a, b) => a.load - b.load || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return loads[0].id;
}
