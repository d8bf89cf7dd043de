// The audit log in the SQLite store: records kept in segments (src/store/audit-segment.ts), written here or by the
// writer thread (audit-sink.ts), queried by decoding the segments in range.
import type Database from 'better-sqlite3';
import {
  AuditBatch,
  type AuditBatchData,
  BUMP_SEQ_SQL,
  decodeSegment,
  INSERT_SEGMENT_SQL,
  NEXT_SEQ_SQL,
  timesBlob,
} from '../audit-segment.ts';
import type { AuditLog, AuditQuery, AuditRecord, AuditSink, NewAuditRecord } from '../contract.ts';
import { auditMatches, checkAuditQuery, newestFirst, validAudit } from '../records/audit.ts';
import { checkIso, describe, invalid } from '../records/common.ts';
import { SqliteAuditSink } from './audit-sink.ts';
import type { Db, Statement } from './connection.ts';

export class SqliteAudit implements AuditLog {
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
