// The audit batch format: records gathered in columns on the hot path, stored as they are, decoded back whole.
import { describe, expect, it } from 'vitest';
import { AuditBatch, decodeSegment, recordLines, timesBlob } from '../../src/store/audit-segment.ts';
import type { NewAuditRecord } from '../../src/store/contract.ts';

const record = (i: number, extra: Partial<NewAuditRecord> = {}): NewAuditRecord => ({
  at: new Date(1_900_000_000_000 + i * 997).toISOString(),
  principal: `p${i % 3}`,
  transport: 'stdio',
  capability: 'demo.echo',
  input: JSON.stringify({ i, text: 'é€😀 "quoted"\t' }),
  outcome: 'ok',
  errorCode: null,
  errorMessage: null,
  durationMs: i / 7,
  requestId: `r${i}`,
  ...extra,
});

describe('AuditBatch', () => {
  it('decodes back to the records it was given, past its first capacity, errors and odd text included', () => {
    const records = Array.from({ length: 150 }, (_, i) =>
      i % 10 === 3 ? record(i, { outcome: 'error', errorCode: 'TIMEOUT', errorMessage: 'line\none\ttab' }) : record(i),
    );
    records.push(record(150, { outcome: 'error', errorCode: 'INTERNAL', errorMessage: null }));
    const batch = AuditBatch.of(records);
    expect(batch.count).toBe(151);
    const decoded = decodeSegment(40, batch.text, timesBlob(batch.times));
    expect(decoded).toEqual(records.map((r, i) => ({ seq: 40 + i, ...r })));
  });

  it('bounds its records by start time, whatever their order', () => {
    const batch = AuditBatch.of([record(5), record(1), record(9), record(2)]);
    expect(batch.atMin).toBe(record(1).at);
    expect(batch.atMax).toBe(record(9).at);
  });

  it('stores times as little-endian float64s: start, then duration, per record', () => {
    const batch = AuditBatch.of([record(1), record(2)]);
    const blob = timesBlob(batch.times);
    expect(blob.length).toBe(32);
    expect([0, 8, 16, 24].map((o) => blob.readDoubleLE(o))).toEqual([
      Date.parse(record(1).at),
      1 / 7,
      Date.parse(record(2).at),
      2 / 7,
    ]);
  });

  it('formats the line form the Redis store keeps, which decodes to the same records', () => {
    const records = [record(1), record(2, { outcome: 'error', errorCode: 'CONFLICT', errorMessage: 'taken' })];
    const lines = recordLines(AuditBatch.of(records));
    expect(lines.map((line, i) => decodeSegment(i + 1, line)[0])).toEqual(
      records.map((r, i) => ({ seq: i + 1, ...r })),
    );
  });
});
