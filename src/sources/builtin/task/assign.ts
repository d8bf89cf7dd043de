// task.assign: hand a pending task to a live instance (an agent or worker registered with the hub).
// The instance must hold a lease; if it stops heartbeating, the sweep puts its tasks back to pending.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { illegalTransition, LIFECYCLE, TaskIdSchema, TaskSchema, taskNotFound, transition } from './shared.ts';

/** `task.assign` — pending → assigned to a registered, unexpired instance. */
export const taskAssign = defineCapability({
  name: 'task.assign',
  title: 'Assign task',
  description:
    'Assign a pending task to an instance (an agent or worker registered with system.register and kept alive with system.heartbeat). The task becomes assigned; the assignee then calls task.start when it begins and task.complete or task.fail when done. If the instance lease expires, its tasks return to pending. Only pending tasks can be assigned.',
  input: z.strictObject({
    id: TaskIdSchema,
    instance_id: z.string().min(1).max(128).describe('Id of a registered instance, as given to system.register.'),
  }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: async ({ id, instance_id }, ctx) => {
    const { store } = ctx.services;
    // Report problems with the task before problems with the instance: the task is what the caller is acting on.
    const task = await store.tasks.get(id);
    if (!task) throw taskNotFound(id);
    if (!LIFECYCLE.assign.includes(task.status)) throw illegalTransition(task, 'assign');
    const instance = await store.instances.get(instance_id);
    // An instance past its lease is gone even if the sweep has not removed it yet.
    if (!instance || instance.expiresAt < Date.now()) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `Instance '${instance_id}' is not registered${instance ? ' any more (its lease expired)' : ''}. An instance registers with system.register and stays alive with system.heartbeat.`,
        { instance_id },
      );
    }
    // The status may still change between the check above and this write; the compare-and-set catches it.
    return transition(ctx.services, id, 'assign', { status: 'assigned', assignedTo: instance_id });
  },
});
