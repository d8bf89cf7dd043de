// task.batch_create: many tasks in one call (ClaudeBench's task.batch_create), all or none: a bad item fails the
// whole call, naming its index and field, and nothing is written.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { MAX_TASK_BATCH } from '../../../store/records/tasks.ts';
import { NEW_TASK_FIELDS, newTask } from './create.ts';
import { announce, TaskSchema } from './shared.ts';

/** `task.batch_create` — up to 100 pending tasks in one atomic write. */
export const taskBatchCreate = defineCapability({
  name: 'task.batch_create',
  title: 'Create tasks',
  description: `Create several tasks on the shared board in one call (1-${MAX_TASK_BATCH}), each with the same fields as task.create. All or none: if any item is invalid the call fails naming the item (e.g. tasks.3.priority) and no task is created. Returns the tasks in the order given. Unlike task.create it takes no idempotency key: on an unknown outcome, look with task.list before retrying.`,
  input: z.strictObject({
    tasks: z
      .array(z.strictObject(NEW_TASK_FIELDS))
      .min(1)
      .max(MAX_TASK_BATCH)
      .describe(`The tasks to create, 1-${MAX_TASK_BATCH}, each as task.create takes one.`),
  }),
  output: z.object({ tasks: z.array(TaskSchema) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: async ({ tasks }, ctx) => {
    const created = await ctx.services.store.tasks.createMany(tasks.map((t) => newTask(t, ctx.principal.id)));
    for (const task of created) announce(ctx.services, task, 'create');
    return { tasks: created };
  },
});
