// Script runs and their journals (src/sources/scripts) in the SQLite store.

import type Database from 'better-sqlite3';
import { SwitchboardError } from '../../core/errors.ts';
import type { NewScriptRun, ScriptRun, ScriptRunFilter, ScriptRunStatus, ScriptRunStore } from '../contract.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { checkIso } from '../records/common.ts';
import { checkNewScriptRun, checkRunFilter, checkRunId, checkRunPatch, journalRows } from '../records/script-runs.ts';
import { type Db, isConstraint, type Statement } from './connection.ts';

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

export class SqliteScriptRuns implements ScriptRunStore {
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
    /** The clock of creation and update times (tests move it). */
    private readonly now: StoreClock = readClock,
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
      const row = this.bump.get(data.length, new Date(this.now()).toISOString(), id, data.length) as
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
    const row = {
      id,
      client_key: r.clientKey,
      principal: r.principal,
      name: r.name,
      at: new Date(this.now()).toISOString(),
    };
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
    const row = this.write.get({
      id,
      status: p.status,
      client_key: p.clientKey,
      at: new Date(this.now()).toISOString(),
    }) as ScriptRunRow | undefined;
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
