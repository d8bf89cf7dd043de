// The task board in the SQLite store: rows, the patchable columns, keyset-paged lists, compare-and-set updates,
// batches, the atomic claim and delete (attachments: task-attachments.ts, called inside these transactions).

import type { IdempotencyClaim, Once } from '../../core/idempotency.ts';
import type {
  AttachResult,
  FinishedQuery,
  NewTask,
  NewTaskAttachment,
  Task,
  TaskAttachment,
  TaskComplexity,
  TaskFilter,
  TaskPage,
  TaskPatch,
  TaskStatus,
  TaskStore,
  TaskUpdateResult,
} from '../contract.ts';
import { checkClaim, replay } from '../idempotency.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { checkString } from '../records/common.ts';
import { checkNewAttachment } from '../records/task-attachments.ts';
import {
  type CheckedTaskPatch,
  checkFinishedQuery,
  checkNewTask,
  checkNewTasks,
  checkStatuses,
  checkTaskFilter,
  checkTaskPatch,
  encodeCursor,
  newTaskId,
} from '../records/tasks.ts';
import type { Db, Statement } from './connection.ts';
import { SqliteIdempotencyKeys } from './idempotency-keys.ts';
import { SqliteTaskAttachments } from './task-attachments.ts';

interface TaskRow {
  id: string;
  text: string;
  priority: number;
  status: TaskStatus;
  type: string | null;
  metadata: string | null;
  assigned_to: string | null;
  result: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  version: number;
  estimated_complexity: TaskComplexity | null;
  assessment: string | null;
  created_by: string | null;
  completed_by: string | null;
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    text: row.text,
    priority: row.priority,
    status: row.status,
    type: row.type,
    metadata: row.metadata === null ? null : JSON.parse(row.metadata),
    estimatedComplexity: row.estimated_complexity,
    assessment: row.assessment === null ? null : JSON.parse(row.assessment),
    assignedTo: row.assigned_to,
    createdBy: row.created_by,
    completedBy: row.completed_by,
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    version: row.version,
  };
}

/** A checked patch as columns. */
function patchColumns(patch: CheckedTaskPatch): Partial<TaskRow> {
  const { assignedTo, completedAt, estimatedComplexity, completedBy, ...same } = patch;
  const columns: Partial<TaskRow> = same;
  if (assignedTo !== undefined) columns.assigned_to = assignedTo;
  if (completedBy !== undefined) columns.completed_by = completedBy;
  if (completedAt !== undefined) columns.completed_at = completedAt;
  if (estimatedComplexity !== undefined) columns.estimated_complexity = estimatedComplexity;
  return columns;
}

export class SqliteTasks implements TaskStore {
  private readonly keys: SqliteIdempotencyKeys;
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly write: Statement;
  private readonly release: Statement;
  /** List statements by filter shape: a bounded set (statuses × assignee × type × cursor), each prepared once. */
  private readonly lists = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly live: () => void,
    /** The clock of creation, update and lease times (tests move it). */
    private readonly now: StoreClock = readClock,
  ) {
    this.keys = new SqliteIdempotencyKeys(db);
    this.insert = db.prepare(
      `INSERT INTO tasks (id, text, priority, status, type, metadata, assigned_to, result, error, created_at, updated_at, completed_at, version, estimated_complexity, assessment, created_by, completed_by)
       VALUES (@id, @text, @priority, @status, @type, @metadata, @assigned_to, @result, @error, @created_at, @updated_at, @completed_at, @version, @estimated_complexity, @assessment, @created_by, @completed_by)`,
    );
    this.byId = db.prepare('SELECT * FROM tasks WHERE id = ?');
    this.write = db.prepare(
      `UPDATE tasks SET text = @text, priority = @priority, status = @status, type = @type, metadata = @metadata,
         assigned_to = @assigned_to, result = @result, error = @error, updated_at = @updated_at,
         completed_at = @completed_at, version = @version, estimated_complexity = @estimated_complexity,
         assessment = @assessment, completed_by = @completed_by
       WHERE id = @id AND version = @expected`,
    );
    this.release = db.prepare(
      `UPDATE tasks SET status = 'pending', assigned_to = NULL, updated_at = @now, version = version + 1
       WHERE assigned_to = @instance AND status IN ('assigned', 'in_progress')
       RETURNING id`,
    );
    // One statement, so atomic even across processes sharing the file: the subquery and the write see the same
    // snapshot under the write lock, and tasks_by_status serves the "first pending" seek.
    this.claimNext = db.prepare(
      `UPDATE tasks SET status = 'in_progress', assigned_to = @instance, updated_at = @now, version = version + 1
       WHERE id = (SELECT id FROM tasks WHERE status = 'pending' ORDER BY priority DESC, created_at, id LIMIT 1)
       RETURNING *`,
    );
    this.remove = db.prepare('DELETE FROM tasks WHERE id = ? RETURNING *');
    this.attachmentStore = new SqliteTaskAttachments(db);
    this.finishedSince = db.prepare(
      `SELECT * FROM tasks WHERE completed_at IS NOT NULL AND completed_at >= @since AND (@type IS NULL OR type = @type)
       ORDER BY completed_at DESC, id DESC LIMIT @limit`,
    );
  }

  private readonly finishedSince: Statement;
  private readonly claimNext: Statement;
  private readonly remove: Statement;
  private readonly attachmentStore: SqliteTaskAttachments;

  async createMany(tasks: readonly NewTask[]): Promise<Task[]> {
    this.live();
    const rows = checkNewTasks(tasks).map((task) => this.newRow(task));
    this.db.transaction(() => {
      for (const row of rows) this.insert.run(row);
    })();
    return rows.map(toTask);
  }

  async claim(instanceId: string): Promise<Task | undefined> {
    this.live();
    const row = this.claimNext.get({
      instance: checkString(instanceId, 'instanceId'),
      now: new Date(this.now()).toISOString(),
    });
    return row ? toTask(row as TaskRow) : undefined;
  }

  async delete(id: string): Promise<Task | undefined> {
    this.live();
    if (typeof id !== 'string') return undefined;
    const row = this.db
      .transaction(() => {
        this.attachmentStore.removeAll(id);
        return this.remove.get(id) as TaskRow | undefined;
      })
      .immediate();
    return row && toTask(row);
  }

  async attach(attachment: NewTaskAttachment): Promise<AttachResult> {
    this.live();
    const checked = checkNewAttachment(attachment);
    return this.db
      .transaction(() =>
        this.byId.get(checked.taskId)
          ? this.attachmentStore.put(checked)
          : ({ ok: false, reason: 'not_found' } as const),
      )
      .immediate();
  }

  async attachments(taskId: string): Promise<TaskAttachment[] | undefined> {
    this.live();
    if (typeof taskId !== 'string' || !this.byId.get(taskId)) return undefined;
    return this.attachmentStore.all(taskId);
  }

  async finished(query: FinishedQuery): Promise<Task[]> {
    this.live();
    return (this.finishedSince.all(checkFinishedQuery(query)) as TaskRow[]).map(toTask);
  }

  async create(task: NewTask): Promise<Task> {
    this.live();
    const row = this.newRow(checkNewTask(task));
    this.insert.run(row);
    return toTask(row);
  }

  async createOnce(task: NewTask, claim: IdempotencyClaim): Promise<Once<Task>> {
    this.live();
    const checked = checkClaim(claim);
    const row = this.newRow(checkNewTask(task));
    return this.db
      .transaction((): Once<Task> => {
        const seen = this.keys.find(checked);
        if (seen) return replay<Task>(checked, seen);
        this.insert.run(row);
        const created = toTask(row);
        this.keys.keep(checked, created);
        return { value: created, replayed: false };
      })
      .immediate();
  }

  /** A checked new task as a row: pending, version 1, with a fresh id. */
  private newRow({
    text,
    priority,
    type,
    metadata,
    estimatedComplexity,
    createdBy,
  }: ReturnType<typeof checkNewTask>): TaskRow {
    const { id, time } = newTaskId(this.now());
    const at = new Date(time).toISOString();
    const row: TaskRow = {
      id,
      text,
      priority,
      status: 'pending',
      type,
      metadata,
      assigned_to: null,
      result: null,
      error: null,
      created_at: at,
      updated_at: at,
      completed_at: null,
      version: 1,
      estimated_complexity: estimatedComplexity,
      assessment: null,
      created_by: createdBy,
      completed_by: null,
    };
    return row;
  }

  async get(id: string): Promise<Task | undefined> {
    this.live();
    if (typeof id !== 'string') return undefined;
    const row = this.byId.get(id) as TaskRow | undefined;
    return row && toTask(row);
  }

  async list(filter: TaskFilter = {}): Promise<TaskPage> {
    this.live();
    const { statuses, assignedTo, type, limit, after } = checkTaskFilter(filter);

    const params: Record<string, unknown> = { limit: limit + 1 };
    statuses.forEach((s, i) => {
      params[`s${i}`] = s;
    });
    if (assignedTo !== undefined) params.assignedTo = assignedTo;
    if (type !== undefined) params.type = type;
    if (after) Object.assign(params, { p: after.p, c: after.c, i: after.i });

    const shape = `${statuses.length}:${assignedTo !== undefined}:${type !== undefined}:${after !== undefined}`;
    let stmt = this.lists.get(shape);
    if (!stmt) {
      const where: string[] = [];
      if (statuses.length) where.push(`status IN (${statuses.map((_, i) => `@s${i}`).join(', ')})`);
      if (assignedTo !== undefined) where.push('assigned_to = @assignedTo');
      if (type !== undefined) where.push('type = @type');
      // Keyset "after (p, c, i)" in the order (priority DESC, created_at, id). The leading `priority <= @p`
      // is redundant logically but gives the planner a range to seek to instead of scanning from the top.
      if (after) where.push('priority <= @p AND (priority < @p OR created_at > @c OR (created_at = @c AND id > @i))');
      stmt = this.db.prepare(
        `SELECT * FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY priority DESC, created_at ASC, id ASC LIMIT @limit`,
      );
      this.lists.set(shape, stmt);
    }
    // One row more than asked tells whether another page exists, so the last page has no cursor.
    const rows = stmt.all(params) as TaskRow[];
    const more = rows.length > limit;
    if (more) rows.length = limit;
    return {
      tasks: rows.map(toTask),
      nextCursor: more
        ? encodeCursor(rows[rows.length - 1].priority, rows[rows.length - 1].created_at, rows[rows.length - 1].id)
        : null,
    };
  }

  async update(id: string, patch: TaskPatch, opts: { from?: readonly TaskStatus[] } = {}): Promise<TaskUpdateResult> {
    this.live();
    if (typeof id !== 'string') return { ok: false, reason: 'not_found' };
    // Every field is checked before the transaction: a bad field must not leave a half-applied change.
    const changes = patchColumns(checkTaskPatch(patch));
    const from = opts.from === undefined ? undefined : checkStatuses(opts.from, 'from');

    // IMMEDIATE takes the write lock before the read, so the check and the write see the same row even when
    // another process shares the file.
    return this.db
      .transaction((): TaskUpdateResult => {
        const row = this.byId.get(id) as TaskRow | undefined;
        if (!row) return { ok: false, reason: 'not_found' };
        if (from && !from.includes(row.status)) return { ok: false, reason: 'conflict', task: toTask(row) };
        const next: TaskRow = {
          ...row,
          ...changes,
          updated_at: new Date(this.now()).toISOString(),
          version: row.version + 1,
        };
        this.write.run({ ...next, expected: row.version });
        return { ok: true, task: toTask(next) };
      })
      .immediate();
  }

  async releaseInstance(instanceId: string): Promise<string[]> {
    this.live();
    checkString(instanceId, 'instanceId');
    const rows = this.release.all({ instance: instanceId, now: new Date(this.now()).toISOString() }) as {
      id: string;
    }[];
    return rows.map((r) => r.id).sort();
  }
}
