// The audit log's records as Zod schemas: a record from an API caller (the hub's own go through the sink
// unchecked) and a query. A record's text fields are single lines (`singleLine`): the Redis store keeps a record
// as one tab-separated line (src/store/audit-line.ts), and every backend answers with the same text.
import { z } from 'zod';
import {
  check,
  closedRecord,
  integer,
  isoTime,
  milliseconds,
  mustBe,
  mustBeObject,
  nonEmptyText,
  oneOf,
  text,
  textOrNull,
} from './common.ts';

export const AUDIT_OUTCOMES = ['ok', 'error'] as const;
const outcome = oneOf(AUDIT_OUTCOMES);
export type AuditOutcome = z.output<typeof outcome>;

/** Page size of an audit query when none is given, and the largest a caller may ask for. */
export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 10_000;

const HAS_CONTROL = /[\t\n\r]/;
const CONTROLS = /[\t\n\r]/g;

/** Tabs and line breaks become spaces: a record's text fields are single lines, whoever built the record. */
export const singleLine = (s: string): string => (HAS_CONTROL.test(s) ? s.replace(CONTROLS, ' ') : s);

const cleanText = text.transform(singleLine);

/** One call, as the audit log keeps it (without its `seq`, which the log assigns on append). */
export const NewAuditRecordSchema = z
  .object(
    {
      /** When the call started, canonical UTC ISO. */
      at: isoTime,
      /** Principal id (token name, `local`, …). */
      principal: cleanText,
      /** How the call arrived: a `TransportKind` (stdio, http, rest, cli, internal). */
      transport: cleanText,
      /** Capability name as asked for (also when it turned out unknown). */
      capability: cleanText,
      /**
       * The call input as already-redacted JSON text, capped by the caller (`redactedJson` in src/observe/redact.ts).
       * Stored verbatim; a capped value is not valid JSON, so readers must not assume it parses.
       */
      input: cleanText,
      outcome,
      /** Error code from the error table when outcome is 'error' (required then); null when 'ok'. */
      errorCode: nonEmptyText
        .transform(singleLine)
        .nullish()
        .transform((v) => v ?? null),
      /** Error message when outcome is 'error' (may be null); null when 'ok'. */
      errorMessage: textOrNull.optional().transform((v) => v ?? null),
      /** Wall time of the call in milliseconds (fractions allowed), ≥ 0. */
      durationMs: milliseconds,
      requestId: cleanText,
      /** Present (true) only when the result cache answered the call (`policy.cache`): the capability did not run. */
      cached: z.literal(true, { error: mustBe('true or absent') }).optional(),
      /** The W3C trace the call continued (its caller sent a `traceparent`): 32 lowercase hex digits; absent otherwise. */
      traceId: z
        .string()
        .regex(/^[0-9a-f]{32}$/, { error: mustBe('32 lowercase hex digits (a W3C trace id) or absent') })
        .optional(),
    },
    { error: mustBeObject('audit record') },
  )
  .superRefine((r, ctx) => {
    if (r.cached && r.outcome !== 'ok')
      ctx.addIssue({ code: 'custom', path: ['cached'], input: r.cached, message: 'only a successful call is cached.' });
    else if (r.outcome === 'ok' && (r.errorCode !== null || r.errorMessage !== null))
      ctx.addIssue({
        code: 'custom',
        input: r,
        message: `errorCode and errorMessage must be null when outcome is 'ok'.`,
      });
    else if (r.outcome === 'error' && r.errorCode === null)
      ctx.addIssue({ code: 'custom', path: ['errorCode'], input: null, message: mustBe('a string')({ input: null }) });
  });
export type NewAuditRecord = z.output<typeof NewAuditRecordSchema>;

/** Check a record from an API caller. */
export function validAudit(record: unknown): NewAuditRecord {
  return check(NewAuditRecordSchema, record);
}

const AUDIT_QUERY_KEYS = ['since', 'until', 'capability', 'principal', 'outcome', 'limit'] as const;

/** An audit query; absent bounds become the widest range. Unknown keys are refused, naming the key. */
export const AuditQuerySchema = closedRecord(
  'audit query',
  {
    /** Only records at or after this ISO time (inclusive). */
    since: isoTime.default(''),
    /** Only records before this ISO time (exclusive). */
    until: isoTime.default('\uffff'),
    /** Exact capability name. */
    capability: text.optional(),
    /** Exact principal id. */
    principal: text.optional(),
    outcome: outcome.optional(),
    /** 1..{@link AUDIT_MAX_LIMIT}, default {@link AUDIT_DEFAULT_LIMIT}. */
    limit: integer(1, AUDIT_MAX_LIMIT).default(AUDIT_DEFAULT_LIMIT),
  },
  (key) => `'${key}' is not an audit query field; use one of ${AUDIT_QUERY_KEYS.join(', ')}.`,
);
export type AuditQuery = z.input<typeof AuditQuerySchema>;
export type CheckedAuditQuery = z.output<typeof AuditQuerySchema>;

export function checkAuditQuery(query: unknown): CheckedAuditQuery {
  return check(AuditQuerySchema, query);
}

/** Whether a record matches a checked query. */
export function auditMatches(r: NewAuditRecord, q: CheckedAuditQuery): boolean {
  if (r.at < q.since || r.at >= q.until) return false;
  if (q.capability !== undefined && r.capability !== q.capability) return false;
  if (q.principal !== undefined && r.principal !== q.principal) return false;
  if (q.outcome !== undefined && r.outcome !== q.outcome) return false;
  return true;
}

/** Newest first by time, then by seq for equal times. */
export const newestFirst = (a: { at: string; seq: number }, b: { at: string; seq: number }) =>
  a.at === b.at ? b.seq - a.seq : a.at < b.at ? 1 : -1;
