// Audit records stored in segments: one row holds a batch of records as tab-separated lines, so recording a
// call costs a string append instead of a row with three index updates. Shared by the SQLite store and its
// worker-thread writer; queries decode segments and filter in memory.
import type { NewAuditRecord } from './contract.ts';

const HAS_CONTROL = /[\t\n\r]/;
const CONTROLS = /[\t\n\r]/g;
const clean = (s: string) => (HAS_CONTROL.test(s) ? s.replace(CONTROLS, ' ') : s);

/** Replace tabs and line breaks with spaces (for names that come from outside, such as an unknown tool's). */
export const cleanField = clean;

/**
 * One record as one line: `at, principal, transport, capability, outcome, errorCode, durationMs, requestId,
 * errorMessage (JSON or empty), input`. Callers pass fields free of tabs and line breaks (`cleanField`); JSON
 * text — the input, the quoted error message — never holds them raw.
 */
export function encodeRecord(r: NewAuditRecord): string {
  const message = r.errorMessage === null || r.errorMessage === undefined ? '' : JSON.stringify(r.errorMessage);
  return `${r.at}\t${r.principal}\t${r.transport}\t${r.capability}\t${r.outcome}\t${r.errorCode ?? ''}\t${r.durationMs}\t${r.requestId}\t${message}\t${r.input}`;
}

export interface Segment {
  text: string;
  count: number;
  atMin: string;
  atMax: string;
}

/**
 * Encode a batch; canonical ISO times compare as text, so min and max are string comparisons. The lines are
 * joined once into a flat string: appending them one by one builds a rope of thousands of pieces that
 * postMessage must flatten again on the hot thread (measured: ten times the cost of the join).
 */
export function encodeSegment(records: readonly NewAuditRecord[]): Segment {
  const lines = new Array<string>(records.length);
  let atMin = records[0].at;
  let atMax = records[0].at;
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    lines[i] = encodeRecord(r);
    if (r.at < atMin) atMin = r.at;
    if (r.at > atMax) atMax = r.at;
  }
  return { text: lines.join('\n'), count: records.length, atMin, atMax };
}

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

/** Decode a segment whose first record has `firstSeq`; records keep their order, so seq = firstSeq + index. */
export function decodeSegment(firstSeq: number, text: string): DecodedRecord[] {
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

/** SQL that appends one segment, taking its seq range from the counter (the same in both connections). */
export const NEXT_SEQ_SQL = 'SELECT next FROM audit_seq WHERE id = 1';
export const INSERT_SEGMENT_SQL =
  'INSERT INTO audit_segments (first_seq, count, at_min, at_max, data) VALUES (?, ?, ?, ?, ?)';
export const BUMP_SEQ_SQL = 'UPDATE audit_seq SET next = next + ? WHERE id = 1';
