// task.create: put a new task on the shared board, pending until someone assigns it.
// The board is shared by every agent and instance connected to this hub (and to hubs sharing its store).
import { z } from 'zod';
import { defineCreating } from '../../../core/creating.ts';
import { TASK_COMPLEXITIES } from '../../../store/contract.ts';
import { announce, MetadataSchema, TaskSchema } from './shared.ts';

/** The fields of a new task, as task.create and each item of task.batch_create take them. */
export const NEW_TASK_FIELDS = {
  text: z
    .string()
    .min(1)
    .max(500)
    .describe('What needs doing, stated so another agent can act on it without context (1-500 characters).'),
  priority: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(50)
    .describe('0 (lowest) to 100 (highest); default 50. task.list returns higher priorities first.'),
  type: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Kind of work, to filter by in task.list and task.metrics: implementation, fix, refactor or research for outcome metrics; any other category (e.g. 'docs', 'review') is kept as well.",
    ),
  estimatedComplexity: z
    .enum(TASK_COMPLEXITIES)
    .optional()
    .describe('How big the work looks up front: simple, moderate or complex (task.metrics groups by it).'),
  metadata: MetadataSchema.optional().describe('Any JSON object to keep with the task: file paths, links, ids.'),
};

/** A new task input as the store takes it, with the calling principal as its creator. */
export function newTask(
  { text, priority, type, metadata, estimatedComplexity }: z.output<z.ZodObject<typeof NEW_TASK_FIELDS>>,
  createdBy: string,
) {
  return {
    text,
    priority,
    type: type ?? null,
    metadata: metadata ?? null,
    estimatedComplexity: estimatedComplexity ?? null,
    createdBy,
  };
}

/** `task.create` — add a pending task to the board; with an idempotency key, a retry answers the same task. */
export const taskCreate = defineCreating({
  name: 'task.create',
  title: 'Create task',
  description:
    'Create a task on the shared task board, visible to every agent using this hub. It starts as pending; hand it to a registered instance with task.assign. Returns the new task with its id (e.g. t-01jd3m8x2k4f9qzr). Use priority to order work (higher first in task.list) and type/metadata to let others filter and act on it. Pass idempotencyKey to make a retry safe.',
  lookup: 'task.list',
  input: z.strictObject(NEW_TASK_FIELDS),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  create: async (input, ctx, claim) => {
    const task = newTask(input, ctx.principal.id);
    const { tasks } = ctx.services.store;
    const created = claim ? await tasks.createOnce(task, claim) : { value: await tasks.create(task), replayed: false };
    // A replay changed nothing on the board: nothing to announce.
    if (!created.replayed) announce(ctx.services, created.value, 'create');
    return created;
  },
});
