// Audit segments, the format of schema 3 to 8 (one row per batch of records), read for the last time by migration
// 9, which turns every record into a row of `audit`. Nothing else reads or writes segments any more.
import { isoTime } from '../../core/iso-time.ts';
import { parseAuditLine } from '../audit-line.ts';
import type { AuditRecord } from '../contract.ts';
import type { Db } from './connection.ts';

/**
 * The records of a stored segment whose first record has `firstSeq`; records keep their order, so seq = firstSeq +
 * index. With `times` (schema 7 on) it is a batch as it was gathered: per record its start (ms since the epoch) and
 * duration (ms) as two little-endian float64s, and its seven text fields — principal, transport, capability, error
 * code ('' when it succeeded), request id, error message (JSON text, '' for none), input — all joined by tabs.
 * Without, the line format of schema 3 to 6: one record per line (src/store/audit-line.ts).
 */
export function decodeSegment(firstSeq: number, text: string, times: Uint8Array | null): AuditRecord[] {
  if (!times) return text.split('\n').map((line, i) => parseAuditLine(firstSeq + i, line));
  const t = Buffer.from(times.buffer, times.byteOffset, times.byteLength);
  const f = text.split('\t');
  const count = t.length / 16;
  const out = new Array<AuditRecord>(count);
  for (let i = 0; i < count; i++) {
    const k = 7 * i;
    const code = f[k + 3];
    out[i] = {
      seq: firstSeq + i,
      at: isoTime(t.readDoubleLE(16 * i)),
      principal: f[k],
      transport: f[k + 1],
      capability: f[k + 2],
      outcome: code === '' ? 'ok' : 'error',
      errorCode: code === '' ? null : code,
      durationMs: t.readDoubleLE(16 * i + 8),
      requestId: f[k + 4],
      errorMessage: f[k + 5] === '' ? null : (JSON.parse(f[k + 5]) as string),
      input: f[k + 6],
    };
  }
  return out;
}

/**
 * Migration 9's move: every segment's records into `audit` (created by then), each keeping its seq, and the table's
 * sequence set where the segments' counter stood, so a seq is not reused even when the newest records were pruned.
 * Runs inside the migration's transaction: the file upgrades whole or not at all.
 */
export function moveSegmentsToRows(db: Db): void {
  const page = db.prepare(
    'SELECT first_seq AS firstSeq, data, times FROM audit_segments WHERE first_seq > ? ORDER BY first_seq LIMIT 100',
  );
  // The columns of schema 9, written out here: a migration must keep doing what it did when later code changes.
  const insert = db.prepare(
    'INSERT INTO audit (seq, at, principal, transport, capability, input, outcome, error_code, error_message, duration_ms, request_id) ' +
      'VALUES (@seq, @at, @principal, @transport, @capability, @input, @outcome, @errorCode, @errorMessage, @durationMs, @requestId)',
  );
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const segments = page.all(after) as { firstSeq: number; data: string; times: Uint8Array | null }[];
    if (segments.length === 0) break;
    for (const s of segments) for (const record of decodeSegment(s.firstSeq, s.data, s.times)) insert.run(record);
    after = segments[segments.length - 1].firstSeq;
  }
  db.prepare("DELETE FROM sqlite_sequence WHERE name = 'audit'").run();
  db.prepare(
    `INSERT INTO sqlite_sequence (name, seq)
     SELECT 'audit', max(next - 1, (SELECT coalesce(max(seq), 0) FROM audit)) FROM audit_seq WHERE id = 1`,
  ).run();
}
