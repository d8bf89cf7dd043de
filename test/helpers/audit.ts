// One audit record as the hub writes one, for store tests: record `i` of a run, a millisecond apart.
import type { NewAuditRecord } from '../../src/store/contract.ts';

/** Record `i` (request id `r<i>`), a successful `demo.x` call over stdio; override any field. */
export function auditRecord(i: number, extra: Partial<NewAuditRecord> = {}): NewAuditRecord {
  return {
    at: new Date(1_800_000_000_000 + i).toISOString(),
    principal: 'p',
    transport: 'stdio',
    capability: 'demo.x',
    input: '{}',
    outcome: 'ok',
    errorCode: null,
    errorMessage: null,
    durationMs: 1,
    requestId: `r${i}`,
    ...extra,
  };
}
