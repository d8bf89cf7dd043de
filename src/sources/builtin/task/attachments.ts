// task.attachments: read the documents left on a task (task.attach), by key, with their contents.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { AttachmentSchema } from './attach.ts';
import { TaskIdSchema, taskNotFound } from './shared.ts';

/** `task.attachments` — every document on a task, or one by key. */
export const taskAttachments = defineCapability({
  name: 'task.attachments',
  title: 'Read task attachments',
  description:
    'Read the documents left on a task with task.attach, sorted by key, with their contents. Pass key to get only that one (an unknown key gives an empty list). Check this before starting a task someone else began.',
  input: z.strictObject({
    id: TaskIdSchema,
    key: z.string().min(1).max(128).optional().describe('Only this document.'),
  }),
  output: z.object({ attachments: z.array(AttachmentSchema) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ id, key }, ctx) => {
    const all = await ctx.services.store.tasks.attachments(id);
    if (!all) throw taskNotFound(id);
    return { attachments: key === undefined ? all : all.filter((a) => a.key === key) };
  },
});
