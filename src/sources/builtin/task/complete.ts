// task.complete: finish an assigned or in-progress task successfully, optionally with a result.
// completed is final; the result is stored as JSON on the task for whoever asked for the work.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TaskIdSchema, TaskSchema, transition } from './shared.ts';

/** `task.complete` — assigned | in_progress → completed. */
export const taskComplete = defineCapability({
  name: 'task.complete',
  title: 'Complete task',
  description:
    'Mark an assigned or in_progress task as completed, optionally recording a result (any JSON: a summary string, file paths, a PR url). Completed is final. A pending task must be assigned first (task.assign); if the work could not be done, use task.fail instead.',
  input: z.strictObject({
    id: TaskIdSchema,
    result: z.unknown().optional().describe('What came out of the task, any JSON value; stored on the task.'),
  }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: ({ id, result }, ctx) =>
    transition(ctx.services, id, 'complete', { status: 'completed', result, completedAt: new Date().toISOString() }),
});
