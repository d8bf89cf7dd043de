// The embedded Store: one SQLite file (WAL) holding tasks, instances, the event log, API tokens and the audit log —
// the default on one machine.
// Several hub processes may share the file: writes take the lock up front (BEGIN IMMEDIATE) and wait up to busy_timeout.
import Database from 'better-sqlite3';
import type { BusEvent } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import {
  BUMP_SEQ_SQL,
  cleanField,
  decodeSegment,
  encodeSegment,
  INSERT_SEGMENT_SQL,
  NEXT_SEQ_SQL,
  type Segment,
} from './audit-segment.ts';
import {
  AUDIT_DEFAULT_LIMIT,
  AUDIT_MAX_LIMIT,
  AUDIT_OUTCOMES,
  type AuditLog,
  type AuditOutcome,
  type AuditQuery,
  type AuditRecord,
  type AuditSink,
  type EventLog,
  type Instance,
  type InstanceStore,
  type NewAuditRecord,
  type NewTask,
  type NewToken,
  type Store,
  type StoredEvent,
  TASK_STATUSES,
  type Task,
  type TaskFilter,
  type TaskPage,
  type TaskPatch,
  type TaskStatus,
  type TaskStore,
  type TaskUpdateResult,
  TOKEN_NAME_PATTERN,
  type TokenRecord,
  type TokenStore,
} from './contract.ts';
import { SqliteAuditSink } from './sqlite-audit-sink.ts';

type Db = Database.Database;
type Statement = Database.Statement;

/** Page size when a caller gives none, and the largest page a caller may ask for. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

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
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

// --- ids ---------------------------------------------------------------------------------------------------------

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_SPACE = 2 ** 30;
let lastIdTime = 0;
let lastIdRandom = 0;

function base32(value: number, length: number): string {
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

// --- validation: reject bad input before it reaches a statement ----------------------------------------------------

function invalid(message: string): never {
  throw new SwitchboardError('INVALID_INPUT', message);
}

function checkString(
  value: unknown,
  field: string,
  opts: { nullable?: boolean; nonEmpty?: boolean } = {},
): string | null {
  if (value === null && opts.nullable) return null;
  if (typeof value !== 'string')
    invalid(`${field} must be a string${opts.nullable ? ' or null' : ''}, got ${describe(value)}.`);
  if (opts.nonEmpty && value.length === 0) invalid(`${field} must not be empty.`);
  return value;
}

function checkInt(value: unknown, field: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = min === Number.MIN_SAFE_INTEGER ? '' : ` between ${min} and ${max}`;
    invalid(`${field} must be an integer${range}, got ${describe(value)}.`);
  }
  return value;
}

function checkStatus(value: unknown, field: string): TaskStatus {
  if (!TASK_STATUSES.includes(value as TaskStatus)) {
    invalid(`${field} must be one of ${TASK_STATUSES.join(', ')}, got ${describe(value)}.`);
  }
  return value as TaskStatus;
}

function checkStatuses(value: unknown, field: string): TaskStatus[] {
  if (!Array.isArray(value)) invalid(`${field} must be an array of statuses, got ${describe(value)}.`);
  return [...new Set(value.map((s, i) => checkStatus(s, `${field}[${i}]`)))];
}

/** Serialise a JSON column; throws INVALID_INPUT for values JSON cannot hold (cycles, BigInt, functions). */
function toJson(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    invalid(`${field} must be JSON-serialisable: ${(err as Error).message}.`);
  }
  if (text === undefined) invalid(`${field} must be JSON-serialisable, got ${describe(value)}.`);
  return text;
}

function checkMetadata(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    invalid(`metadata must be an object or null, got ${describe(value)}.`);
  return toJson(value, 'metadata');
}

/** ISO 8601 date or date-time; a time needs a zone (Z or ±hh:mm) so it means one instant on every machine. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Validate an ISO time and return it in canonical UTC form (`2030-01-01T00:00:00.000Z`): every stored time has
 * that one shape, so comparing the text compares the instants. Impossible dates (Feb 30) are refused rather
 * than rolled over.
 */
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function checkIso(value: unknown, field: string): string {
  // The common case — already canonical, as toISOString() writes it — costs one regex and one round trip.
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms) && new Date(ms).toISOString() === value) return value;
  }
  const m = typeof value === 'string' ? ISO_TIME.exec(value) : null;
  if (m) {
    const [, year, month, day, hour = '0', minute = '0', second = '0'] = m;
    const mo = Number(month);
    const daysInMonth = new Date(Date.UTC(Number(year), mo, 0)).getUTCDate();
    if (
      mo >= 1 &&
      mo <= 12 &&
      Number(day) >= 1 &&
      Number(day) <= daysInMonth &&
      Number(hour) <= 23 &&
      Number(minute) <= 59 &&
      Number(second) <= 59
    ) {
      const ms = Date.parse(value as string);
      // Length 24 keeps the year within 0000..9999, where text order equals time order.
      if (!Number.isNaN(ms)) {
        const iso = new Date(ms).toISOString();
        if (iso.length === 24) return iso;
      }
    }
  }
  invalid(`${field} must be an ISO 8601 time such as 2030-01-01T00:00:00.000Z, got ${describe(value)}.`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

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
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    text: row.text,
    priority: row.priority,
    status: row.status,
    type: row.type,
    metadata: row.metadata === null ? null : JSON.parse(row.metadata),
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
};

/** Keyset position of a row in the list order. Opaque to callers: base64url of `{p, c, i}`. */
interface Cursor {
  p: number;
  c: string;
  i: string;
}

function encodeCursor(row: TaskRow): string {
  return Buffer.from(JSON.stringify({ p: row.priority, c: row.created_at, i: row.id } satisfies Cursor)).toString(
    'base64url',
  );
}

function decodeCursor(cursor: unknown): Cursor {
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
  const c = parsed as Partial<Cursor> | null;
  if (!c || typeof c !== 'object' || !Number.isSafeInteger(c.p) || typeof c.c !== 'string' || typeof c.i !== 'string')
    return fail();
  return { p: c.p as number, c: c.c, i: c.i };
}

class SqliteTasks implements TaskStore {
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
    this.insert = db.prepare(
      `INSERT INTO tasks (id, text, priority, status, type, metadata, assigned_to, result, error, created_at, updated_at, completed_at, version)
       VALUES (@id, @text, @priority, @status, @type, @metadata, @assigned_to, @result, @error, @created_at, @updated_at, @completed_at, @version)`,
    );
    this.byId = db.prepare('SELECT * FROM tasks WHERE id = ?');
    this.write = db.prepare(
      `UPDATE tasks SET text = @text, priority = @priority, status = @status, type = @type, metadata = @metadata,
         assigned_to = @assigned_to, result = @result, error = @error, updated_at = @updated_at,
         completed_at = @completed_at, version = @version
       WHERE id = @id AND version = @expected`,
    );
    this.release = db.prepare(
      `UPDATE tasks SET status = 'pending', assigned_to = NULL, updated_at = @now, version = version + 1
       WHERE assigned_to = @instance AND status IN ('assigned', 'in_progress')
       RETURNING id`,
    );
  }

  async create(task: NewTask): Promise<Task> {
    this.live();
    if (!task || typeof task !== 'object') invalid(`task must be an object, got ${describe(task)}.`);
    const text = checkString(task.text, 'text', { nonEmpty: true })!;
    const priority = checkInt(task.priority, 'priority');
    const type = task.type === undefined ? null : checkString(task.type, 'type', { nullable: true });
    const metadata = checkMetadata(task.metadata);
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
    };
    this.insert.run(row);
    return toTask(row);
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
    return { tasks: rows.map(toTask), nextCursor: more ? encodeCursor(rows[rows.length - 1]) : null };
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

function checkTokenName(value: unknown): string {
  if (typeof value !== 'string' || !TOKEN_NAME_PATTERN.test(value))
    invalid(
      `Token name ${describe(value)} is invalid: a token name is 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'.`,
    );
  return value;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkHash(value: unknown): string {
  // Never echo the value: a caller that passes the token itself by mistake must not see it land in a log.
  if (typeof value !== 'string' || !SHA256_HEX.test(value))
    invalid(
      `hash must be the lowercase hex SHA-256 of the token (64 characters from 0-9a-f), got ${typeof value === 'string' ? `a string of ${value.length} characters` : describe(value)}.`,
    );
  return value;
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

const AUDIT_QUERY_KEYS = ['since', 'until', 'capability', 'principal', 'outcome', 'limit'] as const;

function checkOutcome(value: unknown, field: string): AuditOutcome {
  if (!AUDIT_OUTCOMES.includes(value as AuditOutcome))
    invalid(`${field} must be one of ${AUDIT_OUTCOMES.join(', ')}, got ${describe(value)}.`);
  return value as AuditOutcome;
}

class SqliteAudit implements AuditLog {
  private readonly nextSeq: Statement;
  private readonly insertSegment: Statement;
  private readonly bumpSeq: Statement;
  private readonly appendSegment: Database.Transaction<(segment: Segment) => void>;
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
    this.appendSegment = db.transaction((segment: Segment) => {
      const first = this.nextSeq.get() as number;
      this.insertSegment.run(first, segment.count, segment.atMin, segment.atMax, segment.text);
      this.bumpSeq.run(segment.count);
    });
    // Segments that may hold records in [since, until), newest first.
    this.candidates = db.prepare(
      'SELECT first_seq, at_max, data FROM audit_segments WHERE at_max >= @since AND at_min < @until ORDER BY at_max DESC',
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
    this.appendSegment.immediate(encodeSegment(records.map(validAudit)));
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    this.live();
    if (typeof query !== 'object' || query === null || Array.isArray(query))
      invalid(`audit query must be an object, got ${describe(query)}.`);
    for (const key of Object.keys(query)) {
      if (!(AUDIT_QUERY_KEYS as readonly string[]).includes(key))
        invalid(`'${key}' is not an audit query field; use one of ${AUDIT_QUERY_KEYS.join(', ')}.`);
    }
    const limit = query.limit === undefined ? AUDIT_DEFAULT_LIMIT : checkInt(query.limit, 'limit', 1, AUDIT_MAX_LIMIT);
    const since = query.since === undefined ? '' : checkIso(query.since, 'since');
    const until = query.until === undefined ? '\uffff' : checkIso(query.until, 'until');
    const capability = query.capability === undefined ? undefined : checkString(query.capability, 'capability');
    const principal = query.principal === undefined ? undefined : checkString(query.principal, 'principal');
    const outcome = query.outcome === undefined ? undefined : checkOutcome(query.outcome, 'outcome');
    const newestFirst = (a: AuditRecord, b: AuditRecord) => (a.at === b.at ? b.seq - a.seq : a.at < b.at ? 1 : -1);
    const found: AuditRecord[] = [];
    for (const row of this.candidates.iterate({ since, until }) as Iterable<{
      first_seq: number;
      at_max: string;
      data: string;
    }>) {
      // Once `limit` records are in hand, a segment whose newest record is older than the limit-th cannot matter.
      if (found.length >= limit) {
        found.sort(newestFirst);
        found.length = limit;
        if (row.at_max < found[limit - 1].at) break;
      }
      for (const r of decodeSegment(row.first_seq, row.data)) {
        if (r.at < since || r.at >= until) continue;
        if (capability !== undefined && r.capability !== capability) continue;
        if (principal !== undefined && r.principal !== principal) continue;
        if (outcome !== undefined && r.outcome !== outcome) continue;
        found.push(r);
      }
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

/** Check a record from an API caller (the hub's own records go through the sink unchecked). */
function validAudit(record: NewAuditRecord): NewAuditRecord {
  if (!record || typeof record !== 'object') invalid(`audit record must be an object, got ${describe(record)}.`);
  const at = checkIso(record.at, 'at');
  const outcome = checkOutcome(record.outcome, 'outcome');
  const errorCode = record.errorCode ?? null;
  const errorMessage = record.errorMessage ?? null;
  if (outcome === 'ok') {
    if (errorCode !== null || errorMessage !== null)
      invalid(`errorCode and errorMessage must be null when outcome is 'ok'.`);
  } else {
    checkString(errorCode, 'errorCode', { nonEmpty: true });
    checkString(errorMessage, 'errorMessage', { nullable: true });
  }
  const duration = record.durationMs;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0)
    invalid(`durationMs must be a finite number of milliseconds ≥ 0, got ${describe(duration)}.`);
  return {
    at,
    principal: cleanField(checkString(record.principal, 'principal') as string),
    transport: cleanField(checkString(record.transport, 'transport') as string),
    capability: cleanField(checkString(record.capability, 'capability') as string),
    input: cleanField(checkString(record.input, 'input') as string),
    outcome,
    errorCode: errorCode === null ? null : cleanField(errorCode),
    errorMessage,
    durationMs: duration,
    requestId: cleanField(checkString(record.requestId, 'requestId') as string),
  };
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
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
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
    this.pingStmt = db.prepare('SELECT 1 AS ok');
  }

  /** Open (creating and migrating when needed) the store at `file`; `':memory:'` for a private in-memory store. */
  static open(file: string): SqliteStore {
    const db = new Database(file);
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
