// task.list: page through the board, highest priority first, filtered by status, assignee or type.
// Pages are keyset-based, so tasks created or changed between pages are neither repeated nor skipped.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TASK_STATUSES } from '../../../store/contract.ts';
import { TaskSchema, TaskStatusSchema } from './shared.ts';

const STATUS_HINT = `Expected a status (${TASK_STATUSES.join(', ')}) or a non-empty array of them.`;

/** `task.list` — a page of tasks plus the cursor of the next page. */
export const taskList = defineCapability({
  name: 'task.list',
  title: 'List tasks',
  description:
    "List tasks on the shared task board, highest priority first, then oldest first. Filter by status (one or several, e.g. ['pending'] to find work), assignedTo (an instance id) or type. Returns at most `limit` tasks (default 50, max 500) and nextCursor: pass it back as cursor to get the next page; it is null on the last page.",
  input: z.strictObject({
    status: z
      .union([TaskStatusSchema, z.array(TaskStatusSchema).min(1)], { error: () => STATUS_HINT })
      .optional()
      .describe('Only tasks in this status, or in any of these statuses.'),
    assignedTo: z.string().min(1).max(128).optional().describe('Only tasks assigned to this instance id.'),
    type: z.string().min(1).max(64).optional().describe('Only tasks of this type.'),
    limit: z.number().int().min(1).max(500).default(50).describe('Page size, 1-500; default 50.'),
    cursor: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('nextCursor from the previous page; omit for the first page.'),
  }),
  output: z.object({
    tasks: z.array(TaskSchema),
    nextCursor: z.string().nullable().describe('Pass as cursor to get the next page; null when this is the last page.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ status, assignedTo, type, limit, cursor }, ctx) =>
    ctx.services.store.tasks.list({
      status: status === undefined ? undefined : Array.isArray(status) ? status : [status],
      assignedTo,
      type,
      limit,
      cursor,
    }),
});
