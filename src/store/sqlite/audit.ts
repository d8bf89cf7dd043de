// The audit log in the SQLite store: one row per call in `audit` (schema 9, src/store/sqlite/migrations.ts), written
// here or, for the hub's own records, by the writer thread (audit-sink.ts); a query is one indexed SELECT.
import type { AuditLog, AuditQuery, AuditRecord, AuditSink, NewAuditRecord } from '../contract.ts';
import { type CheckedAuditQuery, checkAuditQuery, validAudit } from '../records/audit.ts';
import { checkIso, describe, invalid } from '../records/common.ts';
import { auditInsertKind, INSERT_AUDIT_SQLS, SqliteAuditSink } from './audit-sink.ts';
import type { Db, Statement } from './connection.ts';

/** A row as an {@link AuditRecord}. */
const RECORD_COLUMNS =
  'seq, at, principal, transport, capability, input, outcome, error_code AS errorCode, ' +
  'error_message AS errorMessage, duration_ms AS durationMs, request_id AS requestId, cached, trace_id AS traceId';

/**
 * The SELECT for the filters a query has, its values bound by name from the checked query. Newest first is an index
 * read backwards (each ends in the seq), so no query sorts. The outcome is written into the SQL rather than bound,
 * so that `outcome = 'error'` can use the partial index of failed calls (a bound value could be either).
 */
export function auditQuerySql(q: CheckedAuditQuery): string {
  const where = ['at >= @since', 'at < @until'];
  if (q.capability !== undefined) where.push('capability = @capability');
  if (q.principal !== undefined) where.push('principal = @principal');
  // Checked by the query schema: 'ok' or 'error', nothing else reaches the SQL.
  if (q.outcome !== undefined) where.push(`outcome = '${q.outcome}'`);
  return `SELECT ${RECORD_COLUMNS} FROM audit WHERE ${where.join(' AND ')} ORDER BY at DESC, seq DESC LIMIT @limit`;
}

export class SqliteAudit implements AuditLog {
  private readonly inserts: Statement[];
  private readonly appendRows: (records: readonly NewAuditRecord[]) => void;
  private readonly drop: Statement;
  /** One statement per combination of filters, prepared when first asked for (at most eight). */
  private readonly queries = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly live: () => void,
    private readonly file = ':memory:',
  ) {
    this.inserts = INSERT_AUDIT_SQLS.map((sql) => db.prepare(sql));
    const rows = db.transaction((records: readonly NewAuditRecord[]) => {
      for (const r of records) this.inserts[auditInsertKind(r)].run(r);
    });
    this.appendRows = (records) => rows.immediate(records);
    this.drop = db.prepare('DELETE FROM audit WHERE at < ?');
  }

  /** A worker-thread writer on its own connection (file stores only: a `:memory:` database is private). */
  openSink(onError: (message: string) => void): AuditSink | undefined {
    if (this.file === ':memory:' || this.file === '') return undefined;
    return new SqliteAuditSink(this.file, onError);
  }

  async append(record: NewAuditRecord): Promise<void> {
    await this.appendMany([record]);
  }

  /** Append several records in one transaction: all or none. */
  async appendMany(records: readonly NewAuditRecord[]): Promise<void> {
    this.live();
    if (!Array.isArray(records)) invalid(`audit records must be an array, got ${describe(records)}.`);
    if (records.length === 0) return;
    this.appendRows(records.map(validAudit));
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    this.live();
    const q = checkAuditQuery(query);
    const rows = this.statementFor(q).all(q) as (AuditRecord & { cached: 1 | null | true; traceId: string | null })[];
    // A record carries `cached` only when the result cache answered it, `traceId` only for a traced call (NULL in
    // every other row).
    for (const row of rows) {
      if (row.cached === null) delete (row as { cached?: unknown }).cached;
      else row.cached = true;
      if (row.traceId === null) delete (row as { traceId?: unknown }).traceId;
    }
    return rows as AuditRecord[];
  }

  private statementFor(q: CheckedAuditQuery): Statement {
    const sql = auditQuerySql(q);
    let statement = this.queries.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.queries.set(sql, statement);
    }
    return statement;
  }

  /** Retention: delete the records older than `before`; returns how many went. */
  async prune(before: string): Promise<number> {
    this.live();
    const at = checkIso(before, 'before');
    // Like every write transaction of the store's, it takes the lock up front (BEGIN IMMEDIATE).
    return this.db.transaction(() => this.drop.run(at).changes).immediate();
  }
}
