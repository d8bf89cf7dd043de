// task.claim: the pull model (ClaudeBench's task.claim). A live worker takes the highest-priority pending task in
// one atomic store step, so two workers claiming at once never get the same task.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { announce, liveInstance, TaskSchema } from './shared.ts';

/** `task.claim` — the next pending task becomes in_progress for the calling instance. */
export const taskClaim = defineCapability({
  name: 'task.claim',
  title: 'Claim next task',
  description:
    'Take the next task to work on: the highest-priority pending task (oldest first among equals) becomes in_progress and assigned to your instance, atomically, so no other worker can get it. Register first with system.register (and keep heartbeating, or the task returns to pending). Answers claimed: false and task: null when nothing is pending. Finish with task.complete or task.fail; give it back with task.unassign.',
  input: z.strictObject({
    instanceId: z.string().min(1).max(128).describe('Your instance id, as given to system.register.'),
  }),
  output: z.object({
    claimed: z.boolean().describe('false when no task was pending.'),
    task: TaskSchema.nullable().describe('The claimed task, now in_progress and assigned to you; null if none.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: async ({ instanceId }, ctx) => {
    await liveInstance(ctx.services, instanceId);
    const task = await ctx.services.store.tasks.claim(instanceId);
    if (!task) return { claimed: false, task: null };
    announce(ctx.services, task, 'claim');
    return { claimed: true, task };
  },
});
