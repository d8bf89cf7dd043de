// task.attach: leave a named JSON, text or markdown document on a task for the next agent (ClaudeBench's
// task.create_attachment): an analysis, handoff notes, a plan. The same key replaces the document.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import {
  ATTACHMENT_KEY,
  ATTACHMENT_TYPES,
  attachmentsFull,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS_PER_TASK,
} from '../../../store/records/task-attachments.ts';
import { TaskIdSchema, taskNotFound } from './shared.ts';

export const AttachmentSchema = z.object({
  taskId: z.string(),
  key: z.string(),
  type: z.enum(ATTACHMENT_TYPES),
  value: z.unknown().describe('The document: a string for text and markdown, any JSON value for json.'),
  size: z.number().int().describe('Bytes of the stored document (UTF-8 text, or the JSON text).'),
  createdBy: z.string().nullable().describe('Principal that attached it.'),
  createdAt: z.string().describe('ISO time this version was attached.'),
});

/** `task.attach` — keep a named document with a task (any status). */
export const taskAttach = defineCapability({
  name: 'task.attach',
  title: 'Attach document to task',
  description: `Leave a named document on a task for whoever works on it next: type 'json' (any JSON value, e.g. an analysis), 'text' (a string, e.g. a log excerpt) or 'markdown' (a string to render as markdown, e.g. handoff notes). Attaching under an existing key replaces that document. At most ${MAX_ATTACHMENT_BYTES / 1024} KiB per document and ${MAX_ATTACHMENTS_PER_TASK} documents per task; larger content: attach a summary and a path. Read them with task.attachments. Deleted with the task.`,
  input: z.strictObject({
    id: TaskIdSchema,
    key: z
      .string()
      .regex(
        ATTACHMENT_KEY,
        "1-128 characters, only letters, digits, '.', '_' and '-' (e.g. 'analysis', 'handoff-notes').",
      )
      .describe("Name of the document on this task, e.g. 'analysis' or 'handoff-notes'."),
    type: z
      .enum(ATTACHMENT_TYPES)
      .describe("'json' for structured data, 'text' for plain prose, 'markdown' for markdown."),
    value: z.unknown().describe("The document: a string for 'text' and 'markdown', any JSON value for 'json'."),
  }),
  output: AttachmentSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handle: async ({ id, key, type, value }, ctx) => {
    if (value === undefined)
      throw new SwitchboardError(
        'INVALID_INPUT',
        'value is required: a string for text and markdown, any JSON value for json.',
      );
    const result = await ctx.services.store.tasks.attach({ taskId: id, key, type, value, createdBy: ctx.principal.id });
    if (result.ok) return result.attachment;
    if (result.reason === 'not_found') throw taskNotFound(id);
    return attachmentsFull(id);
  },
});
