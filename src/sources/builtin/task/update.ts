// task.update: change what a task says (text, priority, type, metadata) while it is not finished.
// Status is deliberately not editable here: it moves only through assign / start / complete / fail.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { MetadataSchema, TaskIdSchema, TaskSchema, transition } from './shared.ts';

const FIELDS = 'text, priority, type, metadata';

/** `task.update` — edit a pending, assigned or in-progress task. */
export const taskUpdate = defineCapability({
  name: 'task.update',
  title: 'Update task',
  description: `Edit a task that is not finished (pending, assigned or in_progress): change any of ${FIELDS}. Fields you omit stay as they are; metadata is replaced as a whole; type or metadata null clears them. Status cannot be set here: use task.assign, task.start, task.complete or task.fail. Completed and failed tasks cannot be edited.`,
  input: z
    .strictObject(
      {
        id: TaskIdSchema,
        text: z.string().min(1).max(500).optional().describe('New text (1-500 characters).'),
        priority: z.number().int().min(0).max(100).optional().describe('New priority, 0-100.'),
        type: z.string().min(1).max(64).nullable().optional().describe('New type; null removes it.'),
        metadata: MetadataSchema.nullable().optional().describe('Replaces the whole metadata object; null removes it.'),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `Unknown field(s) ${issue.keys.join(', ')}: task.update changes only ${FIELDS}. To change status use task.assign, task.start, task.complete or task.fail.`
            : undefined,
      },
    )
    .refine(
      (v) => v.text !== undefined || v.priority !== undefined || v.type !== undefined || v.metadata !== undefined,
      {
        message: `Give at least one field to change: ${FIELDS}.`,
        // Only when the object is otherwise valid: after "unknown field status" this would just be noise.
        when: (payload) => payload.issues.length === 0,
      },
    ),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handle: ({ id, text, priority, type, metadata }, ctx) =>
    transition(ctx.services, id, 'update', { text, priority, type, metadata }),
});
