// task.fail: end a task that cannot be done, with the reason, from any non-final status.
// failed is final; the reason is kept on the task (field `error`) so others can see why.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TaskIdSchema, TaskSchema, transition } from './shared.ts';

/** `task.fail` — pending | assigned | in_progress → failed. */
export const taskFail = defineCapability({
  name: 'task.fail',
  title: 'Fail task',
  description:
    "Mark a task as failed, with the reason, when it cannot or should not be done. Works on pending, assigned and in_progress tasks; failed is final and the reason is stored in the task's error field. To retry the work, create a new task.",
  input: z.strictObject({
    id: TaskIdSchema,
    reason: z
      .string()
      .min(1)
      .max(2000)
      .describe('Why the task failed, specific enough for someone else to act on (1-2000 characters).'),
  }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: ({ id, reason }, ctx) =>
    transition(ctx.services, id, 'fail', {
      status: 'failed',
      error: reason,
      completedAt: new Date().toISOString(),
      completedBy: ctx.principal.id,
    }),
});
