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
} from './contract.ts';
import {
  checkIso,
  DEFAULT_PAGE_SIZE,
  describe,
  invalid,
  MAX_FINISHED,
  MAX_PAGE_SIZE,
  toJson,
} from './records/common.ts';

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
