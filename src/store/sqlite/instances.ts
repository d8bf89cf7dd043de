// Hub instances and their leases in the SQLite store.
import type { Instance, InstanceStore } from '../contract.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { check } from '../records/common.ts';
import { checkRegistration, epochMs, leaseMs } from '../records/instances.ts';
import type { Db, Statement } from './connection.ts';

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

export class SqliteInstances implements InstanceStore {
  private readonly upsert: Statement;
  private readonly touch: Statement;
  private readonly byId: Statement;
  private readonly all: Statement;
  private readonly purge: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
    private readonly now: StoreClock = readClock,
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
    const { ttlMs: ttl } = checkRegistration(id, roles, ttlMs);
    const nowMs = this.now();
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
    const ttl = check(leaseMs, ttlMs, 'ttlMs');
    if (typeof id !== 'string') return undefined;
    const nowMs = this.now();
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
    check(epochMs, now, 'now');
    return (this.purge.all(now) as { id: string }[]).map((r) => r.id).sort();
  }
}
