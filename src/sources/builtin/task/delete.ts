// task.delete: remove a task and its attachments for good (a mistaken or obsolete task). Outcome metrics lose it
// too, which is why finished work is usually better left on the board.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { announce, TaskIdSchema, TaskSchema, taskNotFound } from './shared.ts';

/** `task.delete` — remove a task in any status, with its attachments. */
export const taskDelete = defineCapability({
  name: 'task.delete',
  title: 'Delete task',
  description:
    'Delete a task and all its attachments, in any status. This cannot be undone, and a deleted task no longer counts in task.metrics; to end work that will not be done, prefer task.fail, which keeps the reason on the board. Answers the task as it was.',
  input: z.strictObject({ id: TaskIdSchema }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handle: async ({ id }, ctx) => {
    const task = await ctx.services.store.tasks.delete(id);
    if (!task) throw taskNotFound(id);
    announce(ctx.services, task, 'delete');
    return task;
  },
});
