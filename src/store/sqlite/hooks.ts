// Plugin hook runs and the if_changed fingerprints of their last successes in the SQLite store.
import type { HookRun, HookStore, NewHookRun } from '../contract.ts';
import { checkIso, checkNonEmpty } from '../records/common.ts';
import { checkHookQuery, checkHookRun } from '../records/hooks.ts';
import type { Db, Statement } from './connection.ts';

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

export class SqliteHooks implements HookStore {
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
    return (this.getPrint.get(checkNonEmpty(key, 'key')) as string | undefined) ?? undefined;
  }

  async setFingerprint(key: string, fingerprint: string | null): Promise<void> {
    this.live();
    checkNonEmpty(key, 'key');
    if (fingerprint === null) this.dropPrint.run(key);
    else this.putPrint.run(key, checkNonEmpty(fingerprint, 'fingerprint'));
  }

  async prune(before: string): Promise<number> {
    this.live();
    return this.drop.run(checkIso(before, 'before')).changes;
  }
}
