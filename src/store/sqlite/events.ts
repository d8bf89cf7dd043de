// The event log in the SQLite store: appended per call, read newest first, trimmed to a count.
import type Database from 'better-sqlite3';
import type { BusEvent } from '../../core/context.ts';
import type { EventLog, StoredEvent } from '../contract.ts';
import { checkInt } from '../records/common.ts';
import { eventRow } from '../records/instances.ts';
import type { Db, Statement } from './connection.ts';

export class SqliteEvents implements EventLog {
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
    const rows = events.map(eventRow);
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
