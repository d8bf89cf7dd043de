// Audit records stored in segments: one row holds a batch of records as it was gathered (AuditBatch), so recording a
// call costs a few appends instead of a row with three index updates. Shared by the SQLite store and its
// worker-thread writer; queries decode segments and filter in memory.
import { isoTime } from '../core/iso-time.ts';
import type { NewAuditRecord } from './contract.ts';

const HAS_CONTROL = /[\t\n\r]/;
const CONTROLS = /[\t\n\r]/g;
const clean = (s: string) => (HAS_CONTROL.test(s) ? s.replace(CONTROLS, ' ') : s);

/** Replace tabs and line breaks with spaces (for names that come from outside, such as an unknown tool's). */
export const cleanField = clean;

/**
 * A batch as it is handed to a writer, and as the SQLite store keeps it (a segment): per record its start (ms since
 * the epoch) and duration (ms) in `times`, and its seven text fields (see {@link AuditBatch.add}) in `text`, joined
 * by tabs; `atMin` and `atMax` bound the starts, as ISO text.
 */
export interface AuditBatchData {
  count: number;
  times: Float64Array<ArrayBuffer>;
  text: string;
  atMin: string;
  atMax: string;
}

/**
 * Audit records gathered on the hot path, in columns: two numbers in a typed array and the seven text fields,
 * joined by tabs, in one array. Nothing is formatted per record — turning times and durations into text was the
 * dearest part of recording a call, for the event loop and for the writer thread alike — so a batch is stored as it
 * is gathered.
 */
export class AuditBatch {
  count = 0;
  private times: Float64Array<ArrayBuffer>;
  private readonly text: string[] = [];
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;

  constructor(capacity = 64) {
    this.times = new Float64Array(2 * Math.max(1, capacity));
  }

  /**
   * Add one record; returns how many the batch holds. Text fields must be free of tabs and line breaks
   * (`cleanField`; JSON text never holds them raw). `errorCode` is '' for a call that succeeded; `errorMessage` is
   * the message as JSON text, or '' for none.
   */
  add(
    startMs: number,
    durationMs: number,
    principal: string,
    transport: string,
    capability: string,
    errorCode: string,
    requestId: string,
    errorMessage: string,
    input: string,
  ): number {
    const i = 2 * this.count;
    if (i === this.times.length) {
      const grown = new Float64Array(2 * i);
      grown.set(this.times);
      this.times = grown;
    }
    this.times[i] = startMs;
    this.times[i + 1] = durationMs;
    if (startMs < this.min) this.min = startMs;
    if (startMs > this.max) this.max = startMs;
    // One string per record: joining the batch costs per element, and seven elements per record cost more than
    // the one concatenation (a microbenchmark of 500-record batches: 0.26–0.31 against 0.35–0.49 µs per record).
    this.text.push(`${principal}\t${transport}\t${capability}\t${errorCode}\t${requestId}\t${errorMessage}\t${input}`);
    return ++this.count;
  }

  /** The records so far, ready to post (`times` may be transferred: the batch is not used again). */
  data(): AuditBatchData {
    return {
      count: this.count,
      times: this.times.subarray(0, 2 * this.count),
      text: this.text.join('\t'),
      atMin: isoTime(this.min),
      atMax: isoTime(this.max),
    };
  }

  /** A batch of whole records (those the store checked, in `appendMany`). */
  static of(records: readonly NewAuditRecord[]): AuditBatchData {
    const batch = new AuditBatch(records.length);
    for (const r of records)
      batch.add(
        Date.parse(r.at),
        r.durationMs,
        r.principal,
        r.transport,
        r.capability,
        r.errorCode ?? '',
        r.requestId,
        r.errorMessage === null || r.errorMessage === undefined ? '' : JSON.stringify(r.errorMessage),
        r.input,
      );
    return batch.data();
  }
}

/**
 * `times` as stored: little-endian float64s whatever the machine, so a store file reads the same everywhere.
 * (A Float64Array is in the machine's order; every common one is little-endian, so this is almost always a view.)
 */
export function timesBlob(times: Float64Array<ArrayBuffer>): Buffer {
  // A copy of its own on a big-endian machine (not from Buffer's shared pool: writers may transfer it).
  return LITTLE_ENDIAN
    ? Buffer.from(times.buffer, times.byteOffset, times.byteLength)
    : Buffer.from(times.slice().buffer).swap64();
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

export interface DecodedRecord {
  seq: number;
  at: string;
  principal: string;
  transport: string;
  capability: string;
  outcome: 'ok' | 'error';
  errorCode: string | null;
  durationMs: number;
  requestId: string;
  errorMessage: string | null;
  input: string;
}

/**
 * Decode a stored segment whose first record has `firstSeq`; records keep their order, so seq = firstSeq + index.
 * With `times` it is a batch as gathered (schema 7 on); without, the line format of schema 3 to 6: one record per
 * line, `at, principal, transport, capability, outcome, errorCode, durationMs, requestId, errorMessage, input`.
 */
export function decodeSegment(firstSeq: number, text: string, times?: Uint8Array | null): DecodedRecord[] {
  if (times) return decodeBatch(firstSeq, text, Buffer.from(times.buffer, times.byteOffset, times.byteLength));
  return text.split('\n').map((line, i) => {
    const f = line.split('\t');
    return {
      seq: firstSeq + i,
      at: f[0],
      principal: f[1],
      transport: f[2],
      capability: f[3],
      outcome: f[4] as 'ok' | 'error',
      errorCode: f[5] === '' ? null : f[5],
      durationMs: Number(f[6]),
      requestId: f[7],
      errorMessage: f[8] === '' ? null : (JSON.parse(f[8]) as string),
      input: f.slice(9).join('\t'),
    };
  });
}

function decodeBatch(firstSeq: number, text: string, times: Buffer): DecodedRecord[] {
  const f = text.split('\t');
  const count = times.length / 16;
  const out = new Array<DecodedRecord>(count);
  for (let i = 0; i < count; i++) {
    const k = 7 * i;
    const code = f[k + 3];
    out[i] = {
      seq: firstSeq + i,
      at: isoTime(times.readDoubleLE(16 * i)),
      principal: f[k],
      transport: f[k + 1],
      capability: f[k + 2],
      outcome: code === '' ? 'ok' : 'error',
      errorCode: code === '' ? null : code,
      durationMs: times.readDoubleLE(16 * i + 8),
      requestId: f[k + 4],
      errorMessage: f[k + 5] === '' ? null : (JSON.parse(f[k + 5]) as string),
      input: f[k + 6],
    };
  }
  return out;
}

/** The records of a batch, as appendMany takes them (a store without a sink gets the hub's batches this way). */
export function batchRecords(batch: AuditBatchData): NewAuditRecord[] {
  return decodeSegment(0, batch.text, timesBlob(batch.times)).map(({ seq, ...record }) => record);
}

/** One record per line, as decodeSegment reads it without times (the Redis store keeps records one by one). */
export function recordLines(batch: AuditBatchData): string[] {
  return batchRecords(batch).map(
    (r) =>
      `${r.at}\t${r.principal}\t${r.transport}\t${r.capability}\t${r.outcome}\t${r.errorCode ?? ''}\t${r.durationMs}\t` +
      `${r.requestId}\t${r.errorMessage === null ? '' : JSON.stringify(r.errorMessage)}\t${r.input}`,
  );
}

/** SQL that appends one segment, taking its seq range from the counter (the same in both connections). */
export const NEXT_SEQ_SQL = 'SELECT next FROM audit_seq WHERE id = 1';
export const INSERT_SEGMENT_SQL =
  'INSERT INTO audit_segments (first_seq, count, at_min, at_max, data, times) VALUES (?, ?, ?, ?, ?, ?)';
export const BUMP_SEQ_SQL = 'UPDATE audit_seq SET next = next + ? WHERE id = 1';
