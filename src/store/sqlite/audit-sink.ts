// Audit records written by a worker thread with its own SQLite connection: the hot path only hands over a batch
// as gathered (src/store/audit-segment.ts), which is stored as it is. Records are built by the hub itself and not
// checked again.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type AuditBatchData, BUMP_SEQ_SQL, INSERT_SEGMENT_SQL, NEXT_SEQ_SQL, timesBlob } from '../audit-segment.ts';
import type { AuditSink } from '../contract.ts';
import { sqliteAddon } from './addon.ts';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, workerData.addon ? { nativeBinding: workerData.addon } : {});
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const nextSeq = db.prepare(${JSON.stringify(NEXT_SEQ_SQL)}).pluck();
const insertSegment = db.prepare(${JSON.stringify(INSERT_SEGMENT_SQL)});
const bumpSeq = db.prepare(${JSON.stringify(BUMP_SEQ_SQL)});
// One segment per batch, its seq range taken from the shared counter inside the same transaction.
const append = db.transaction((s) => {
  const first = nextSeq.get();
  insertSegment.run(first, s.count, s.atMin, s.atMax, s.text, s.times);
  bumpSeq.run(s.count);
});
// BEGIN IMMEDIATE takes the write lock up front (a deferred transaction that reads first cannot wait for it
// in WAL mode), and a batch is retried rather than lost while another writer holds the lock.
const pause = new Int32Array(new SharedArrayBuffer(4));
parentPort.on('message', (m) => {
  if (m && typeof m.text === 'string') {
    for (let attempt = 1; ; attempt++) {
      try {
        append.immediate(m);
        break;
      } catch (err) {
        const busy = err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');
        if (!busy || attempt >= 20) {
          parentPort.postMessage({ error: String(err && err.message) + ' (' + m.count + ' audit records lost)' });
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

  constructor(
    file: string,
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
    this.worker.on('error', (err) => this.onError(err.message));
  }

  /** Hands the batch over (its `times` buffer moves to the writer thread: the batch must not be used again). */
  write(batch: AuditBatchData): void {
    if (this.closed || batch.count === 0) return;
    const times = timesBlob(batch.times);
    this.worker.postMessage({ ...batch, times }, [times.buffer as ArrayBuffer]);
  }

  /** Resolves once everything written before it is committed (readers on other connections then see it). */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
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
    await new Promise<void>((resolve) => {
      this.worker.once('message', () => resolve());
      this.worker.postMessage({ close: true });
      setTimeout(resolve, 2000).unref();
    });
    await this.worker.terminate();
  }
}
