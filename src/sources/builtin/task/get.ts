// task.get: read one task by id, with its status, assignee, result or failure reason.
// Read-only; an unknown id is NOT_FOUND so a model learns the id is wrong rather than seeing an empty result.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TaskIdSchema, TaskSchema, taskNotFound } from './shared.ts';

/** `task.get` — one task by id. */
export const taskGet = defineCapability({
  name: 'task.get',
  title: 'Get task',
  description:
    'Get one task from the shared task board by id: its text, priority, status (pending, assigned, in_progress, completed, failed), assignee, result or failure reason, and timestamps. Use task.list to find ids.',
  input: z.strictObject({ id: TaskIdSchema }),
  output: TaskSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ id }, ctx) => {
    const task = await ctx.services.store.tasks.get(id);
    if (!task) throw taskNotFound(id);
    return task;
  },
});
