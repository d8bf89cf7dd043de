// The schema of the SQLite store: one step (SQL, or code) per `PRAGMA user_version`, and the loop that applies the pending ones
// when a file is opened.
import { SwitchboardError } from '../../core/errors.ts';
import { moveSegmentsToRows } from './audit-segments.ts';
import type { Db } from './connection.ts';

/**
 * The audit log as one row per call, as schema 2 made it and schema 9 makes it again. Shared by two released steps,
 * so it never changes: a change is a new step.
 */
const AUDIT_ROWS = `
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
`;

/** One step: SQL, or code for what SQL alone cannot do (decoding a stored format). */
export type Migration = string | ((db: Db) => void);

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran. Append only: never edit a
 * released step, add a new one (a file opened by an older Switchboard must still describe itself correctly).
 * Exported so tests can build a file at an older version (`applyMigration`) and check the upgrade.
 */
export const MIGRATIONS: readonly Migration[] = [
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

  ${AUDIT_ROWS}  `,
  // 3: audit records in segments (read by migration 9 in src/store/sqlite/audit-segments.ts): a batch of records per row instead of a row with
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
  // 7: audit segments stored as gathered (decodeSegment in src/store/sqlite/audit-segments.ts): each record's start and
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
  // 9: plain audit rows again, one per call, written in batches by the writer thread (one transaction per batch):
  // segments made every query decode all the records in its range, for a gain that did not hold up (3–8 % in one
  // A/B, nothing in another; docs/decisions.md, "Plain audit rows"). Every segment's records move over with their
  // seq (src/store/sqlite/audit-segments.ts), then the segment tables go.
  (db) => {
    db.exec(`
    ${AUDIT_ROWS}
    -- The failed calls by time, for \`outcome: 'error'\` (partial: a small index of the rare, interesting rows).
    CREATE INDEX audit_errors_by_at ON audit (at) WHERE outcome = 'error';
    `);
    moveSegmentsToRows(db);
    db.exec(`
    DROP TRIGGER audit_segments_append_only;
    DROP TABLE audit_segments;
    DROP TABLE audit_seq;
    `);
  },
  // 10: who created and who finished a task (a creator may complete its own unassigned task), and task
  // attachments: named documents kept with a task, removed with it (task.delete deletes both in one transaction).
  `
  ALTER TABLE tasks ADD COLUMN created_by TEXT;
  ALTER TABLE tasks ADD COLUMN completed_by TEXT;
  CREATE TABLE task_attachments (
    task_id TEXT NOT NULL,
    key     TEXT NOT NULL,
    record  TEXT NOT NULL CHECK (json_valid(record)),
    PRIMARY KEY (task_id, key)
  ) STRICT, WITHOUT ROWID;
  `,
  // 11: an audit row marks a call the result cache answered (`policy.cache`); NULL for every other call, so the
  // existing rows need no rewrite (ADD COLUMN with a NULL default touches no row).
  `
  ALTER TABLE audit ADD COLUMN cached INTEGER CHECK (cached IS NULL OR (cached = 1 AND outcome = 'ok'));
  `,
  // 12: the profile a token is bound to (\`token create --profile\`; docs/catalog.md#profiles): NULL for every token
  // made before, which stays unbound.
  `
  ALTER TABLE tokens ADD COLUMN profile TEXT
    CHECK (profile IS NULL OR (length(profile) BETWEEN 1 AND 64 AND profile NOT GLOB '*[^A-Za-z0-9_-]*'));
  `,
  // 13: OAuth logins to upstream servers, one row per server × principal; the credentials are sealed by the hub
  // (AES-256-GCM with a key kept outside the store), what people may read without the key stays in columns.
  `
  CREATE TABLE oauth_logins (
    server         TEXT NOT NULL,
    principal      TEXT NOT NULL,
    sealed         TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('active', 'login_required')),
    reason         TEXT,
    scope          TEXT,
    required_scope TEXT,
    expires_at     TEXT,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (server, principal)
  ) STRICT, WITHOUT ROWID;
  `,
  // 14: the W3C trace a call continued (docs/operations.md#traces): NULL for an untraced call and every row before,
  // so no row is rewritten.
  `
  ALTER TABLE audit ADD COLUMN trace_id TEXT
    CHECK (trace_id IS NULL OR (length(trace_id) = 32 AND trace_id NOT GLOB '*[^0-9a-f]*'));
  `,
];

/** Run one step on `db` (the caller holds the transaction). */
export function applyMigration(db: Db, step: Migration): void {
  if (typeof step === 'string') db.exec(step);
  else step(db);
}

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Apply pending migrations, one transaction each; re-reading the version under the lock makes a race harmless. */
export function migrate(db: Db, file: string): void {
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
        try {
          applyMigration(db, MIGRATIONS[version]);
        } catch (err) {
          // The transaction rolls back: the file stays whole at the version it had.
          throw new SwitchboardError(
            'UNAVAILABLE',
            `The store ${file} could not be upgraded from schema version ${version} to ${version + 1}: ${(err as Error).message}. The file is unchanged; fix or move it (store.path) and start again.`,
          );
        }
        db.pragma(`user_version = ${version + 1}`);
        return false;
      })
      .immediate();
    if (done) return;
  }
}
