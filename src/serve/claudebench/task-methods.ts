// ClaudeBench's task methods, with its parameter names and answer shapes, onto Switchboard's task capabilities
// (src/sources/builtin/task/). Facts from ClaudeBench's schemas (apps/server/src/schemas/task.schema.ts); what does
// not carry over is refused by name (docs/coming-from-claudebench.md).
import { z } from 'zod';
import type { Task, TaskAttachment } from '../../store/contract.ts';
import { TEXT_ATTACHMENT_TYPES } from '../../store/records/task-attachments.ts';
import {
  CbId,
  CbStatusSchema,
  cbStatus,
  cbTask,
  type Method,
  method,
  type Native,
  NativeFailure,
  ParamsError,
} from './method.ts';

/** Switchboard's task.list page size the adapter reads the board with (its largest). */
const PAGE = 500;

/** ClaudeBench's attachment types; `url` and `binary` have no Switchboard equivalent. */
const CB_ATTACHMENT_TYPES = ['json', 'markdown', 'text', 'url', 'binary'] as const;

const task = (v: unknown) => v as Task;

/** An attachment as ClaudeBench answers it: `value` for json, `content` for text and markdown. */
function cbAttachment(a: TaskAttachment) {
  const text = TEXT_ATTACHMENT_TYPES.includes(a.type);
  return {
    id: attachmentId(a.taskId, a.key),
    taskId: a.taskId,
    key: a.key,
    type: a.type,
    ...(text ? { content: a.value as string } : { value: a.value }),
    size: a.size,
    ...(a.createdBy ? { createdBy: a.createdBy } : {}),
    createdAt: a.createdAt,
    // One version is kept per key: attaching again replaces it, so it was last changed when it was created.
    updatedAt: a.createdAt,
  };
}

/** Switchboard addresses an attachment by task and key; ClaudeBench's answers carry an id, made from both. */
const attachmentId = (taskId: string, key: string) => `${taskId}/${key}`;

async function attachmentsOf(native: Native, taskId: string, key?: string): Promise<TaskAttachment[]> {
  const out = (await native('task.attachments', { id: taskId, ...(key === undefined ? {} : { key }) })) as {
    attachments: TaskAttachment[];
  };
  return out.attachments;
}

/** Every task the filters match, read page by page (ClaudeBench's orderings and offsets need the whole set). */
async function allTasks(native: Native, filter: Record<string, unknown>): Promise<Task[]> {
  const tasks: Task[] = [];
  let cursor: string | null = null;
  do {
    const page = (await native('task.list', { ...filter, limit: PAGE, ...(cursor ? { cursor } : {}) })) as {
      tasks: Task[];
      nextCursor: string | null;
    };
    tasks.push(...page.tasks);
    cursor = page.nextCursor;
  } while (cursor);
  return tasks;
}

const ORDER_BY = ['createdAt', 'updatedAt', 'priority', 'status', 'assignedTo'] as const;

function compareBy(field: (typeof ORDER_BY)[number]): (a: Task, b: Task) => number {
  if (field === 'priority') return (a, b) => a.priority - b.priority;
  const text = (t: Task) => (field === 'status' ? cbStatus(t.status) : (t[field] ?? ''));
  return (a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0);
}

export const TASK_METHODS: Record<string, Method> = {
  'task.create': method({
    params: z.strictObject({ text: z.unknown(), priority: z.unknown().optional(), metadata: z.unknown().optional() }),
    async run(params, native) {
      const t = task(await native('task.create', params));
      return { id: t.id, text: t.text, status: cbStatus(t.status), priority: t.priority, createdAt: t.createdAt };
    },
  }),

  'task.update': method({
    params: z.strictObject({
      id: CbId,
      updates: z.strictObject({
        text: z.unknown().optional(),
        status: CbStatusSchema.optional(),
        priority: z.unknown().optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
      }),
    }),
    fields: { text: 'updates.text', priority: 'updates.priority', metadata: 'updates.metadata', '(root)': 'updates' },
    async run({ id, updates }, native) {
      if (updates.status !== undefined)
        throw new ParamsError(
          'updates.status',
          `Switchboard moves a task's status only through its lifecycle, never by an update: task.claim starts it, task.complete finishes it, task.unassign puts it back to pending (the MCP tools task__start and task__fail do the rest). Send updates without status.`,
        );
      const { status: _status, metadata, ...rest } = updates;
      // ClaudeBench merges the metadata it is given into the task's; Switchboard's task.update replaces it whole.
      const merged =
        metadata === undefined
          ? {}
          : { metadata: { ...(task(await native('task.get', { id })).metadata ?? {}), ...metadata } };
      const t = task(await native('task.update', { id, ...rest, ...merged }));
      return {
        id: t.id,
        text: t.text,
        status: cbStatus(t.status),
        priority: t.priority,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
      };
    },
  }),

  'task.assign': method({
    params: z.strictObject({ taskId: CbId, instanceId: z.string().min(1) }),
    fields: { id: 'taskId' },
    async run({ taskId, instanceId }, native) {
      const t = task(await native('task.assign', { id: taskId, instanceId }));
      return { taskId: t.id, instanceId: t.assignedTo, assignedAt: t.updatedAt };
    },
  }),

  'task.unassign': method({
    params: z.strictObject({ taskId: CbId }),
    fields: { id: 'taskId' },
    async run({ taskId }, native) {
      const before = task(await native('task.get', { id: taskId }));
      const t = task(await native('task.unassign', { id: taskId }));
      return { taskId: t.id, previousAssignment: before.assignedTo, unassignedAt: t.updatedAt };
    },
  }),

  'task.claim': method({
    // maxTasks: ClaudeBench's schema takes 1-10, and its handler claims one task whatever it says; so does this.
    params: z.strictObject({ workerId: z.string().min(1), maxTasks: z.number().int().min(1).max(10).optional() }),
    fields: { instanceId: 'workerId' },
    async run({ workerId }, native) {
      const out = (await native('task.claim', { instanceId: workerId })) as { claimed: boolean; task: Task | null };
      if (!out.claimed || !out.task) return { claimed: false };
      const attachments = await attachmentsOf(native, out.task.id);
      return {
        claimed: true,
        taskId: out.task.id,
        task: {
          ...cbTask(out.task),
          // Keyed by name with the document itself, as ClaudeBench's claim hands a worker its task's attachments.
          attachments: Object.fromEntries(
            attachments.map((a) => [a.key, { type: a.type, value: a.value, createdAt: a.createdAt }]),
          ),
          attachmentCount: attachments.length,
        },
      };
    },
  }),

  'task.complete': method({
    params: z
      .strictObject({
        id: CbId.optional(),
        taskId: CbId.optional(),
        // Who finished it, in ClaudeBench's records; Switchboard records the calling principal as completedBy.
        workerId: z.string().min(1).optional(),
        result: z.unknown().optional(),
      })
      .refine((p) => p.id !== undefined || p.taskId !== undefined, {
        path: ['id'],
        message: "Either 'id' or 'taskId' must be provided",
      }),
    async run({ id, taskId, result }, native) {
      const t = task(await native('task.complete', { id: id ?? taskId, ...(result === undefined ? {} : { result }) }));
      return { id: t.id, status: cbStatus(t.status), completedAt: t.completedAt };
    },
  }),

  'task.delete': method({
    params: z.strictObject({ id: CbId }),
    async run({ id }, native) {
      const t = task(await native('task.delete', { id }));
      return { id: t.id, deleted: true, deletedAt: new Date().toISOString() };
    },
  }),

  'task.list': method({
    params: z.strictObject({
      status: CbStatusSchema.optional(),
      assignedTo: z.string().optional(),
      priority: z.number().int().min(0).max(100).optional(),
      limit: z.number().int().min(1).max(1000).default(100),
      offset: z.number().int().min(0).default(0),
      orderBy: z.enum(ORDER_BY).default('createdAt'),
      order: z.enum(['asc', 'desc']).default('desc'),
    }),
    async run({ status, assignedTo, priority, limit, offset, orderBy, order }, native) {
      // ClaudeBench's `pending` holds its assigned tasks too (they stay pending there until started).
      const statuses = status === undefined ? undefined : status === 'pending' ? ['pending', 'assigned'] : [status];
      const found = (
        await allTasks(native, {
          ...(statuses ? { status: statuses } : {}),
          ...(assignedTo === undefined ? {} : { assignedTo }),
        })
      ).filter((t) => priority === undefined || t.priority === priority);
      const compare = compareBy(orderBy);
      found.sort(order === 'asc' ? compare : (a, b) => compare(b, a));
      return {
        tasks: found.slice(offset, offset + limit).map(cbTask),
        totalCount: found.length,
        hasMore: offset + limit < found.length,
      };
    },
  }),

  'task.create_attachment': method({
    params: z.strictObject({
      taskId: CbId,
      key: z.string().min(1).max(100),
      type: z.enum(CB_ATTACHMENT_TYPES),
      value: z.unknown().optional(),
      content: z.string().optional(),
      url: z.string().optional(),
      mimeType: z.string().optional(),
      // The size ClaudeBench's caller states; Switchboard measures the document itself.
      size: z.number().int().positive().optional(),
    }),
    fields: { id: 'taskId' },
    async run({ taskId, key, type, value, content, url, mimeType }, native) {
      if (type === 'url' || type === 'binary')
        throw new ParamsError(
          'type',
          `Switchboard keeps json, text and markdown attachments; '${type}' has no equivalent (no file or link store). Attach the link or a path as json ({ "url": … }) or as text.`,
        );
      for (const [field, given] of [
        ['url', url],
        ['mimeType', mimeType],
      ] as const)
        if (given !== undefined)
          throw new ParamsError(
            field,
            `${field} is kept only for url and binary attachments, which Switchboard has not.`,
          );
      const text = type !== 'json';
      if (text ? content === undefined : value === undefined)
        throw new ParamsError(
          text ? 'content' : 'value',
          text ? `${type} attachments require a content field (the text).` : 'JSON attachments require a value field.',
        );
      if (text ? value !== undefined : content !== undefined)
        throw new ParamsError(
          text ? 'value' : 'content',
          text
            ? `A ${type} attachment's text goes in content, not value.`
            : 'A JSON attachment goes in value, not content.',
        );
      const a = (await native('task.attach', {
        id: taskId,
        key,
        type,
        value: text ? content : value,
      })) as TaskAttachment;
      return { id: attachmentId(a.taskId, a.key), taskId: a.taskId, key: a.key, type: a.type, createdAt: a.createdAt };
    },
  }),

  'task.list_attachments': method({
    params: z.strictObject({
      taskId: CbId,
      type: z.enum(CB_ATTACHMENT_TYPES).optional(),
      limit: z.number().int().min(1).max(100).default(50),
      offset: z.number().int().min(0).default(0),
    }),
    fields: { id: 'taskId' },
    async run({ taskId, type, limit, offset }, native) {
      const all = (await attachmentsOf(native, taskId)).filter((a) => type === undefined || a.type === type);
      return {
        attachments: all.slice(offset, offset + limit).map(cbAttachment),
        totalCount: all.length,
        hasMore: offset + limit < all.length,
      };
    },
  }),

  'task.get_attachment': method({
    params: z.strictObject({ taskId: CbId, key: z.string().min(1) }),
    fields: { id: 'taskId' },
    async run({ taskId, key }, native) {
      const [found] = await attachmentsOf(native, taskId, key);
      if (!found)
        throw new NativeFailure({
          code: 'NOT_FOUND',
          message: `Attachment with key '${key}' not found for task ${taskId}. task.list_attachments lists its keys.`,
        });
      return cbAttachment(found);
    },
  }),
};
