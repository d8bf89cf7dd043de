// Input checks every Store implementation shares, so SQLite and Redis refuse the same input with the same
// INVALID_INPUT messages: strings, integers, statuses, ISO times, cursors, token names and hashes, audit records.
import { SwitchboardError } from '../core/errors.ts';
import { cleanField } from './audit-segment.ts';
import {
  type AgentSessionRecord,
  type AgentTranscriptEvent,
  AUDIT_DEFAULT_LIMIT,
  AUDIT_MAX_LIMIT,
  AUDIT_OUTCOMES,
  type AuditOutcome,
  type AuditQuery,
  type NewAuditRecord,
  type NewHookRun,
  type NewScriptRun,
  SCRIPT_RUN_ID_PATTERN,
  SCRIPT_RUN_STATUSES,
  type ScriptRunFilter,
  type ScriptRunStatus,
  TASK_COMPLEXITIES,
  TASK_OUTCOMES,
  TASK_STATUSES,
  type TaskAssessment,
  type TaskComplexity,
  type TaskOutcome,
  type TaskStatus,
  TOKEN_NAME_PATTERN,
} from './contract.ts';

/** Page size when a caller gives none, and the largest page a caller may ask for. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

// --- ids ---------------------------------------------------------------------------------------------------------

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_SPACE = 2 ** 30;
let lastIdTime = 0;
let lastIdRandom = 0;

export function base32(value: number, length: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[v % 32] + out;
    v = Math.floor(v / 32);
  }
  return out;
}

/**
 * A short, time-sortable task id: `t-` + 10 chars of milliseconds + 6 random chars (ULID-like, lower case).
 * Monotonic within a process — the same millisecond increments the random part, a clock step back reuses the
 * last time — so ids and `createdAt` never go backwards and the list order equals creation order.
 *
 * @example
 * const { id, time } = newTaskId(); // id: 't-01jd3m8x2k4f9qzr', time: 1731500000000
 */
export function newTaskId(now = Date.now()): { id: string; time: number } {
  if (now > lastIdTime) {
    lastIdTime = now;
    lastIdRandom = Math.floor(Math.random() * RANDOM_SPACE);
  } else if (++lastIdRandom >= RANDOM_SPACE) {
    // 2^30 ids in one millisecond cannot happen in practice; borrow the next millisecond to stay monotonic.
    lastIdTime++;
    lastIdRandom = 0;
  }
  return { id: `t-${base32(lastIdTime, 10)}${base32(lastIdRandom, 6)}`, time: lastIdTime };
}

// --- validation: reject bad input before it reaches a statement ----------------------------------------------------

export function invalid(message: string): never {
  throw new SwitchboardError('INVALID_INPUT', message);
}

export function checkString(
  value: unknown,
  field: string,
  opts: { nullable?: boolean; nonEmpty?: boolean } = {},
): string | null {
  if (value === null && opts.nullable) return null;
  if (typeof value !== 'string')
    invalid(`${field} must be a string${opts.nullable ? ' or null' : ''}, got ${describe(value)}.`);
  if (opts.nonEmpty && value.length === 0) invalid(`${field} must not be empty.`);
  return value;
}

export function checkInt(
  value: unknown,
  field: string,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = min === Number.MIN_SAFE_INTEGER ? '' : ` between ${min} and ${max}`;
    invalid(`${field} must be an integer${range}, got ${describe(value)}.`);
  }
  return value;
}

export function checkStatus(value: unknown, field: string): TaskStatus {
  if (!TASK_STATUSES.includes(value as TaskStatus)) {
    invalid(`${field} must be one of ${TASK_STATUSES.join(', ')}, got ${describe(value)}.`);
  }
  return value as TaskStatus;
}

export function checkStatuses(value: unknown, field: string): TaskStatus[] {
  if (!Array.isArray(value)) invalid(`${field} must be an array of statuses, got ${describe(value)}.`);
  return [...new Set(value.map((s, i) => checkStatus(s, `${field}[${i}]`)))];
}

/** Serialise a JSON column; throws INVALID_INPUT for values JSON cannot hold (cycles, BigInt, functions). */
export function toJson(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    invalid(`${field} must be JSON-serialisable: ${(err as Error).message}.`);
  }
  if (text === undefined) invalid(`${field} must be JSON-serialisable, got ${describe(value)}.`);
  return text;
}

export function checkMetadata(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    invalid(`metadata must be an object or null, got ${describe(value)}.`);
  return toJson(value, 'metadata');
}

/** ISO 8601 date or date-time; a time needs a zone (Z or ±hh:mm) so it means one instant on every machine. */
export const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Validate an ISO time and return it in canonical UTC form (`2030-01-01T00:00:00.000Z`): every stored time has
 * that one shape, so comparing the text compares the instants. Impossible dates (Feb 30) are refused rather
 * than rolled over.
 */
export const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function checkIso(value: unknown, field: string): string {
  // The common case — already canonical, as toISOString() writes it — costs one regex and one round trip.
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms) && new Date(ms).toISOString() === value) return value;
  }
  const m = typeof value === 'string' ? ISO_TIME.exec(value) : null;
  if (m) {
    const [, year, month, day, hour = '0', minute = '0', second = '0'] = m;
    const mo = Number(month);
    const daysInMonth = new Date(Date.UTC(Number(year), mo, 0)).getUTCDate();
    if (
      mo >= 1 &&
      mo <= 12 &&
      Number(day) >= 1 &&
      Number(day) <= daysInMonth &&
      Number(hour) <= 23 &&
      Number(minute) <= 59 &&
      Number(second) <= 59
    ) {
      const ms = Date.parse(value as string);
      // Length 24 keeps the year within 0000..9999, where text order equals time order.
      if (!Number.isNaN(ms)) {
        const iso = new Date(ms).toISOString();
        if (iso.length === 24) return iso;
      }
    }
  }
  invalid(`${field} must be an ISO 8601 time such as 2030-01-01T00:00:00.000Z, got ${describe(value)}.`);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

/** Keyset position of a row in the list order. Opaque to callers: base64url of `{p, c, i}`. */
export interface Cursor {
  p: number;
  c: string;
  i: string;
}

export function encodeCursor(priority: number, createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify({ p: priority, c: createdAt, i: id } satisfies Cursor)).toString('base64url');
}

export function decodeCursor(cursor: unknown): Cursor {
  const fail = (): never =>
    invalid(
      `cursor ${describe(cursor)} is not a cursor this store issued. Pass the nextCursor of the previous page unchanged, or omit cursor to start from the first page.`,
    );
  // Buffer.from(…, 'base64url') skips characters it does not know, so check the alphabet first.
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,1000}$/.test(cursor)) return fail();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return fail();
  }
  const c = parsed as Partial<Cursor> | null;
  if (!c || typeof c !== 'object' || !Number.isSafeInteger(c.p) || typeof c.c !== 'string' || typeof c.i !== 'string')
    return fail();
  return { p: c.p as number, c: c.c, i: c.i };
}

export function checkTokenName(value: unknown): string {
  if (typeof value !== 'string' || !TOKEN_NAME_PATTERN.test(value))
    invalid(
      `Token name ${describe(value)} is invalid: a token name is 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'.`,
    );
  return value;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

export function checkHash(value: unknown): string {
  // Never echo the value: a caller that passes the token itself by mistake must not see it land in a log.
  if (typeof value !== 'string' || !SHA256_HEX.test(value))
    invalid(
      `hash must be the lowercase hex SHA-256 of the token (64 characters from 0-9a-f), got ${typeof value === 'string' ? `a string of ${value.length} characters` : describe(value)}.`,
    );
  return value;
}

export const AUDIT_QUERY_KEYS = ['since', 'until', 'capability', 'principal', 'outcome', 'limit'] as const;

export function checkOutcome(value: unknown, field: string): AuditOutcome {
  if (!AUDIT_OUTCOMES.includes(value as AuditOutcome))
    invalid(`${field} must be one of ${AUDIT_OUTCOMES.join(', ')}, got ${describe(value)}.`);
  return value as AuditOutcome;
}

/** Check a record from an API caller (the hub's own records go through the sink unchecked). */
export function validAudit(record: NewAuditRecord): NewAuditRecord {
  if (!record || typeof record !== 'object') invalid(`audit record must be an object, got ${describe(record)}.`);
  const at = checkIso(record.at, 'at');
  const outcome = checkOutcome(record.outcome, 'outcome');
  const errorCode = record.errorCode ?? null;
  const errorMessage = record.errorMessage ?? null;
  if (outcome === 'ok') {
    if (errorCode !== null || errorMessage !== null)
      invalid(`errorCode and errorMessage must be null when outcome is 'ok'.`);
  } else {
    checkString(errorCode, 'errorCode', { nonEmpty: true });
    checkString(errorMessage, 'errorMessage', { nullable: true });
  }
  const duration = record.durationMs;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0)
    invalid(`durationMs must be a finite number of milliseconds ≥ 0, got ${describe(duration)}.`);
  return {
    at,
    principal: cleanField(checkString(record.principal, 'principal') as string),
    transport: cleanField(checkString(record.transport, 'transport') as string),
    capability: cleanField(checkString(record.capability, 'capability') as string),
    input: cleanField(checkString(record.input, 'input') as string),
    outcome,
    errorCode: errorCode === null ? null : cleanField(errorCode),
    errorMessage,
    durationMs: duration,
    requestId: cleanField(checkString(record.requestId, 'requestId') as string),
  };
}

/** A checked audit query: absent bounds become the widest range. */
export interface CheckedAuditQuery {
  limit: number;
  since: string;
  until: string;
  capability?: string;
  principal?: string;
  outcome?: AuditOutcome;
}

/** Check an audit query from a caller (unknown keys included) and fill in defaults. */
export function checkAuditQuery(query: AuditQuery): CheckedAuditQuery {
  if (typeof query !== 'object' || query === null || Array.isArray(query))
    invalid(`audit query must be an object, got ${describe(query)}.`);
  for (const key of Object.keys(query)) {
    if (!(AUDIT_QUERY_KEYS as readonly string[]).includes(key))
      invalid(`'${key}' is not an audit query field; use one of ${AUDIT_QUERY_KEYS.join(', ')}.`);
  }
  return {
    limit: query.limit === undefined ? AUDIT_DEFAULT_LIMIT : checkInt(query.limit, 'limit', 1, AUDIT_MAX_LIMIT),
    since: query.since === undefined ? '' : checkIso(query.since, 'since'),
    until: query.until === undefined ? '\uffff' : checkIso(query.until, 'until'),
    capability: query.capability === undefined ? undefined : (checkString(query.capability, 'capability') as string),
    principal: query.principal === undefined ? undefined : (checkString(query.principal, 'principal') as string),
    outcome: query.outcome === undefined ? undefined : checkOutcome(query.outcome, 'outcome'),
  };
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

// --- task outcome fields and script runs (shared by every store) ---------------------------------------------

export function checkComplexity(value: unknown): TaskComplexity | null {
  if (value === undefined || value === null) return null;
  if (!TASK_COMPLEXITIES.includes(value as TaskComplexity))
    invalid(`estimatedComplexity must be one of ${TASK_COMPLEXITIES.join(', ')} or null, got ${describe(value)}.`);
  return value as TaskComplexity;
}

/** The assessment column: every field checked, so metrics never meet a confidence of 7 or an outcome of 'yes'. */
export function checkAssessment(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    invalid(`assessment must be an object or null, got ${describe(value)}.`);
  const a = value as Partial<TaskAssessment>;
  if (!TASK_OUTCOMES.includes(a.outcome as TaskOutcome))
    invalid(`assessment.outcome must be one of ${TASK_OUTCOMES.join(', ')}, got ${describe(a.outcome)}.`);
  const confidence = a.confidence ?? null;
  if (confidence !== null && (typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1)))
    invalid(`assessment.confidence must be a number from 0 to 1 or null, got ${describe(confidence)}.`);
  const files = a.filesModified ?? [];
  if (!Array.isArray(files)) invalid(`assessment.filesModified must be an array of paths, got ${describe(files)}.`);
  for (const [i, f] of files.entries()) checkString(f, `assessment.filesModified[${i}]`, { nonEmpty: true });
  const tests = a.testsAdded ?? null;
  if (tests !== null) checkInt(tests, 'assessment.testsAdded', 0, 1_000_000);
  const notes = a.notes === undefined ? null : checkString(a.notes, 'assessment.notes', { nullable: true });
  const clean: TaskAssessment = {
    outcome: a.outcome as TaskOutcome,
    confidence,
    filesModified: files,
    testsAdded: tests,
    notes,
  };
  return JSON.stringify(clean);
}

export function checkRunId(value: unknown): string {
  if (typeof value !== 'string' || !SCRIPT_RUN_ID_PATTERN.test(value))
    invalid(`run id must be 1-64 characters of A-Z a-z 0-9 _ -, got ${describe(value)}.`);
  return value;
}

export function checkRunStatus(value: unknown): ScriptRunStatus {
  if (!SCRIPT_RUN_STATUSES.includes(value as ScriptRunStatus))
    invalid(`status must be one of ${SCRIPT_RUN_STATUSES.join(', ')}, got ${describe(value)}.`);
  return value as ScriptRunStatus;
}

export const RUN_FILTER_KEYS = ['principal', 'clientKey', 'status', 'limit'] as const;

/** Most finished tasks or hook runs one metrics read returns. */
export const MAX_FINISHED = 10_000;

/** A checked {@link FinishedQuery}: the canonical `since`, the type (null: any) and the limit. */
export function checkFinishedQuery(query: unknown): { since: string; type: string | null; limit: number } {
  if (!query || typeof query !== 'object') invalid(`query must be an object, got ${describe(query)}.`);
  const q = query as { since?: unknown; type?: unknown; limit?: unknown };
  return {
    since: checkIso(q.since, 'since'),
    type: q.type === undefined ? null : checkString(q.type, 'type'),
    limit: q.limit === undefined ? MAX_FINISHED : checkInt(q.limit, 'limit', 1, MAX_FINISHED),
  };
}

/** Check a hook run record field by field (the message starts with the field's name). */
export function checkHookRun(run: unknown): NewHookRun {
  if (!run || typeof run !== 'object') invalid(`hook run must be an object, got ${describe(run)}.`);
  const r = run as NewHookRun;
  if (typeof r.ok !== 'boolean') invalid(`ok must be a boolean, got ${describe(r.ok)}.`);
  if (typeof r.cached !== 'boolean') invalid(`cached must be a boolean, got ${describe(r.cached)}.`);
  const duration = r.durationMs;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0)
    invalid(`durationMs must be a finite number of milliseconds ≥ 0, got ${describe(duration)}.`);
  return {
    plugin: checkString(r.plugin, 'plugin', { nonEmpty: true }) as string,
    hook: checkString(r.hook, 'hook', { nonEmpty: true }) as string,
    directory: checkString(r.directory, 'directory', { nonEmpty: true }) as string,
    ok: r.ok,
    cached: r.cached,
    exitCode: r.exitCode === null || r.exitCode === undefined ? null : checkInt(r.exitCode, 'exitCode'),
    durationMs: duration,
    at: checkIso(r.at, 'at'),
  };
}

/** A checked hook-run query: `until` absent is the end of time. */
export function checkHookQuery(query: unknown): { since: string; until: string; limit: number } {
  if (!query || typeof query !== 'object') invalid(`query must be an object, got ${describe(query)}.`);
  const q = query as { since?: unknown; until?: unknown; limit?: unknown };
  return {
    since: checkIso(q.since, 'since'),
    until: q.until === undefined ? '\uffff' : checkIso(q.until, 'until'),
    limit: q.limit === undefined ? MAX_FINISHED : checkInt(q.limit, 'limit', 1, MAX_FINISHED),
  };
}

/** Check a new script run. */
export function checkNewScriptRun(run: unknown): NewScriptRun {
  if (!run || typeof run !== 'object') invalid(`run must be an object, got ${describe(run)}.`);
  const r = run as NewScriptRun;
  return {
    id: checkRunId(r.id),
    clientKey: checkString(r.clientKey, 'clientKey', { nonEmpty: true }) as string,
    principal: checkString(r.principal, 'principal', { nonEmpty: true }) as string,
    name: checkString(r.name, 'name', { nonEmpty: true }) as string,
  };
}

/** Journal entries as JSON text, all checked before any is written. */
export function journalRows(entries: unknown): string[] {
  if (!Array.isArray(entries)) invalid(`entries must be an array of objects, got ${describe(entries)}.`);
  return entries.map((e, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e))
      invalid(`entries[${i}] must be an object, got ${describe(e)}.`);
    return toJson(e, `entries[${i}]`) as string;
  });
}

/** Check a run patch: only status and clientKey may change. */
export function checkRunPatch(patch: unknown): { status: ScriptRunStatus | null; clientKey: string | null } {
  if (!patch || typeof patch !== 'object') invalid(`patch must be an object, got ${describe(patch)}.`);
  for (const key of Object.keys(patch))
    if (key !== 'status' && key !== 'clientKey') invalid(`unknown patch key '${key}'; expected status, clientKey.`);
  const p = patch as { status?: unknown; clientKey?: unknown };
  return {
    status: p.status === undefined ? null : checkRunStatus(p.status),
    clientKey: p.clientKey === undefined ? null : checkString(p.clientKey, 'clientKey', { nonEmpty: true }),
  };
}

/** Check a run filter (unknown keys included) and fill in the default limit. */
export function checkRunFilter(filter: unknown): {
  principal?: string;
  clientKey?: string;
  status?: ScriptRunStatus;
  limit: number;
} {
  if (!filter || typeof filter !== 'object') invalid(`filter must be an object, got ${describe(filter)}.`);
  for (const key of Object.keys(filter))
    if (!(RUN_FILTER_KEYS as readonly string[]).includes(key))
      invalid(`unknown filter key '${key}'; expected one of ${RUN_FILTER_KEYS.join(', ')}.`);
  const f = filter as ScriptRunFilter;
  return {
    principal: f.principal === undefined ? undefined : (checkString(f.principal, 'principal') as string),
    clientKey: f.clientKey === undefined ? undefined : (checkString(f.clientKey, 'clientKey') as string),
    status: f.status === undefined ? undefined : checkRunStatus(f.status),
    limit: f.limit === undefined ? DEFAULT_PAGE_SIZE : checkInt(f.limit, 'limit', 1, MAX_PAGE_SIZE),
  };
}

// --- agent sessions ----------------------------------------------------------------------------------------------

/** A session name as a store takes it: any non-empty string (the agents room enforces its own rule before). */
export function checkSessionName(name: unknown): string {
  return checkString(name, 'session_name', { nonEmpty: true }) as string;
}

/** A session meta as JSON text: an object whose session_name is a name, checked before anything is written. */
export function sessionMetaJson(meta: unknown, indent?: number): { name: string; json: string } {
  if (!meta || typeof meta !== 'object' || Array.isArray(meta))
    invalid(`session meta must be an object, got ${describe(meta)}.`);
  const name = checkSessionName((meta as AgentSessionRecord).session_name);
  let json: string;
  try {
    json = JSON.stringify(meta, null, indent);
  } catch (err) {
    invalid(`session meta must be JSON-serialisable: ${(err as Error).message}.`);
  }
  return { name, json };
}

/**
 * Transcript events as JSON lines (no newline), each stamped with `ts` (the append time) unless it carries one.
 * Every event is an object with a string `type`; anything else refuses the whole batch.
 */
export function transcriptLines(events: unknown): string[] {
  if (!Array.isArray(events)) invalid(`events must be an array of objects, got ${describe(events)}.`);
  const ts = new Date().toISOString();
  return events.map((e: AgentTranscriptEvent, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e) || typeof e.type !== 'string')
      invalid(`events[${i}] must be an object with a string type, got ${describe(e)}.`);
    return toJson({ ts, ...e }, `events[${i}]`) as string;
  });
}

/** A lease length in ms: a positive integer. */
export function checkTtl(ttlMs: unknown): number {
  return checkInt(ttlMs, 'ttlMs', 1, 86_400_000);
}
