// Audit records written by a worker thread with its own SQLite connection: the hot path only hands over a
// batch, and the B-tree work (three indexes) happens off the event loop. Records are built by the hub itself.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { AuditSink, NewAuditRecord } from './contract.ts';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const insert = db.prepare(
  'INSERT INTO audit (at, principal, transport, capability, input, outcome, error_code, error_message, duration_ms, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
);
// One record per line, fields separated by tabs (see encode() in the main thread); the input is last.
const write = db.transaction((text) => {
  for (const line of text.split('\\n')) {
    const f = line.split('\\t');
    const input = f.slice(9).join('\\t');
    insert.run(f[0], f[1], f[2], f[3], input, f[4], f[5] === '' ? null : f[5], f[8] === '' ? null : JSON.parse(f[8]), Number(f[6]), f[7]);
  }
});
parentPort.on('message', (m) => {
  if (typeof m === 'string') {
    try {
      write(m);
    } catch (err) {
      parentPort.postMessage({ error: String(err && err.message) });
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
    this.worker = new Worker(WORKER, { eval: true, workerData: { file, driver } });
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

  write(records: readonly NewAuditRecord[]): void {
    if (this.closed || records.length === 0) return;
    // Tab-separated lines: far cheaper than JSON for records whose input is already JSON text.
    let text = encode(records[0]);
    for (let i = 1; i < records.length; i++) text += `\n${encode(records[i])}`;
    this.worker.postMessage(text);
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

const HAS_CONTROL = /[\t\n\r]/;
const CONTROLS = /[\t\n\r]/g;
const clean = (s: string) => (HAS_CONTROL.test(s) ? s.replace(CONTROLS, ' ') : s);

/** One record as a line; JSON text (the input, the quoted error message) never contains a raw tab or newline. */
function encode(r: NewAuditRecord): string {
  return `${r.at}\t${clean(r.principal)}\t${clean(r.transport)}\t${clean(r.capability)}\t${r.outcome}\t${r.errorCode ? clean(r.errorCode) : ''}\t${r.durationMs}\t${clean(r.requestId)}\t${r.errorMessage === null || r.errorMessage === undefined ? '' : JSON.stringify(r.errorMessage)}\t${clean(r.input)}`;
}
