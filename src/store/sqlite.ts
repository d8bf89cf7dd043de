// The embedded Store: one SQLite file (WAL) holding tasks, instances, the event log, API tokens and the audit log —
// the default on one machine.
// Several hub processes may share the file: writes take the lock up front (BEGIN IMMEDIATE) and wait up to busy_timeout.
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import type { BusEvent } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import {
  AuditBatch,
  type AuditBatchData,
  BUMP_SEQ_SQL,
  decodeSegment,
  INSERT_SEGMENT_SQL,
  NEXT_SEQ_SQL,
  timesBlob,
} from './audit-segment.ts';
import {
  type AuditLog,
  type AuditQuery,
  type AuditRecord,
  type AuditSink,
  checkDocumentId,
  type DocumentStore,
  documentJson,
  type EventLog,
  type FinishedQuery,
  type HookRun,
  type HookStore,
  type Instance,
  type InstanceStore,
  type NewAuditRecord,
  type NewHookRun,
  type NewScriptRun,
  type NewTask,
  type NewToken,
  type ScriptRun,
  type ScriptRunFilter,
  type ScriptRunStatus,
  type ScriptRunStore,
  type Store,
  type StoredDocument,
  type StoredEvent,
  type Task,
  type TaskComplexity,
  type TaskFilter,
  type TaskPage,
  type TaskPatch,
  type TaskStatus,
  type TaskStore,
  type TaskUpdateResult,
  type TokenRecord,
  type TokenStore,
} from './contract.ts';
import { checkClaim, type IdempotencyClaim, idempotencyRecord, type Once, replay } from './idempotency.ts';
import { sqliteAddon } from './sqlite-addon.ts';
import { SqliteAuditSink } from './sqlite-audit-sink.ts';
import {
  auditMatches,
  checkAssessment,
  checkAuditQuery,
  checkComplexity,
  checkFinishedQuery,
  checkHash,
  checkHookQuery,
  checkHookRun,
  checkInt,
  checkIso,
  checkMetadata,
  checkNewScriptRun,
  checkRunFilter,
  checkRunId,
  checkRunPatch,
  checkStatus,
  checkStatuses,
  checkString,
  checkTokenName,
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  describe,
  encodeCursor,
  invalid,
  journalRows,
  MAX_PAGE_SIZE,
  newestFirst,
  newTaskId,
  toJson,
  validAudit,
} from './validate.ts';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, newTaskId } from './validate.ts';

type Db = Database.Database;
type Statement = Database.Statement;

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran. Append only: never edit a
 * released step, add a new one (a file opened by an older Switchboard must still describe itself correctly).
 * Exported so tests can build a file at an older version and check the upgrade.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: tasks, instances, events. STRICT tables and CHECKs so a bug elsewhere cannot store a malformed row.
  `
  CREATE TABLE tasks (
    id           TEXT PRIMARY KEY,
    text         TEXT NOT NULL,
    priority     INTEGER NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'assigned', 'in_progress', 'completed', 'failed')),
    type         TEXT,
    metadata     TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
    assigned_to  TEXT,
    result       TEXT CHECK (result IS NULL OR json_valid(result)),
    error        TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    completed_at TEXT,
    version      INTEGER NOT NULL
  ) STRICT;
  -- The list order; the status variant serves the common "pending work" query without a sort.
  CREATE INDEX tasks_by_order ON tasks (priority DESC, created_at, id);
  CREATE INDEX tasks_by_status ON tasks (status, priority DESC, created_at, id);
  CREATE INDEX tasks_by_assignee ON tasks (assigned_to, status) WHERE assigned_to IS NOT NULL;

  CREATE TABLE instances (
    id            TEXT PRIMARY KEY,
    roles         TEXT NOT NULL CHECK (json_valid(roles)),
    registered_at TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    expires_at    INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX instances_by_expiry ON instances (expires_at);

  -- AUTOINCREMENT so a sequence number is never reused after trim: readers use seq as a resume point.
  CREATE TABLE events (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    data TEXT NOT NULL CHECK (json_valid(data))
  ) STRICT;
  `,
  // 2: API tokens and the audit log.
  `
  -- Only the SHA-256 of a token is kept; UNIQUE so a hash identifies one token and findByHash is an index seek.
  CREATE TABLE tokens (
    name         TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64 AND name NOT GLOB '*[^A-Za-z0-9_.-]*'),
    hash         TEXT NOT NULL UNIQUE CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
    roles        TEXT NOT NULL CHECK (json_valid(roles) AND json_type(roles) = 'array'),
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    last_used_at TEXT
  ) STRICT;

  -- One row per call. Times are canonical UTC ISO text, so text order is time order and ranges use the indexes;
  -- each index ends in the rowid (seq), which also serves the "newest first, then seq" order without a sort.
  -- AUTOINCREMENT so a seq is never reused after prune.
  CREATE TABLE audit (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    at            TEXT NOT NULL,
    principal     TEXT NOT NULL,
    transport     TEXT NOT NULL,
    capability    TEXT NOT NULL,
    input         TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('ok', 'error')),
    error_code    TEXT,
    error_message TEXT,
    duration_ms   REAL NOT NULL CHECK (duration_ms >= 0),
    request_id    TEXT NOT NULL,
    CHECK (CASE outcome WHEN 'ok' THEN error_code IS NULL AND error_message IS NULL ELSE error_code IS NOT NULL END)
  ) STRICT;
  CREATE INDEX audit_by_at ON audit (at);
  CREATE INDEX audit_by_capability ON audit (capability, at);
  CREATE INDEX audit_by_principal ON audit (principal, at);
  -- Append-only in the file too, not only in the API: records may be deleted (retention), never rewritten.
  CREATE TRIGGER audit_append_only BEFORE UPDATE ON audit
  BEGIN
    SELECT RAISE(ABORT, 'audit records are append-only');
  END;
  `,
  // 3: audit records in segments (src/store/audit-segment.ts): a batch of records per row instead of a row with
  // three index updates per call. Existing records move over, one segment each; seq numbers are kept.
  `
  CREATE TABLE audit_segments (
    first_seq INTEGER PRIMARY KEY,
    count     INTEGER NOT NULL CHECK (count > 0),
    at_min    TEXT NOT NULL,
    at_max    TEXT NOT NULL,
    data      TEXT NOT NULL
  ) STRICT;
  CREATE INDEX audit_segments_by_time ON audit_segments (at_max);
  CREATE TABLE audit_seq (id INTEGER PRIMARY KEY CHECK (id = 1), next INTEGER NOT NULL) STRICT;
  INSERT INTO audit_seq (id, next)
    VALUES (1, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0) + 1);
  INSERT INTO audit_segments (first_seq, count, at_min, at_max, data)
    SELECT seq, 1, at, at,
      at || char(9) || replace(replace(replace(principal, char(9), ' '), char(10), ' '), char(13), ' ') || char(9) ||
      transport || char(9) || replace(replace(replace(capability, char(9), ' '), char(10), ' '), char(13), ' ') ||
      char(9) || outcome || char(9) || coalesce(error_code, '') || char(9) || duration_ms || char(9) ||
      request_id || char(9) || coalesce(json_quote(error_message), '') || char(9) ||
      replace(replace(replace(input, char(9), ' '), char(10), ' '), char(13), ' ')
    FROM audit ORDER BY seq;
  DROP TRIGGER audit_append_only;
  DROP TABLE audit;
  -- Append-only in the file too: segments may be deleted (retention), never rewritten.
  CREATE TRIGGER audit_segments_append_only BEFORE UPDATE ON audit_segments
  BEGIN
    SELECT RAISE(ABORT, 'audit records are append-only');
  END;
  `,
  // 4: small JSON documents by namespace and key (an upstream server's cached tool list, and the like).
  `
  CREATE TABLE documents (
    namespace  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (namespace, key)
  ) STRICT, WITHOUT ROWID;
  `,
  // 5: task outcome metrics (estimated complexity, the completing agent's self-assessment) and plugin hook runs
  // with the if_changed fingerprints of their last successes.
  `
  ALTER TABLE tasks ADD COLUMN estimated_complexity TEXT
    CHECK (estimated_complexity IS NULL OR estimated_complexity IN ('simple', 'moderate', 'complex'));
  ALTER TABLE tasks ADD COLUMN assessment TEXT CHECK (assessment IS NULL OR json_valid(assessment));
  -- task.metrics reads finished tasks by time.
  CREATE INDEX tasks_by_completion ON tasks (completed_at) WHERE completed_at IS NOT NULL;

  CREATE TABLE hook_runs (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    plugin      TEXT NOT NULL,
    hook        TEXT NOT NULL,
    directory   TEXT NOT NULL,
    ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
    cached      INTEGER NOT NULL CHECK (cached IN (0, 1)),
    exit_code   INTEGER,
    duration_ms REAL NOT NULL CHECK (duration_ms >= 0),
    at          TEXT NOT NULL
  ) STRICT;
  CREATE INDEX hook_runs_by_at ON hook_runs (at);

  CREATE TABLE hook_fingerprints (
    key         TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL
  ) STRICT;
  `,
  // 6: script runs and their journals (src/sources/scripts): a run row, and one row per journal entry.
  `
  CREATE TABLE script_runs (
    id         TEXT PRIMARY KEY,
    client_key TEXT NOT NULL,
    principal  TEXT NOT NULL,
    name       TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('running', 'finished')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    entries    INTEGER NOT NULL DEFAULT 0 CHECK (entries >= 0)
  ) STRICT;
  CREATE INDEX script_runs_by_update ON script_runs (updated_at);
  CREATE TABLE script_run_entries (
    run_id TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) STRICT, WITHOUT ROWID;
  `,
  // 7: audit segments stored as gathered (AuditBatch in src/store/audit-segment.ts): each record's start and
  // duration as two float64s in \`times\`, its text fields in \`data\`. Segments written before keep their lines
  // (\`times\` is NULL) and are read as such.
  `
  ALTER TABLE audit_segments ADD COLUMN times BLOB CHECK (times IS NULL OR length(times) = 16 * count);
  `,
  // 8: idempotency keys of creating calls (src/store/idempotency.ts), each with its first result, written in the
  // transaction that creates the record.
  `
  CREATE TABLE idempotency_keys (
    principal  TEXT NOT NULL,
    capability TEXT NOT NULL,
    key        TEXT NOT NULL,
    record     TEXT NOT NULL CHECK (json_valid(record)),
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (principal, capability, key)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  `,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

// --- tasks -------------------------------------------------------------------------------------------------------

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
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    version: row.version,
  };
}

/** Patch field → column, with the check that keeps the column well-formed. */
const PATCH_COLUMNS: { [K in keyof Required<TaskPatch>]: (v: unknown) => Partial<TaskRow> } = {
  text: (v) => ({ text: checkString(v, 'text', { nonEmpty: true })! }),
  priority: (v) => ({ priority: checkInt(v, 'priority') }),
  status: (v) => ({ status: checkStatus(v, 'status') }),
  type: (v) => ({ type: checkString(v, 'type', { nullable: true }) }),
  metadata: (v) => ({ metadata: checkMetadata(v) }),
  assignedTo: (v) => ({ assigned_to: checkString(v, 'assignedTo', { nullable: true }) }),
  result: (v) => ({ result: toJson(v, 'result') }),
  error: (v) => ({ error: checkString(v, 'error', { nullable: true }) }),
  completedAt: (v) => ({ completed_at: checkString(v, 'completedAt', { nullable: true }) }),
  estimatedComplexity: (v) => ({ estimated_complexity: checkComplexity(v) }),
  assessment: (v) => ({ assessment: checkAssessment(v) }),
};

/**
 * Idempotency keys for any creating write: `find` and `keep` run inside the write's own transaction, so a key and
 * the record it stands for are stored together or not at all.
 */
class SqliteIdempotencyKeys {
  private readonly select: Statement;
  private readonly upsert: Statement;
  private readonly expire: Statement;

  constructor(db: Db) {
    this.select = db.prepare(
      `SELECT record FROM idempotency_keys
       WHERE principal = @principal AND capability = @capability AND key = @key AND expires_at > @now`,
    );
    // An expired key may still be in the table (pruned lazily): taking it again replaces it.
    this.upsert = db.prepare(
      `INSERT OR REPLACE INTO idempotency_keys (principal, capability, key, record, expires_at)
       VALUES (@principal, @capability, @key, @record, @expires_at)`,
    );
    this.expire = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  }

  /** The stored record of a live key, parsed; undefined when the key is new or expired. */
  find(claim: IdempotencyClaim): unknown {
    const row = this.select.get({ ...scope(claim), now: Date.now() }) as { record: string } | undefined;
    return row && JSON.parse(row.record);
  }

  /** Store the key with the call's result, and drop keys whose retention ended (a range on the expiry index). */
  keep(claim: IdempotencyClaim, result: unknown): void {
    const record = idempotencyRecord(claim, result);
    this.expire.run(Date.now());
    this.upsert.run({ ...scope(claim), record: JSON.stringify(record), expires_at: record.expiresAt });
  }
}

function scope(claim: IdempotencyClaim): { principal: string; capability: string; key: string } {
  return { principal: claim.principal, capability: claim.capability, key: claim.key };
}

class SqliteTasks implements TaskStore {
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
  ) {
    this.keys = new SqliteIdempotencyKeys(db);
    this.insert = db.prepare(
      `INSERT INTO tasks (id, text, priority, status, type, metadata, assigned_to, result, error, created_at, updated_at, completed_at, version, estimated_complexity, assessment)
       VALUES (@id, @text, @priority, @status, @type, @metadata, @assigned_to, @result, @error, @created_at, @updated_at, @completed_at, @version, @estimated_complexity, @assessment)`,
    );
    this.byId = db.prepare('SELECT * FROM tasks WHERE id = ?');
    this.write = db.prepare(
      `UPDATE tasks SET text = @text, priority = @priority, status = @status, type = @type, metadata = @metadata,
         assigned_to = @assigned_to, result = @result, error = @error, updated_at = @updated_at,
         completed_at = @completed_at, version = @version, estimated_complexity = @estimated_complexity,
         assessment = @assessment
       WHERE id = @id AND version = @expected`,
    );
    this.release = db.prepare(
      `UPDATE tasks SET status = 'pending', assigned_to = NULL, updated_at = @now, version = version + 1
       WHERE assigned_to = @instance AND status IN ('assigned', 'in_progress')
       RETURNING id`,
    );
    this.finishedSince = db.prepare(
      `SELECT * FROM tasks WHERE completed_at IS NOT NULL AND completed_at >= @since AND (@type IS NULL OR type = @type)
       ORDER BY completed_at DESC, id DESC LIMIT @limit`,
    );
  }

  private readonly finishedSince: Statement;

  async finished(query: FinishedQuery): Promise<Task[]> {
    this.live();
    return (this.finishedSince.all(checkFinishedQuery(query)) as TaskRow[]).map(toTask);
  }

  async create(task: NewTask): Promise<Task> {
    this.live();
    const row = this.newRow(task);
    this.insert.run(row);
    return toTask(row);
  }

  async createOnce(task: NewTask, claim: IdempotencyClaim): Promise<Once<Task>> {
    this.live();
    const checked = checkClaim(claim);
    const row = this.newRow(task);
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
  private newRow(task: NewTask): TaskRow {
    if (!task || typeof task !== 'object') invalid(`task must be an object, got ${describe(task)}.`);
    const text = checkString(task.text, 'text', { nonEmpty: true })!;
    const priority = checkInt(task.priority, 'priority');
    const type = task.type === undefined ? null : checkString(task.type, 'type', { nullable: true });
    const metadata = checkMetadata(task.metadata);
    const estimatedComplexity = checkComplexity(task.estimatedComplexity);
    const { id, time } = newTaskId();
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
    if (typeof filter !== 'object' || filter === null) invalid(`filter must be an object, got ${describe(filter)}.`);
    // An empty status list means "no status filter", like an absent one.
    const statuses = filter.status === undefined ? [] : checkStatuses(filter.status, 'status');
    const assignedTo = filter.assignedTo === undefined ? undefined : checkString(filter.assignedTo, 'assignedTo')!;
    const type = filter.type === undefined ? undefined : checkString(filter.type, 'type')!;
    const limit = filter.limit === undefined ? DEFAULT_PAGE_SIZE : checkInt(filter.limit, 'limit', 1, MAX_PAGE_SIZE);
    const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);

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
    if (!patch || typeof patch !== 'object') invalid(`patch must be an object, got ${describe(patch)}.`);
    // Validate every field before the transaction: a bad field must not leave a half-applied change.
    const changes: Partial<TaskRow> = {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      // hasOwn, not a plain lookup: a key like 'toString' must not reach Object.prototype.
      const column = Object.hasOwn(PATCH_COLUMNS, key) ? PATCH_COLUMNS[key as keyof TaskPatch] : undefined;
      if (!column)
        invalid(
          `'${key}' is not a task field that can be changed; use one of ${Object.keys(PATCH_COLUMNS).join(', ')}.`,
        );
      Object.assign(changes, column(value));
    }
    const from = opts.from === undefined ? undefined : checkStatuses(opts.from, 'from');

    // IMMEDIATE takes the write lock before the read, so the check and the write see the same row even when
    // another process shares the file.
    return this.db
      .transaction((): TaskUpdateResult => {
        const row = this.byId.get(id) as TaskRow | undefined;
        if (!row) return { ok: false, reason: 'not_found' };
        if (from && !from.includes(row.status)) return { ok: false, reason: 'conflict', task: toTask(row) };
        const next: TaskRow = { ...row, ...changes, updated_at: new Date().toISOString(), version: row.version + 1 };
        this.write.run({ ...next, expected: row.version });
        return { ok: true, task: toTask(next) };
      })
      .immediate();
  }

  async releaseInstance(instanceId: string): Promise<string[]> {
    this.live();
    checkString(instanceId, 'instanceId');
    const rows = this.release.all({ instance: instanceId, now: new Date().toISOString() }) as { id: string }[];
    return rows.map((r) => r.id).sort();
  }
}

// --- instances ---------------------------------------------------------------------------------------------------

interface InstanceRow {
  id: string;
  roles: string;
  registered_at: string;
  last_seen_at: string;
  expires_at: number;
}

function toInstance(row: InstanceRow): Instance {
  return {
    id: row.id,
    roles: JSON.parse(row.roles),
    registeredAt: row.registered_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
  };
}

class SqliteDocuments implements DocumentStore {
  private readonly getStmt: Statement;
  private readonly putStmt: Statement;
  private readonly deleteStmt: Statement;
  private readonly listStmt: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.getStmt = db.prepare('SELECT * FROM documents WHERE namespace = ? AND key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO documents (namespace, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM documents WHERE namespace = ? AND key = ?');
    this.listStmt = db.prepare('SELECT * FROM documents WHERE namespace = ? ORDER BY key');
  }

  async get<T>(namespace: string, key: string): Promise<StoredDocument<T> | undefined> {
    this.live();
    checkDocumentId(namespace, key);
    const row = this.getStmt.get(namespace, key) as DocumentRow | undefined;
    return row ? toDocument<T>(row) : undefined;
  }

  async put(namespace: string, key: string, value: unknown): Promise<StoredDocument> {
    this.live();
    checkDocumentId(namespace, key);
    const text = documentJson(value);
    const updatedAt = new Date().toISOString();
    this.putStmt.run(namespace, key, text, updatedAt);
    return { namespace, key, value: JSON.parse(text), updatedAt };
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    this.live();
    checkDocumentId(namespace, key);
    return this.deleteStmt.run(namespace, key).changes > 0;
  }

  async list<T>(namespace: string): Promise<StoredDocument<T>[]> {
    this.live();
    checkDocumentId(namespace, 'x');
    return (this.listStmt.all(namespace) as DocumentRow[]).map((r) => toDocument<T>(r));
  }
}

interface DocumentRow {
  namespace: string;
  key: string;
  value: string;
  updated_at: string;
}

function toDocument<T>(row: DocumentRow): StoredDocument<T> {
  return { namespace: row.namespace, key: row.key, value: JSON.parse(row.value) as T, updatedAt: row.updated_at };
}

class SqliteInstances implements InstanceStore {
  private readonly upsert: Statement;
  private readonly touch: Statement;
  private readonly byId: Statement;
  private readonly all: Statement;
  private readonly purge: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    // Registering again refreshes the lease and replaces roles; registeredAt survives unless the old lease had
    // already ended (then it is a new registration that merely reuses the id).
    this.upsert = db.prepare(
      `INSERT INTO instances (id, roles, registered_at, last_seen_at, expires_at)
       VALUES (@id, @roles, @now, @now, @expiresAt)
       ON CONFLICT (id) DO UPDATE SET
         roles = excluded.roles,
         last_seen_at = excluded.last_seen_at,
         expires_at = excluded.expires_at,
         registered_at = CASE WHEN instances.expires_at < @nowMs THEN excluded.registered_at ELSE instances.registered_at END
       RETURNING *`,
    );
    this.touch = db.prepare(
      `UPDATE instances SET last_seen_at = @now, expires_at = @expiresAt
       WHERE id = @id AND expires_at >= @nowMs
       RETURNING *`,
    );
    this.byId = db.prepare('SELECT * FROM instances WHERE id = ?');
    this.all = db.prepare('SELECT * FROM instances ORDER BY id');
    this.purge = db.prepare('DELETE FROM instances WHERE expires_at < ? RETURNING id');
  }

  async register(id: string, roles: string[], ttlMs: number): Promise<Instance> {
    this.live();
    checkString(id, 'id', { nonEmpty: true });
    if (!Array.isArray(roles)) invalid(`roles must be an array of strings, got ${describe(roles)}.`);
    for (const [i, r] of roles.entries()) checkString(r, `roles[${i}]`);
    const ttl = checkInt(ttlMs, 'ttlMs', 1);
    const nowMs = Date.now();
    const row = this.upsert.get({
      id,
      roles: JSON.stringify(roles),
      now: new Date(nowMs).toISOString(),
      nowMs,
      expiresAt: nowMs + ttl,
    }) as InstanceRow;
    return toInstance(row);
  }

  async heartbeat(id: string, ttlMs: number): Promise<Instance | undefined> {
    this.live();
    const ttl = checkInt(ttlMs, 'ttlMs', 1);
    if (typeof id !== 'string') return undefined;
    const nowMs = Date.now();
    const row = this.touch.get({ id, now: new Date(nowMs).toISOString(), nowMs, expiresAt: nowMs + ttl }) as
      | InstanceRow
      | undefined;
    return row && toInstance(row);
  }

  async get(id: string): Promise<Instance | undefined> {
    this.live();
    if (typeof id !== 'string') return undefined;
    const row = this.byId.get(id) as InstanceRow | undefined;
    return row && toInstance(row);
  }

  async list(): Promise<Instance[]> {
    this.live();
    return (this.all.all() as InstanceRow[]).map(toInstance);
  }

  async expire(now: number): Promise<string[]> {
    this.live();
    if (typeof now !== 'number' || !Number.isFinite(now))
      invalid(`now must be epoch milliseconds, got ${describe(now)}.`);
    return (this.purge.all(now) as { id: string }[]).map((r) => r.id).sort();
  }
}

// --- events ------------------------------------------------------------------------------------------------------

class SqliteEvents implements EventLog {
  private readonly insert: Statement;
  private readonly insertAll: Database.Transaction<(rows: readonly (readonly [string, string | null])[]) => void>;
  private readonly newest: Statement;
  private readonly drop: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.insert = db.prepare('INSERT INTO events (type, data) VALUES (?, ?)');
    this.insertAll = db.transaction((rows: readonly (readonly [string, string | null])[]) => {
      for (const [type, data] of rows) this.insert.run(type, data);
    });
    this.newest = db.prepare(
      'SELECT seq, data FROM (SELECT seq, data FROM events ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC',
    );
    // Delete everything at or below the (max+1)-th newest seq; when there are fewer rows the subquery is NULL
    // and nothing is deleted.
    this.drop = db.prepare(
      'DELETE FROM events WHERE seq <= (SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?)',
    );
  }

  async append(event: BusEvent): Promise<void> {
    await this.appendMany([event]);
  }

  /** Append several events in one transaction (one fsync-free commit instead of one per event). */
  async appendMany(events: readonly BusEvent[]): Promise<void> {
    this.live();
    const rows = events.map((event) => {
      if (!event || typeof event !== 'object' || typeof event.type !== 'string')
        invalid(`event must be an object with a string type, got ${describe(event)}.`);
      return [event.type, toJson(event, 'event')] as const;
    });
    if (rows.length === 1) this.insert.run(rows[0][0], rows[0][1]);
    else if (rows.length > 1) this.insertAll.immediate(rows);
  }

  async recent(limit: number): Promise<StoredEvent[]> {
    this.live();
    const n = checkInt(limit, 'limit', 0);
    if (n === 0) return [];
    return (this.newest.all(n) as { seq: number; data: string }[]).map((r) => ({
      seq: r.seq,
      event: JSON.parse(r.data),
    }));
  }

  async trim(max: number): Promise<void> {
    this.live();
    this.drop.run(checkInt(max, 'max', 0));
  }
}

// --- tokens ------------------------------------------------------------------------------------------------------

interface TokenRow {
  name: string;
  hash: string;
  roles: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    name: row.name,
    hash: row.hash,
    roles: JSON.parse(row.roles),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}

function isConstraint(err: unknown, code: string): boolean {
  return err instanceof Database.SqliteError && err.code === code;
}

class SqliteTokens implements TokenStore {
  private readonly insert: Statement;
  private readonly byName: Statement;
  private readonly byHash: Statement;
  private readonly all: Statement;
  private readonly remove: Statement;
  private readonly use: Statement;
  private readonly total: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.insert = db.prepare(
      `INSERT INTO tokens (name, hash, roles, created_at, expires_at, last_used_at)
       VALUES (@name, @hash, @roles, @created_at, @expires_at, @last_used_at)`,
    );
    this.byName = db.prepare('SELECT * FROM tokens WHERE name = ?');
    this.byHash = db.prepare('SELECT * FROM tokens WHERE hash = ?');
    this.all = db.prepare('SELECT * FROM tokens ORDER BY name');
    this.remove = db.prepare('DELETE FROM tokens WHERE name = ?');
    // Monotonic: canonical ISO text compares as time, so an out-of-order touch cannot move lastUsedAt back.
    this.use = db.prepare(
      'UPDATE tokens SET last_used_at = @at WHERE name = @name AND (last_used_at IS NULL OR last_used_at < @at)',
    );
    this.total = db.prepare('SELECT count(*) AS n FROM tokens');
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  private readonly dataVersion: Statement;
  /** Changes made through this connection (data_version only counts other connections' commits). */
  private localChanges = 0;

  async version(): Promise<string> {
    this.live();
    return `${this.dataVersion.get() as number}.${this.localChanges}`;
  }

  async create(token: NewToken): Promise<TokenRecord> {
    this.live();
    if (!token || typeof token !== 'object') invalid(`token must be an object, got ${describe(token)}.`);
    const name = checkTokenName(token.name);
    const hash = checkHash(token.hash);
    if (!Array.isArray(token.roles)) invalid(`roles must be an array of strings, got ${describe(token.roles)}.`);
    for (const [i, r] of token.roles.entries()) checkString(r, `roles[${i}]`, { nonEmpty: true });
    const expiresAt =
      token.expiresAt === undefined || token.expiresAt === null ? null : checkIso(token.expiresAt, 'expiresAt');
    const row: TokenRow = {
      name,
      hash,
      roles: JSON.stringify(token.roles),
      created_at: new Date().toISOString(),
      expires_at: expiresAt,
      last_used_at: null,
    };
    try {
      this.insert.run(row);
      this.localChanges++;
    } catch (err) {
      if (isConstraint(err, 'SQLITE_CONSTRAINT_PRIMARYKEY'))
        throw new SwitchboardError(
          'CONFLICT',
          `Token '${name}' already exists; revoke it first with: switchboard token revoke ${name}`,
        );
      if (isConstraint(err, 'SQLITE_CONSTRAINT_UNIQUE'))
        throw new SwitchboardError(
          'CONFLICT',
          `Another token already has this hash; generate a new token instead of reusing one.`,
        );
      throw err;
    }
    return toToken(row);
  }

  async list(): Promise<TokenRecord[]> {
    this.live();
    return (this.all.all() as TokenRow[]).map(toToken);
  }

  async get(name: string): Promise<TokenRecord | undefined> {
    this.live();
    const row = this.byName.get(checkTokenName(name)) as TokenRow | undefined;
    return row && toToken(row);
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    this.live();
    const row = this.byHash.get(checkHash(hash)) as TokenRow | undefined;
    return row && toToken(row);
  }

  async revoke(name: string): Promise<boolean> {
    this.live();
    const removed = this.remove.run(checkTokenName(name)).changes > 0;
    if (removed) this.localChanges++;
    return removed;
  }

  async touch(name: string, atIso: string): Promise<void> {
    this.live();
    this.use.run({ name: checkTokenName(name), at: checkIso(atIso, 'atIso') });
  }

  async count(): Promise<number> {
    this.live();
    return (this.total.get() as { n: number }).n;
  }
}

// --- audit -------------------------------------------------------------------------------------------------------

class SqliteAudit implements AuditLog {
  private readonly nextSeq: Statement;
  private readonly insertSegment: Statement;
  private readonly bumpSeq: Statement;
  private readonly appendSegment: Database.Transaction<(batch: AuditBatchData) => void>;
  private readonly candidates: Statement;
  private readonly expired: Statement;
  private readonly drop: Statement;

  constructor(
    private readonly db: Db,
    private readonly live: () => void,
    private readonly file = ':memory:',
  ) {
    this.nextSeq = db.prepare(NEXT_SEQ_SQL).pluck();
    this.insertSegment = db.prepare(INSERT_SEGMENT_SQL);
    this.bumpSeq = db.prepare(BUMP_SEQ_SQL);
    this.appendSegment = db.transaction((batch: AuditBatchData) => {
      const first = this.nextSeq.get() as number;
      this.insertSegment.run(first, batch.count, batch.atMin, batch.atMax, batch.text, timesBlob(batch.times));
      this.bumpSeq.run(batch.count);
    });
    // Segments that may hold records in [since, until), newest first.
    this.candidates = db.prepare(
      'SELECT first_seq, at_max, data, times FROM audit_segments WHERE at_max >= @since AND at_min < @until ORDER BY at_max DESC',
    );
    this.expired = db.prepare('SELECT coalesce(sum(count), 0) FROM audit_segments WHERE at_max < ?').pluck();
    this.drop = db.prepare('DELETE FROM audit_segments WHERE at_max < ?');
  }

  /** A worker-thread writer on its own connection (file stores only: a `:memory:` database is private). */
  openSink(onError: (message: string) => void): AuditSink | undefined {
    if (this.file === ':memory:' || this.file === '') return undefined;
    return new SqliteAuditSink(this.file, onError);
  }

  async append(record: NewAuditRecord): Promise<void> {
    await this.appendMany([record]);
  }

  /** Append several records as one segment: all or none. */
  async appendMany(records: readonly NewAuditRecord[]): Promise<void> {
    this.live();
    if (!Array.isArray(records)) invalid(`audit records must be an array, got ${describe(records)}.`);
    if (records.length === 0) return;
    this.appendSegment.immediate(AuditBatch.of(records.map(validAudit)));
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    this.live();
    const q = checkAuditQuery(query);
    const { limit, since, until } = q;
    const found: AuditRecord[] = [];
    for (const row of this.candidates.iterate({ since, until }) as Iterable<{
      first_seq: number;
      at_max: string;
      data: string;
      times: Uint8Array | null;
    }>) {
      // Once `limit` records are in hand, a segment whose newest record is older than the limit-th cannot matter.
      if (found.length >= limit) {
        found.sort(newestFirst);
        found.length = limit;
        if (row.at_max < found[limit - 1].at) break;
      }
      for (const r of decodeSegment(row.first_seq, row.data, row.times)) if (auditMatches(r, q)) found.push(r);
    }
    return found.sort(newestFirst).slice(0, limit);
  }

  /** Retention: delete the segments whose records are all older than `before`; returns how many records went. */
  async prune(before: string): Promise<number> {
    this.live();
    const at = checkIso(before, 'before');
    return this.db
      .transaction(() => {
        const n = this.expired.get(at) as number;
        this.drop.run(at);
        return n;
      })
      .immediate();
  }
}

interface HookRunRow {
  seq: number;
  plugin: string;
  hook: string;
  directory: string;
  ok: number;
  cached: number;
  exit_code: number | null;
  duration_ms: number;
  at: string;
}

function toHookRun(row: HookRunRow): HookRun {
  return {
    seq: row.seq,
    plugin: row.plugin,
    hook: row.hook,
    directory: row.directory,
    ok: row.ok === 1,
    cached: row.cached === 1,
    exitCode: row.exit_code,
    durationMs: row.duration_ms,
    at: row.at,
  };
}

class SqliteHooks implements HookStore {
  private readonly insert: Statement;
  private readonly between: Statement;
  private readonly getPrint: Statement;
  private readonly putPrint: Statement;
  private readonly dropPrint: Statement;
  private readonly drop: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.insert = db.prepare(
      `INSERT INTO hook_runs (plugin, hook, directory, ok, cached, exit_code, duration_ms, at)
       VALUES (@plugin, @hook, @directory, @ok, @cached, @exit_code, @duration_ms, @at) RETURNING *`,
    );
    this.between = db.prepare(
      'SELECT * FROM hook_runs WHERE at >= @since AND at < @until ORDER BY at ASC, seq ASC LIMIT @limit',
    );
    this.getPrint = db.prepare('SELECT fingerprint FROM hook_fingerprints WHERE key = ?').pluck();
    this.putPrint = db.prepare(
      'INSERT INTO hook_fingerprints (key, fingerprint) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint',
    );
    this.dropPrint = db.prepare('DELETE FROM hook_fingerprints WHERE key = ?');
    this.drop = db.prepare('DELETE FROM hook_runs WHERE at < ?');
  }

  async record(run: NewHookRun): Promise<HookRun> {
    this.live();
    const r = checkHookRun(run);
    const row = this.insert.get({
      plugin: r.plugin,
      hook: r.hook,
      directory: r.directory,
      ok: r.ok ? 1 : 0,
      cached: r.cached ? 1 : 0,
      exit_code: r.exitCode,
      duration_ms: r.durationMs,
      at: r.at,
    }) as HookRunRow;
    return toHookRun(row);
  }

  async runs(query: { since: string; until?: string; limit?: number }): Promise<HookRun[]> {
    this.live();
    return (this.between.all(checkHookQuery(query)) as HookRunRow[]).map(toHookRun);
  }

  async fingerprint(key: string): Promise<string | undefined> {
    this.live();
    return (this.getPrint.get(checkString(key, 'key', { nonEmpty: true })) as string | undefined) ?? undefined;
  }

  async setFingerprint(key: string, fingerprint: string | null): Promise<void> {
    this.live();
    checkString(key, 'key', { nonEmpty: true });
    if (fingerprint === null) this.dropPrint.run(key);
    else this.putPrint.run(key, checkString(fingerprint, 'fingerprint', { nonEmpty: true }));
  }

  async prune(before: string): Promise<number> {
    this.live();
    return this.drop.run(checkIso(before, 'before')).changes;
  }
}

// --- script runs -------------------------------------------------------------------------------------------------

interface ScriptRunRow {
  id: string;
  client_key: string;
  principal: string;
  name: string;
  status: ScriptRunStatus;
  created_at: string;
  updated_at: string;
  entries: number;
}

function toScriptRun(row: ScriptRunRow): ScriptRun {
  return {
    id: row.id,
    clientKey: row.client_key,
    principal: row.principal,
    name: row.name,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    entries: row.entries,
  };
}

class SqliteScriptRuns implements ScriptRunStore {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly insertEntry: Statement;
  private readonly bump: Statement;
  private readonly entries: Statement;
  private readonly write: Statement;
  private readonly drop: Statement;
  private readonly dropEntries: Statement;
  private readonly expired: Statement;
  private readonly appendAll: Database.Transaction<(id: string, data: readonly string[]) => boolean>;
  private readonly lists = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly live: () => void,
  ) {
    this.insert = db.prepare(
      `INSERT INTO script_runs (id, client_key, principal, name, status, created_at, updated_at, entries)
       VALUES (@id, @client_key, @principal, @name, 'running', @at, @at, 0)`,
    );
    this.byId = db.prepare('SELECT * FROM script_runs WHERE id = ?');
    this.insertEntry = db.prepare('INSERT INTO script_run_entries (run_id, seq, data) VALUES (?, ?, ?)');
    this.bump = db.prepare(
      'UPDATE script_runs SET entries = entries + ?, updated_at = ? WHERE id = ? RETURNING entries - ? AS first',
    );
    this.entries = db.prepare('SELECT data FROM script_run_entries WHERE run_id = ? ORDER BY seq').pluck();
    this.write = db.prepare(
      `UPDATE script_runs SET status = coalesce(@status, status), client_key = coalesce(@client_key, client_key),
       updated_at = @at WHERE id = @id RETURNING *`,
    );
    this.drop = db.prepare('DELETE FROM script_runs WHERE id = ?');
    this.dropEntries = db.prepare('DELETE FROM script_run_entries WHERE run_id = ?');
    this.expired = db.prepare("SELECT id FROM script_runs WHERE status = 'finished' AND updated_at < ?").pluck();
    // The row's counter hands out the sequence numbers, so concurrent appenders (two hubs) cannot interleave.
    this.appendAll = db.transaction((id: string, data: readonly string[]) => {
      const row = this.bump.get(data.length, new Date().toISOString(), id, data.length) as
        | { first: number }
        | undefined;
      if (!row) return false;
      for (const [i, d] of data.entries()) this.insertEntry.run(id, row.first + i, d);
      return true;
    });
  }

  async create(run: NewScriptRun): Promise<ScriptRun> {
    this.live();
    const r = checkNewScriptRun(run);
    const id = r.id;
    const row = { id, client_key: r.clientKey, principal: r.principal, name: r.name, at: new Date().toISOString() };
    try {
      this.insert.run(row);
    } catch (err) {
      if (isConstraint(err, 'SQLITE_CONSTRAINT_PRIMARYKEY'))
        throw new SwitchboardError('CONFLICT', `Script run '${id}' already exists.`);
      throw err;
    }
    return toScriptRun(this.byId.get(id) as ScriptRunRow);
  }

  async get(id: string): Promise<ScriptRun | undefined> {
    this.live();
    const row = this.byId.get(checkRunId(id)) as ScriptRunRow | undefined;
    return row ? toScriptRun(row) : undefined;
  }

  async append(id: string, entries: readonly Record<string, unknown>[]): Promise<void> {
    this.live();
    checkRunId(id);
    const data = journalRows(entries);
    if (data.length === 0) return;
    if (!this.appendAll.immediate(id, data)) throw new SwitchboardError('NOT_FOUND', `No script run '${id}'.`);
  }

  async journal(id: string): Promise<Record<string, unknown>[]> {
    this.live();
    return (this.entries.all(checkRunId(id)) as string[]).map((d) => JSON.parse(d));
  }

  async update(id: string, patch: { status?: ScriptRunStatus; clientKey?: string }): Promise<ScriptRun | undefined> {
    this.live();
    checkRunId(id);
    const p = checkRunPatch(patch);
    const row = this.write.get({ id, status: p.status, client_key: p.clientKey, at: new Date().toISOString() }) as
      | ScriptRunRow
      | undefined;
    return row ? toScriptRun(row) : undefined;
  }

  async list(filter: ScriptRunFilter = {}): Promise<ScriptRun[]> {
    this.live();
    const f = checkRunFilter(filter);
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: f.limit };
    if (f.principal !== undefined) {
      where.push('principal = @principal');
      params.principal = f.principal;
    }
    if (f.clientKey !== undefined) {
      where.push('client_key = @client_key');
      params.client_key = f.clientKey;
    }
    if (f.status !== undefined) {
      where.push('status = @status');
      params.status = f.status;
    }
    const sql = `SELECT * FROM script_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY updated_at DESC, rowid DESC LIMIT @limit`;
    let stmt = this.lists.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.lists.set(sql, stmt);
    }
    return (stmt.all(params) as ScriptRunRow[]).map(toScriptRun);
  }

  async remove(id: string): Promise<boolean> {
    this.live();
    checkRunId(id);
    return this.db.transaction(() => {
      this.dropEntries.run(id);
      return this.drop.run(id).changes > 0;
    })();
  }

  async prune(before: string): Promise<number> {
    this.live();
    const cutoff = checkIso(before, 'before');
    return this.db.transaction(() => {
      const ids = this.expired.all(cutoff) as string[];
      for (const id of ids) {
        this.dropEntries.run(id);
        this.drop.run(id);
      }
      return ids.length;
    })();
  }
}

// --- the store ---------------------------------------------------------------------------------------------------

/** Apply pending migrations, one transaction each; re-reading the version under the lock makes a race harmless. */
function migrate(db: Db, file: string): void {
  for (;;) {
    const done = db
      .transaction(() => {
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version > MIGRATIONS.length) {
          throw new SwitchboardError(
            'UNAVAILABLE',
            `The store ${file} has schema version ${version}, newer than this Switchboard supports (${MIGRATIONS.length}). Upgrade Switchboard or point store.path at another file.`,
          );
        }
        if (version === MIGRATIONS.length) return true;
        db.exec(MIGRATIONS[version]);
        db.pragma(`user_version = ${version + 1}`);
        return false;
      })
      .immediate();
    if (done) return;
  }
}

/**
 * The SQLite {@link Store}: WAL journal, synchronous=NORMAL (durable across process crashes, at most the last
 * commits lost on power loss), busy_timeout 5 s, statements prepared once.
 *
 * @example
 * const store = SqliteStore.open('.switchboard/state.db');
 * const task = await store.tasks.create({ text: 'Write the README', priority: 50 });
 * await store.close();
 */
/**
 * A better-sqlite3 connection, given the addon's path when it is where the package builds it. In the startup
 * snapshot better-sqlite3's JavaScript is part of the blob, and that copy cannot look for the addon itself (the
 * `bindings` package it would use finds it from its own file's path): without a path, the package is loaded from
 * node_modules as a normal start does.
 */
function openDatabase(file: string): Database.Database {
  const addon = sqliteAddon();
  if (addon) return new Database(file, { nativeBinding: addon });
  const Installed = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return new Installed(file);
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly documents: DocumentStore;
  readonly hooks: HookStore;
  readonly scriptRuns: ScriptRunStore;
  private readonly pingStmt: Statement;

  private constructor(
    private readonly db: Db,
    readonly file: string,
  ) {
    const live = () => {
      if (!db.open) throw new SwitchboardError('UNAVAILABLE', `The SQLite store ${file} is closed.`);
    };
    this.tasks = new SqliteTasks(db, live);
    this.instances = new SqliteInstances(db, live);
    this.events = new SqliteEvents(db, live);
    this.tokens = new SqliteTokens(db, live);
    this.audit = new SqliteAudit(db, live, file);
    this.documents = new SqliteDocuments(db, live);
    this.hooks = new SqliteHooks(db, live);
    this.scriptRuns = new SqliteScriptRuns(db, live);
    this.pingStmt = db.prepare('SELECT 1 AS ok');
  }

  /** Open (creating and migrating when needed) the store at `file`; `':memory:'` for a private in-memory store. */
  static open(file: string): SqliteStore {
    const db = openDatabase(file);
    try {
      // busy_timeout first: switching to WAL itself needs a lock another process may hold.
      db.pragma('busy_timeout = 5000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      migrate(db, file);
      return new SqliteStore(db, file);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  async ping(): Promise<boolean> {
    if (!this.db.open) return false;
    try {
      return (this.pingStmt.get() as { ok: number }).ok === 1;
    } catch {
      return false;
    }
  }

  /** Close the file; further calls fail with UNAVAILABLE. Closing twice is harmless. */
  async close(): Promise<void> {
    if (!this.db.open) return;
    try {
      // Lets SQLite refresh planner statistics for the next run; cheap, and a failure must not block closing.
      this.db.pragma('optimize');
    } catch {
      // ignore
    }
    this.db.close();
  }
}
