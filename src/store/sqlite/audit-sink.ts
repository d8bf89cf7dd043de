// Audit records written by a worker thread with its own SQLite connection: the hot path hands over a batch of
// plain records, and the writer inserts them, one row each, in one transaction per batch. Records are built by the
// hub itself and not checked again.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { AuditSink, NewAuditRecord } from '../contract.ts';
import { sqliteAddon } from './addon.ts';

/**
 * The INSERT for a record: its fields bound by name, `seq` from the table; the same in both connections. Optional
 * columns are in the statement only when the record has them (SQLite binds no booleans, and a record without the
 * field must bind as it is, with no copy per row): `cached` for a call the result cache answered, `trace_id` for a
 * traced call. Indexed by `auditInsertKind`.
 */
function insertAuditSql(cached: boolean, traced: boolean): string {
  const columns =
    'at, principal, transport, capability, input, outcome, error_code, error_message, duration_ms, request_id';
  const values =
    '@at, @principal, @transport, @capability, @input, @outcome, @errorCode, @errorMessage, @durationMs, @requestId';
  return (
    `INSERT INTO audit (${columns}${cached ? ', cached' : ''}${traced ? ', trace_id' : ''}) ` +
    `VALUES (${values}${cached ? ', 1' : ''}${traced ? ', @traceId' : ''})`
  );
}
export const INSERT_AUDIT_SQLS = [
  insertAuditSql(false, false),
  insertAuditSql(false, true),
  insertAuditSql(true, false),
  insertAuditSql(true, true),
];

/** Which of INSERT_AUDIT_SQLS stores `r`. Self-contained: the writer thread runs its source text too. */
export const auditInsertKind = (r: { cached?: boolean; traceId?: string }): number =>
  (r.cached ? 2 : 0) + (r.traceId ? 1 : 0);

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, workerData.addon ? { nativeBinding: workerData.addon } : {});
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const inserts = ${JSON.stringify(INSERT_AUDIT_SQLS)}.map((sql) => db.prepare(sql));
const kind = ${auditInsertKind.toString()};
// One transaction per batch: a row per record.
const append = db.transaction((records) => {
  for (const r of records) inserts[kind(r)].run(r);
});
// BEGIN IMMEDIATE takes the write lock up front (a deferred transaction that reads first cannot wait for it
// in WAL mode), and a batch is retried rather than lost while another writer holds the lock.
const pause = new Int32Array(new SharedArrayBuffer(4));
parentPort.on('message', (m) => {
  if (Array.isArray(m)) {
    for (let attempt = 1; ; attempt++) {
      try {
        append.immediate(m);
        break;
      } catch (err) {
        const busy = err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');
        if (!busy || attempt >= 20) {
          parentPort.postMessage({ error: String(err && err.message) + ' (' + m.length + ' audit records lost)' });
          break;
        }
        Atomics.wait(pause, 0, 0, 50 * attempt);
      }
    }
  } else if (m && m.flush !== undefined) parentPort.postMessage({ flushed: m.flush });
  else if (m && m.close) {
    db.close();
    parentPort.postMessage({ closed: true });
  }
});
`;

export class SqliteAuditSink implements AuditSink {
  private readonly worker: Worker;
  private nextFlush = 0;
  private readonly waiting = new Map<number, () => void>();
  private closed = false;
  /** The writer thread ended on its own (it could not open the file, or crashed): nothing it is sent is written. */
  private stopped = false;
  /** Records handed over after the writer stopped: reported, never silently dropped. */
  private lost = 0;

  constructor(
    private readonly file: string,
    private readonly onError: (message: string) => void,
  ) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER, { eval: true, workerData: { file, driver, addon: sqliteAddon() } });
    this.worker.unref();
    this.worker.on('message', (m: { flushed?: number; error?: string; closed?: boolean }) => {
      if (m.error) this.onError(m.error);
      if (m.flushed !== undefined) {
        this.waiting.get(m.flushed)?.();
        this.waiting.delete(m.flushed);
      }
    });
    this.worker.on('error', (err) => this.onError(`the audit writer stopped: ${err.message}`));
    // A flush waiting on a thread that has gone would wait for ever (and the hub's close with it).
    this.worker.on('exit', () => {
      this.stopped = true;
      for (const resolve of this.waiting.values()) resolve();
      this.waiting.clear();
    });
  }

  /** Hands the batch over (copied to the writer thread). */
  write(records: readonly NewAuditRecord[]): void {
    if (this.closed || records.length === 0) return;
    if (this.stopped) {
      if (this.lost === 0) this.onError(`the audit writer has stopped: audit records are not written to ${this.file}`);
      this.lost += records.length;
      return;
    }
    this.worker.postMessage(records);
  }

  /** Resolves once everything written before it is committed (readers on other connections then see it). */
  flush(): Promise<void> {
    if (this.closed || this.stopped) return Promise.resolve();
    const id = this.nextFlush++;
    return new Promise<void>((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ flush: id });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    if (this.lost > 0) this.onError(`${this.lost} audit records were not written: the audit writer had stopped`);
    if (!this.stopped)
      await new Promise<void>((resolve) => {
        this.worker.once('message', () => resolve());
        this.worker.once('exit', () => resolve());
        this.worker.postMessage({ close: true });
        setTimeout(resolve, 2000).unref();
      });
    await this.worker.terminate();
  }
}
