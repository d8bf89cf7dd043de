// Idempotency keys of creating writes in the SQLite store (the record format is src/store/idempotency.ts).
import type { IdempotencyClaim } from '../../core/idempotency.ts';
import { idempotencyRecord } from '../idempotency.ts';
import type { Db, Statement } from './connection.ts';

/**
 * Idempotency keys for any creating write: `find` and `keep` run inside the write's own transaction, so a key and
 * the record it stands for are stored together or not at all.
 */
export class SqliteIdempotencyKeys {
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
