// One audit record as a tab-separated line: how the Redis store keeps each record (a sorted-set member), and how
// the SQLite store's segments of schema 3 to 6 held theirs (read once more by its migration 9, which makes them rows).
import type { AuditRecord, NewAuditRecord } from './contract.ts';

/** What the error-code field of a successful call's line holds when the result cache answered it (`cached`). */
const CACHED = 'cached';
/** Between the outcome and the trace id of a traced call, in the outcome field (`ok/<trace id>`). */
const TRACED = '/';

/**
 * `at, principal, transport, capability, outcome, errorCode, durationMs, requestId, errorMessage, input`, tab-separated.
 * The text fields are single lines (`singleLine` in records/audit.ts) and the error message is JSON text, so only the
 * input, which comes last, may hold a tab; a missing error code or message is ''. A successful call has no error
 * code, so that field says `cached` for a call the result cache answered: lines written before there was a cache
 * read the same. The outcome field of a traced call adds its trace id after a `/` (`ok/4bf9…`), so lines written
 * before there were traces read the same too.
 */
export function auditLine(r: NewAuditRecord): string {
  const code = r.cached ? CACHED : (r.errorCode ?? '');
  return (
    `${r.at}\t${r.principal}\t${r.transport}\t${r.capability}\t${r.outcome}${r.traceId ? TRACED + r.traceId : ''}\t${code}\t${r.durationMs}\t` +
    `${r.requestId}\t${r.errorMessage === null ? '' : JSON.stringify(r.errorMessage)}\t${r.input}`
  );
}

/** The record an {@link auditLine} holds, with its `seq`. */
export function parseAuditLine(seq: number, line: string): AuditRecord {
  const f = line.split('\t');
  const [outcome, traceId] = f[4].split(TRACED);
  const cached = outcome === 'ok' && f[5] === CACHED;
  const record: AuditRecord = {
    seq,
    at: f[0],
    principal: f[1],
    transport: f[2],
    capability: f[3],
    outcome: outcome as AuditRecord['outcome'],
    errorCode: f[5] === '' || cached ? null : f[5],
    durationMs: Number(f[6]),
    requestId: f[7],
    errorMessage: f[8] === '' ? null : (JSON.parse(f[8]) as string),
    input: f.slice(9).join('\t'),
  };
  if (cached) record.cached = true;
  if (traceId) record.traceId = traceId;
  return record;
}
