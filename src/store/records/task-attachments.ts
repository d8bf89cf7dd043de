// Task attachments as records: named JSON, text or markdown documents an agent leaves on a task for the next one
// (ClaudeBench's task.create_attachment). Both stores keep one attachment as the JSON text this module makes, so
// limits, messages and the stored shape are the same on SQLite and Redis.
import { z } from 'zod';
import { check, describe, invalid, mustBe, nonEmptyText, oneOf, record, textOrNull } from './common.ts';

export const ATTACHMENT_TYPES = ['json', 'text', 'markdown'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];
/** The types whose document is a string (markdown is text that says how to render it). */
export const TEXT_ATTACHMENT_TYPES: readonly AttachmentType[] = ['text', 'markdown'];

/** Largest attachment, in bytes of its stored form (UTF-8 text, or the JSON text of a json value). */
export const MAX_ATTACHMENT_BYTES = 64 * 1024;
/** Most attachments one task may carry; attaching under an existing key replaces it and does not count twice. */
export const MAX_ATTACHMENTS_PER_TASK = 100;
/** Keys are short names a next agent can guess: letters, digits, '.', '_', '-'. */
export const ATTACHMENT_KEY = /^[A-Za-z0-9._-]{1,128}$/;

export interface TaskAttachment {
  taskId: string;
  key: string;
  type: AttachmentType;
  /** The document: any JSON value for `json`, a string for `text` and `markdown`. */
  value: unknown;
  /** Bytes of the stored form, the figure the limit applies to. */
  size: number;
  /** Principal that attached it. */
  createdBy: string | null;
  /** When this version was attached (attaching under the same key again replaces the document and this time). */
  createdAt: string;
}

const NewAttachmentSchema = record('attachment', {
  taskId: nonEmptyText,
  key: z.string({ error: mustBe('a string') }).regex(ATTACHMENT_KEY, {
    error: (issue) =>
      `must be 1-128 letters, digits, '.', '_' or '-' (e.g. 'analysis', 'handoff-notes'), got ${describe(issue.input)}.`,
  }),
  type: oneOf(ATTACHMENT_TYPES),
  value: z.unknown(),
  createdBy: textOrNull.optional().transform((v) => v ?? null),
});
export type NewTaskAttachment = z.input<typeof NewAttachmentSchema>;

/** What a store keeps for one attachment: everything but the task id and key, which address it. */
export interface StoredAttachment {
  type: AttachmentType;
  value: unknown;
  size: number;
  createdBy: string | null;
  createdAt: string;
}

/**
 * Check a new attachment and measure it: a text attachment must be a string, a json one any JSON value; either
 * must fit in {@link MAX_ATTACHMENT_BYTES}. Returns the checked fields and the stored JSON text.
 */
export function checkNewAttachment(given: unknown): {
  taskId: string;
  key: string;
  stored: StoredAttachment;
} {
  const a = check(NewAttachmentSchema, given);
  const isText = TEXT_ATTACHMENT_TYPES.includes(a.type);
  if (isText && typeof a.value !== 'string')
    invalid(
      `value must be a string for a ${a.type} attachment, got ${describe(a.value)}; use type 'json' for structured data.`,
    );
  let body: string | undefined;
  try {
    body = isText ? (a.value as string) : JSON.stringify(a.value);
  } catch (err) {
    invalid(`value must be JSON-serialisable: ${(err as Error).message}.`);
  }
  if (body === undefined) invalid(`value must be a JSON value for a json attachment, got ${describe(a.value)}.`);
  const size = Buffer.byteLength(body, 'utf8');
  if (size > MAX_ATTACHMENT_BYTES)
    invalid(
      `Attachment '${a.key}' is ${size} bytes; an attachment may be at most ${MAX_ATTACHMENT_BYTES} bytes (64 KiB). Split it into several keys, or attach a summary and a path to the full document.`,
    );
  return {
    taskId: a.taskId,
    key: a.key,
    stored: { type: a.type, value: a.value, size, createdBy: a.createdBy, createdAt: new Date().toISOString() },
  };
}

/** One attachment from its stored JSON text. */
export function toAttachment(taskId: string, key: string, json: string): TaskAttachment {
  return { taskId, key, ...(JSON.parse(json) as StoredAttachment) };
}

/** The refusal when a task already carries {@link MAX_ATTACHMENTS_PER_TASK} attachments. */
export function attachmentsFull(taskId: string): never {
  return invalid(
    `Task '${taskId}' already has ${MAX_ATTACHMENTS_PER_TASK} attachments, the most a task may carry; replace one by attaching under its key again.`,
  );
}
