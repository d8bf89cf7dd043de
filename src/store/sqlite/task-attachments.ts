// Task attachments in the SQLite store: one row per (task, key) holding the checked record as JSON. The task
// store calls these inside its own transactions, so the task's existence, the per-task limit and the write (or
// the removal with the task) are one step.
import type { AttachResult } from '../contract.ts';
import {
  MAX_ATTACHMENTS_PER_TASK,
  type StoredAttachment,
  type TaskAttachment,
  toAttachment,
} from '../records/task-attachments.ts';
import type { Db, Statement } from './connection.ts';

export class SqliteTaskAttachments {
  private readonly upsert: Statement;
  private readonly count: Statement;
  private readonly exists: Statement;
  private readonly byTask: Statement;
  private readonly removeTask: Statement;

  constructor(db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO task_attachments (task_id, key, record) VALUES (?, ?, ?)
       ON CONFLICT (task_id, key) DO UPDATE SET record = excluded.record`,
    );
    this.count = db.prepare('SELECT count(*) AS n FROM task_attachments WHERE task_id = ?').pluck();
    this.exists = db.prepare('SELECT 1 FROM task_attachments WHERE task_id = ? AND key = ?');
    this.byTask = db.prepare('SELECT key, record FROM task_attachments WHERE task_id = ? ORDER BY key');
    this.removeTask = db.prepare('DELETE FROM task_attachments WHERE task_id = ?');
  }

  /** Write one attachment (the caller holds the transaction and has checked the task exists). */
  put(a: { taskId: string; key: string; stored: StoredAttachment }): AttachResult {
    const replacing = this.exists.get(a.taskId, a.key) !== undefined;
    if (!replacing && (this.count.get(a.taskId) as number) >= MAX_ATTACHMENTS_PER_TASK)
      return { ok: false, reason: 'full' };
    const json = JSON.stringify(a.stored);
    this.upsert.run(a.taskId, a.key, json);
    return { ok: true, attachment: toAttachment(a.taskId, a.key, json) };
  }

  all(taskId: string): TaskAttachment[] {
    return (this.byTask.all(taskId) as { key: string; record: string }[]).map((r) =>
      toAttachment(taskId, r.key, r.record),
    );
  }

  removeAll(taskId: string): void {
    this.removeTask.run(taskId);
  }
}
