// task.start: the assignee says it has begun work (assigned → in_progress).
// Separates "queued for me" from "being worked on", so the board shows what is actually moving.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TaskIdSchema, TaskSchema, transition } from './shared.ts';

/** `task.start` — assigned → in_progress. */
export const taskStart = defineCapability({
  name: 'task.start',
  title: 'Start task',
  description:
    'Mark an assigned task as in_progress when its assignee begins working on it. This is the only way to reach in_progress; only assigned tasks can be started. Finish it with task.complete or task.fail (an assigned task may also be completed directly without starting).',
  input: z.strictObject({ id: TaskIdSchema }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: ({ id }, ctx) => transition(ctx.services, id, 'start', { status: 'in_progress' }),
});
