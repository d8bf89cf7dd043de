// task.unassign: give an assigned or in-progress task back to the board (pending, no assignee), e.g. when a worker
// cannot finish it or was assigned by mistake. Finished tasks keep their history and cannot be unassigned.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TaskIdSchema, TaskSchema, transition } from './shared.ts';

/** `task.unassign` — assigned | in_progress → pending, assignee cleared. */
export const taskUnassign = defineCapability({
  name: 'task.unassign',
  title: 'Unassign task',
  description:
    'Put an assigned or in_progress task back to pending with no assignee, so another instance can take it (task.assign or task.claim). Completed and failed tasks cannot be unassigned.',
  input: z.strictObject({ id: TaskIdSchema }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: ({ id }, ctx) => transition(ctx.services, id, 'unassign', { status: 'pending', assignedTo: null }),
});
