// One audit record as a tab-separated line: how the Redis store keeps each record (a sorted-set member), and how
// the SQLite store's segments of schema 3 to 6 held theirs (read once more by its migration 9, which makes them rows).
import type { AuditRecord, NewAuditRecord } from './contract.ts';

/**
 * `at, principal, transport, capability, outcome, errorCode, durationMs, requestId, errorMessage, input`, tab-separated.
 * The text fields are single lines (`singleLine` in records/audit.ts) and the error message is JSON text, so only the
 * input, which comes last, may hold a tab; a missing error code or message is ''.
 */
export function auditLine(r: NewAuditRecord): string {
  return (
    `${r.at}\t${r.principal}\t${r.transport}\t${r.capability}\t${r.outcome}\t${r.errorCode ?? ''}\t${r.durationMs}\t` +
    `${r.requestId}\t${r.errorMessage === null ? '' : JSON.stringify(r.errorMessage)}\t${r.input}`
  );
}

/** The record an {@link auditLine} holds, with its `seq`. */
export function parseAuditLine(seq: number, line: string): AuditRecord {
  const f = line.split('\t');
  return {
    seq,
    at: f[0],
    principal: f[1],
    transport: f[2],
    capability: f[3],
    outcome: f[4] as AuditRecord['outcome'],
    errorCode: f[5] === '' ? null : f[5],
    durationMs: Number(f[6]),
    requestId: f[7],
    errorMessage: f[8] === '' ? null : (JSON.parse(f[8]) as string),
    input: f.slice(9).join('\t'),
  };
}
