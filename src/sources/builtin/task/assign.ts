// task.assign: hand a pending task to a live instance (an agent or worker registered with the hub).
// The instance must hold a lease; if it stops heartbeating, the sweep puts its tasks back to pending.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { leastLoaded } from './load.ts';
import {
  illegalTransition,
  LIFECYCLE,
  liveInstance,
  TaskIdSchema,
  TaskSchema,
  taskNotFound,
  transition,
} from './shared.ts';

/** `task.assign` — pending → assigned to the given live instance, or to the least-loaded one. */
export const taskAssign = defineCapability({
  name: 'task.assign',
  title: 'Assign task',
  description:
    'Assign a pending task to an instance (an agent or worker registered with system.register and kept alive with system.heartbeat). Without instanceId the hub picks the live instance with the fewest assigned or in_progress tasks (ties: lowest id). The task becomes assigned; the assignee then calls task.start when it begins and task.complete or task.fail when done. If the instance lease expires, its tasks return to pending. Only pending tasks can be assigned. Workers that pull their own work use task.claim instead.',
  input: z.strictObject({
    id: TaskIdSchema,
    instanceId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('Id of a registered instance, as given to system.register; omit to pick the least-loaded one.'),
  }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: async ({ id, instanceId }, ctx) => {
    const { services } = ctx;
    // Report problems with the task before problems with the instance: the task is what the caller is acting on.
    const task = await services.store.tasks.get(id);
    if (!task) throw taskNotFound(id);
    if (!LIFECYCLE.assign.includes(task.status)) throw illegalTransition(task, 'assign');
    const to = instanceId === undefined ? await leastLoaded(services) : (await liveInstance(services, instanceId)).id;
    // The status may still change between the check above and this write; the compare-and-set catches it.
    return transition(services, id, 'assign', { status: 'assigned', assignedTo: to });
  },
});
