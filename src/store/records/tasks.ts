// The task board's records as Zod schemas: a new task, the patchable fields, list filters and cursors, the
// finished-task query. Each schema turns a caller's input into what a store keeps (JSON columns as text, times
// canonical), so both backends refuse the same input with the same message and store the same thing.
import { z } from 'zod';
import {
  check,
  DEFAULT_PAGE_SIZE,
  describe,
  integer,
  invalid,
  isoTime,
  jsonColumn,
  jsonText,
  MAX_FINISHED,
  MAX_PAGE_SIZE,
  mustBe,
  nonEmptyText,
  oneOf,
  plainObject,
  record,
  text,
  textOrNull,
} from './common.ts';

export const TASK_STATUSES = ['pending', 'assigned', 'in_progress', 'completed', 'failed'] as const;
export const TaskStatusSchema = oneOf(TASK_STATUSES);
export type TaskStatus = z.output<typeof TaskStatusSchema>;

/** How big the work looked when the task was created (for outcome metrics). */
export const TASK_COMPLEXITIES = ['simple', 'moderate', 'complex'] as const;
export type TaskComplexity = (typeof TASK_COMPLEXITIES)[number];
const complexity = oneOf(TASK_COMPLEXITIES, `${TASK_COMPLEXITIES.join(', ')} or null`)
  .nullish()
  .transform((v) => v ?? null);

/** How the work turned out, in the words of whoever completed it. */
export const TASK_OUTCOMES = ['success', 'partial', 'failure'] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];

/**
 * The self-assessment `task.complete` records: the outcome, how sure the agent is, and what it touched. Every field
 * is checked, so metrics never meet a confidence of 7 or an outcome of 'yes'; absent fields are stored as empty.
 */
export const TaskAssessmentSchema = z.object(
  {
    outcome: oneOf(TASK_OUTCOMES),
    /** 0..1: how confident the agent is that the outcome is what it says. */
    confidence: z
      .number({ error: mustBe('a number from 0 to 1 or null') })
      .min(0)
      .max(1)
      .nullish()
      .transform((v) => v ?? null),
    filesModified: z
      .array(nonEmptyText, { error: mustBe('an array of paths') })
      .nullish()
      .transform((v) => v ?? []),
    testsAdded: integer(0, 1_000_000)
      .nullish()
      .transform((v) => v ?? null),
    notes: textOrNull.optional().transform((v) => v ?? null),
  },
  { error: mustBe('an object or null') },
);
export type TaskAssessment = z.output<typeof TaskAssessmentSchema>;

/** The assessment column: the checked assessment as JSON text, or null. */
const assessmentColumn = TaskAssessmentSchema.nullish().transform((a) => (a == null ? null : JSON.stringify(a)));

/** The metadata column: an object (or nothing) as JSON text. */
const metadataColumn = plainObject('an object or null').nullish().transform(jsonText);

/** A new task as a caller gives it, and as a store writes it (JSON columns as text, absent fields null). */
export const NewTaskSchema = record('task', {
  text: nonEmptyText,
  priority: integer(),
  type: textOrNull.optional().transform((v) => v ?? null),
  metadata: metadataColumn,
  estimatedComplexity: complexity,
  /** The principal that created the task (task.create's caller); lets its creator complete it unassigned. */
  createdBy: textOrNull.optional().transform((v) => v ?? null),
});
export type NewTask = z.input<typeof NewTaskSchema>;

/** At most this many tasks in one batch (task.batch_create). */
export const MAX_TASK_BATCH = 100;

/** Every task of a batch checked before anything is written; a bad one is refused naming its index and field. */
export function checkNewTasks(tasks: unknown): z.output<typeof NewTaskSchema>[] {
  if (!Array.isArray(tasks) || tasks.length === 0 || tasks.length > MAX_TASK_BATCH)
    invalid(
      `tasks must be an array of 1 to ${MAX_TASK_BATCH} tasks, got ${describe(tasks)}${Array.isArray(tasks) ? ` of ${tasks.length}` : ''}.`,
    );
  return tasks.map((task, i) => check(NewTaskSchema, task, `tasks[${i}]`));
}

/** A new task checked, as its row's fields; the store adds the id, times, status and version. */
export function checkNewTask(task: unknown): z.output<typeof NewTaskSchema> {
  return check(NewTaskSchema, task);
}

/** Each patchable field, checked and turned into what the store keeps (null clears the field). */
export const TASK_PATCH_FIELDS = {
  text: nonEmptyText,
  priority: integer(),
  status: TaskStatusSchema,
  type: textOrNull,
  metadata: metadataColumn,
  assignedTo: textOrNull,
  result: jsonColumn,
  error: textOrNull,
  completedAt: textOrNull,
  estimatedComplexity: complexity,
  assessment: assessmentColumn,
  completedBy: textOrNull,
} satisfies Record<string, z.ZodType>;
export type TaskPatchField = keyof typeof TASK_PATCH_FIELDS;
/** A patch checked field by field: each value as stored (JSON columns as text). */
export type CheckedTaskPatch = { [K in TaskPatchField]?: z.output<(typeof TASK_PATCH_FIELDS)[K]> };

/** Check every field of a patch before anything is written: a bad field must not leave a half-applied change. */
export function checkTaskPatch(patch: unknown): CheckedTaskPatch {
  if (!patch || typeof patch !== 'object') invalid(`patch must be an object, got ${describe(patch)}.`);
  const checked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    // hasOwn, not a plain lookup: a key like 'toString' must not reach Object.prototype.
    if (!Object.hasOwn(TASK_PATCH_FIELDS, key))
      invalid(
        `'${key}' is not a task field that can be changed; use one of ${Object.keys(TASK_PATCH_FIELDS).join(', ')}.`,
      );
    checked[key] = check(TASK_PATCH_FIELDS[key as TaskPatchField], value, key);
  }
  return checked as CheckedTaskPatch;
}

/** A status list (a filter, a compare-and-set's `from`), without repeats. */
export function checkStatuses(value: unknown, field: string): TaskStatus[] {
  return [...new Set(check(statusList, value, field))];
}
const statusList = z.array(TaskStatusSchema, { error: mustBe('an array of statuses') });

/** Keyset position of a row in the list order. Opaque to callers: base64url of `{p, c, i}`. */
const CursorSchema = z.object({ p: z.int(), c: z.string(), i: z.string() });
export type Cursor = z.output<typeof CursorSchema>;

export function encodeCursor(priority: number, createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify({ p: priority, c: createdAt, i: id } satisfies Cursor)).toString('base64url');
}

export function decodeCursor(cursor: unknown): Cursor {
  const fail = (): never =>
    invalid(
      `cursor ${describe(cursor)} is not a cursor this store issued. Pass the nextCursor of the previous page unchanged, or omit cursor to start from the first page.`,
    );
  // Buffer.from(…, 'base64url') skips characters it does not know, so check the alphabet first.
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,1000}$/.test(cursor)) return fail();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return fail();
  }
  const c = CursorSchema.safeParse(parsed);
  return c.success ? c.data : fail();
}

/** A task list filter as a caller gives it; an empty status list means no status filter, like an absent one. */
export const TaskFilterSchema = record('filter', {
  status: statusList.optional(),
  assignedTo: text.optional(),
  type: text.optional(),
  /** 1..500, default 50. */
  limit: integer(1, MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  /** Opaque cursor from a previous page's `nextCursor` (checked by {@link decodeCursor}, which words its own refusal). */
  cursor: z.custom<string>().optional(),
});
export type TaskFilter = z.input<typeof TaskFilterSchema>;

/** A checked filter: statuses without repeats, the limit filled in, the cursor decoded. */
export function checkTaskFilter(filter: unknown) {
  const f = check(TaskFilterSchema, filter);
  return {
    statuses: f.status === undefined ? [] : [...new Set(f.status)],
    assignedTo: f.assignedTo,
    type: f.type,
    limit: f.limit,
    after: f.cursor === undefined ? undefined : decodeCursor(f.cursor),
  };
}

/** Finished (completed or failed) tasks for outcome metrics. */
export const FinishedQuerySchema = record('query', {
  /** Only tasks finished at or after this ISO time. */
  since: isoTime,
  /** Only tasks of this type (null: any). */
  type: text.optional().transform((v) => v ?? null),
  /** At most this many, newest first (1..10 000, default 10 000). */
  limit: integer(1, MAX_FINISHED).default(MAX_FINISHED),
});
export type FinishedQuery = z.input<typeof FinishedQuerySchema>;

export function checkFinishedQuery(query: unknown): z.output<typeof FinishedQuerySchema> {
  return check(FinishedQuerySchema, query);
}

// --- ids -----------------------------------------------------------------------------------------------------------

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_SPACE = 2 ** 30;
let lastIdTime = 0;
let lastIdRandom = 0;

export function base32(value: number, length: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[v % 32] + out;
    v = Math.floor(v / 32);
  }
  return out;
}

/**
 * A short, time-sortable task id: `t-` + 10 chars of milliseconds + 6 random chars (ULID-like, lower case).
 * Monotonic within a process — the same millisecond increments the random part, a clock step back reuses the
 * last time — so ids and `createdAt` never go backwards and the list order equals creation order.
 *
 * @example
 * const { id, time } = newTaskId(); // id: 't-01jd3m8x2k4f9qzr', time: 1731500000000
 */
export function newTaskId(now = Date.now()): { id: string; time: number } {
  if (now > lastIdTime) {
    lastIdTime = now;
    lastIdRandom = Math.floor(Math.random() * RANDOM_SPACE);
  } else if (++lastIdRandom >= RANDOM_SPACE) {
    // 2^30 ids in one millisecond cannot happen in practice; borrow the next millisecond to stay monotonic.
    lastIdTime++;
    lastIdRandom = 0;
  }
  return { id: `t-${base32(lastIdTime, 10)}${base32(lastIdRandom, 6)}`, time: lastIdTime };
}
