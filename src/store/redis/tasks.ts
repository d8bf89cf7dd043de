// Tasks on Redis: one hash per task (`task:<id>`) and sorted sets that index them in list order (all, by status,
// by type, by assignee) and by completion (`tasks:finished`); every write is one Lua script that keeps the indexes.

import type { Redis } from 'ioredis';
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
import { checkClaim, claimId, idempotencyRecord, replay } from '../idempotency.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { checkString } from '../records/common.ts';
import { checkNewAttachment, MAX_ATTACHMENTS_PER_TASK, toAttachment } from '../records/task-attachments.ts';
import {
  checkFinishedQuery,
  checkNewTask,
  checkNewTasks,
  checkStatuses,
  checkTaskFilter,
  checkTaskPatch,
  encodeCursor,
  newTaskId,
} from '../records/tasks.ts';
import { replies } from './connection.ts';
import { type Io, pairs, type ScriptDef } from './scripts.ts';

export interface TaskScripts {
  sbTaskCreate(key: string, ...args: string[]): Promise<number>;
  sbTaskCreateOnce(key: string, claimKey: string, ...args: string[]): Promise<string | null>;
  sbTaskUpdate(key: string, ...args: string[]): Promise<[string, string[]?]>;
  sbTaskRelease(...args: string[]): Promise<string[]>;
  sbTaskCreateMany(...args: string[]): Promise<number>;
  sbTaskClaim(...args: string[]): Promise<string[] | null>;
  sbTaskDelete(key: string, attachmentsKey: string, ...args: string[]): Promise<string[] | null>;
  sbTaskAttach(key: string, attachmentsKey: string, ...args: string[]): Promise<'ok' | 'not_found' | 'full'>;
}

// Keys are derived from the prefix inside the scripts (one Redis server, not Cluster: see docs/scale-out.md).
// task-index.lua: the index functions (all, by status, by type, by assignee, finished) every task write starts with;
// task-new.lua writes a new task hash from the field/value pairs in ARGV from `first` on, and indexes it; once.lua
// reads and takes an idempotency key (src/store/idempotency.ts) in the same script as the write, so a key and its
// record exist together or not at all.
export const TASK_SCRIPTS: ScriptDef<keyof TaskScripts>[] = [
  /** KEYS[1] task; ARGV: prefix, then field/value pairs. */
  ['sbTaskCreate', 1, ['task-index.lua', 'task-new.lua', 'task-create.lua']],
  /**
   * KEYS[1] task, KEYS[2] idempotency key; ARGV: prefix, the key's record (JSON), its ttl in ms, then field/value
   * pairs. Answers the stored record when the key is taken (nothing is written), else false.
   */
  ['sbTaskCreateOnce', 2, ['task-index.lua', 'task-new.lua', 'once.lua', 'task-create-once.lua']],
  /**
   * KEYS[1] task; ARGV: prefix, allowed statuses ('' = any, else ',a,b,'), updatedAt, number of fields to set,
   * field/value pairs, then fields to clear. Answers {'not_found'} | {'conflict', hash} | {'ok', hash}.
   */
  ['sbTaskUpdate', 1, ['task-index.lua', 'task-update.lua']],
  /** ARGV: prefix, instance id, updatedAt. Puts the instance's assigned / in-progress tasks back to pending. */
  ['sbTaskRelease', 0, ['task-index.lua', 'task-release.lua']],
  /** ARGV: prefix, then per task its number of field/value pairs and the pairs ('id' first). All or none. */
  ['sbTaskCreateMany', 0, ['task-index.lua', 'task-create-many.lua']],
  /** ARGV: prefix, instance id, updatedAt. The next pending task becomes in_progress for the instance; its hash. */
  ['sbTaskClaim', 0, ['task-index.lua', 'task-claim.lua']],
  /** KEYS[1] task, KEYS[2] its attachments; ARGV: prefix. The task's hash as it was, or false. */
  ['sbTaskDelete', 2, ['task-index.lua', 'task-delete.lua']],
  /** KEYS[1] task, KEYS[2] its attachments; ARGV: key, record JSON, most per task. 'ok' | 'not_found' | 'full'. */
  ['sbTaskAttach', 2, ['task-attach.lua']],
];

type Client = Redis & TaskScripts;
type CheckedNewTask = ReturnType<typeof checkNewTask>;

/**
 * The list-order member of a task: priority descending, then id ascending (ids are time-sortable and carry the
 * creation millisecond, so id order is creation order). Any safe-integer priority maps into 0..2^54, zero-padded.
 */
function orderKey(priority: number, id: string): string {
  return `${String(2 ** 53 - priority).padStart(17, '0')}|${id}`;
}

function toTask(h: Record<string, string>): Task {
  return {
    id: h.id,
    text: h.text,
    priority: Number(h.priority),
    status: h.status as TaskStatus,
    type: h.type ?? null,
    metadata: h.metadata === undefined ? null : JSON.parse(h.metadata),
    estimatedComplexity: (h.estimatedComplexity as TaskComplexity | undefined) ?? null,
    assessment: h.assessment === undefined ? null : JSON.parse(h.assessment),
    assignedTo: h.assignedTo ?? null,
    createdBy: h.createdBy ?? null,
    completedBy: h.completedBy ?? null,
    result: h.result === undefined ? null : JSON.parse(h.result),
    error: h.error ?? null,
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    completedAt: h.completedAt ?? null,
    version: Number(h.version),
  };
}

export class RedisTasks implements TaskStore {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: Io,
    /** The clock of creation, update and lease times (tests move it). */
    private readonly now: StoreClock = readClock,
  ) {}

  async create(task: NewTask): Promise<Task> {
    const { key, args, task: created } = this.newTask(task);
    await this.io(() => this.r.sbTaskCreate(key, this.P, ...args));
    return created;
  }

  async createOnce(task: NewTask, claim: IdempotencyClaim): Promise<Once<Task>> {
    const checked = checkClaim(claim);
    const { key, args, task: created } = this.newTask(task);
    const record = idempotencyRecord(checked, created);
    const seen = await this.io(() =>
      this.r.sbTaskCreateOnce(
        key,
        `${this.P}idem:${claimId(checked)}`,
        this.P,
        JSON.stringify(record),
        String(checked.ttlMs),
        ...args,
      ),
    );
    return seen === null ? { value: created, replayed: false } : replay<Task>(checked, JSON.parse(seen));
  }

  /** A checked new task: its key, its hash as field/value pairs (null fields left out), and the task itself. */
  private newTask(task: NewTask): { key: string; args: string[]; task: Task } {
    return this.newChecked(checkNewTask(task));
  }

  private newChecked({ text, priority, type, metadata, estimatedComplexity, createdBy }: CheckedNewTask): {
    key: string;
    args: string[];
    task: Task;
  } {
    const { id, time } = newTaskId(this.now());
    const at = new Date(time).toISOString();
    const fields: Record<string, string | null> = {
      id,
      text,
      priority: String(priority),
      status: 'pending',
      type,
      metadata,
      estimatedComplexity,
      createdBy,
      createdAt: at,
      updatedAt: at,
      version: '1',
      ord: orderKey(priority, id),
    };
    const args = Object.entries(fields).flatMap(([k, v]) => (v === null ? [] : [k, v]));
    return {
      key: `${this.P}task:${id}`,
      args,
      task: toTask(Object.fromEntries(args.flatMap((v, i) => (i % 2 ? [] : [[v, args[i + 1]]])))),
    };
  }

  async createMany(tasks: readonly NewTask[]): Promise<Task[]> {
    const made = checkNewTasks(tasks).map((task) => this.newChecked(task));
    const args = made.flatMap(({ args }) => [String(args.length / 2), ...args]);
    await this.io(() => this.r.sbTaskCreateMany(this.P, ...args));
    return made.map(({ task }) => task);
  }

  async claim(instanceId: string): Promise<Task | undefined> {
    checkString(instanceId, 'instanceId');
    const h = await this.io(() => this.r.sbTaskClaim(this.P, instanceId, new Date(this.now()).toISOString()));
    return h ? toTask(pairs(h)) : undefined;
  }

  async delete(id: string): Promise<Task | undefined> {
    if (typeof id !== 'string') return undefined;
    const h = await this.io(() => this.r.sbTaskDelete(`${this.P}task:${id}`, this.attachmentsKey(id), this.P));
    return h ? toTask(pairs(h)) : undefined;
  }

  /** A task's attachments: one hash, key → record JSON, removed with the task by task-delete.lua. */
  private attachmentsKey(taskId: string): string {
    return `${this.P}task-attachments:${taskId}`;
  }

  async attach(attachment: NewTaskAttachment): Promise<AttachResult> {
    const { taskId, key, stored } = checkNewAttachment(attachment);
    const json = JSON.stringify(stored);
    const reply = await this.io(() =>
      this.r.sbTaskAttach(
        `${this.P}task:${taskId}`,
        this.attachmentsKey(taskId),
        key,
        json,
        String(MAX_ATTACHMENTS_PER_TASK),
      ),
    );
    return reply === 'ok' ? { ok: true, attachment: toAttachment(taskId, key, json) } : { ok: false, reason: reply };
  }

  async attachments(taskId: string): Promise<TaskAttachment[] | undefined> {
    if (typeof taskId !== 'string') return undefined;
    const [exists, all] = await this.io(() =>
      replies(this.r.multi().exists(`${this.P}task:${taskId}`).hgetall(this.attachmentsKey(taskId))),
    );
    if (!exists) return undefined;
    return Object.entries(all as Record<string, string>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, json]) => toAttachment(taskId, key, json));
  }

  async get(id: string): Promise<Task | undefined> {
    if (typeof id !== 'string') return undefined;
    const h = await this.io(() => this.r.hgetall(`${this.P}task:${id}`));
    return h.id ? toTask(h) : undefined;
  }

  async list(filter: TaskFilter = {}): Promise<TaskPage> {
    const { statuses, assignedTo, type, limit, after } = checkTaskFilter(filter);
    // Walk the narrowest index in list order from the cursor; the other filters apply to what it yields.
    const index =
      assignedTo !== undefined
        ? `tasks:assignee:${assignedTo}`
        : type !== undefined
          ? `tasks:type:${type}`
          : statuses.length === 1
            ? `tasks:status:${statuses[0]}`
            : 'tasks:all';
    const keep = (t: Task) =>
      (statuses.length === 0 || statuses.includes(t.status)) &&
      (assignedTo === undefined || t.assignedTo === assignedTo) &&
      (type === undefined || t.type === type);
    const found: Task[] = [];
    let from = after ? `(${orderKey(after.p, after.i)}` : '-';
    const batch = Math.max(limit + 1, 100);
    // Bounded: each round either fills the page or reaches the end of the index.
    for (;;) {
      const members = await this.io(() => this.r.zrangebylex(`${this.P}${index}`, from, '+', 'LIMIT', 0, batch));
      if (members.length === 0) break;
      const pipe = this.r.pipeline();
      for (const m of members) pipe.hgetall(`${this.P}task:${m.slice(m.indexOf('|') + 1)}`);
      const rows = await this.io(() => replies(pipe));
      for (const h of rows) {
        const row = h as Record<string, string>;
        if (row.id) {
          const t = toTask(row);
          if (keep(t)) found.push(t);
        }
      }
      if (found.length > limit || members.length < batch) break;
      from = `(${members[members.length - 1]}`;
    }
    const more = found.length > limit;
    if (more) found.length = limit;
    const last = found[found.length - 1];
    return { tasks: found, nextCursor: more ? encodeCursor(last.priority, last.createdAt, last.id) : null };
  }

  async update(id: string, patch: TaskPatch, opts: { from?: readonly TaskStatus[] } = {}): Promise<TaskUpdateResult> {
    if (typeof id !== 'string') return { ok: false, reason: 'not_found' };
    // Every field is checked before the script: a bad field must not leave a half-applied change.
    const checked = checkTaskPatch(patch);
    const set: string[] = [];
    const clear: string[] = [];
    for (const [key, value] of Object.entries(checked)) {
      if (value === null) clear.push(key);
      else set.push(key, String(value));
    }
    const from = opts.from === undefined ? undefined : checkStatuses(opts.from, 'from');
    if (checked.priority !== undefined) set.push('ord', orderKey(checked.priority, id));
    const reply = await this.io(() =>
      this.r.sbTaskUpdate(
        `${this.P}task:${id}`,
        this.P,
        from ? `,${from.join(',')},` : '',
        new Date(this.now()).toISOString(),
        String(set.length / 2),
        ...set,
        ...clear,
      ),
    );
    if (reply[0] === 'not_found') return { ok: false, reason: 'not_found' };
    const task = toTask(pairs(reply[1] as string[]));
    return reply[0] === 'conflict' ? { ok: false, reason: 'conflict', task } : { ok: true, task };
  }

  /**
   * Walks `tasks:finished` (members 'completedAt|id', kept by the index scripts) from the newest down to `since`;
   * the type filter applies to what it yields, so a narrow type reads more members, never a wrong answer.
   */
  async finished(query: FinishedQuery): Promise<Task[]> {
    const q = checkFinishedQuery(query);
    const found: Task[] = [];
    const batch = Math.max(q.limit, 100);
    for (let offset = 0; found.length < q.limit; offset += batch) {
      const members = await this.io(() =>
        this.r.zrevrangebylex(`${this.P}tasks:finished`, '+', `[${q.since}`, 'LIMIT', offset, batch),
      );
      if (members.length === 0) break;
      const pipe = this.r.pipeline();
      for (const m of members) pipe.hgetall(`${this.P}task:${m.slice(m.lastIndexOf('|') + 1)}`);
      const rows = await this.io(() => replies(pipe));
      for (const h of rows) {
        const row = h as Record<string, string>;
        if (!row.id || (row.completedAt ?? '') < q.since) continue;
        if (q.type === null || row.type === q.type) found.push(toTask(row));
      }
      if (members.length < batch) break;
    }
    return found.slice(0, q.limit);
  }

  async releaseInstance(instanceId: string): Promise<string[]> {
    checkString(instanceId, 'instanceId');
    const ids = await this.io(() => this.r.sbTaskRelease(this.P, instanceId, new Date(this.now()).toISOString()));
    return [...ids].sort();
  }
}
