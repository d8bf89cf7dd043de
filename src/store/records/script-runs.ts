// Script runs as Zod schemas: a new run, its journal entries, a patch and a list filter.
import { z } from 'zod';
import {
  check,
  closedRecord,
  DEFAULT_PAGE_SIZE,
  describe,
  integer,
  jsonText,
  MAX_PAGE_SIZE,
  mustBe,
  nonEmptyText,
  oneOf,
  plainObject,
  record,
  text,
} from './common.ts';

export const SCRIPT_RUN_STATUSES = ['running', 'finished'] as const;
const status = oneOf(SCRIPT_RUN_STATUSES);
export type ScriptRunStatus = z.output<typeof status>;

/** What a run id may look like: 1..64 characters from `A-Z a-z 0-9 _ -`. */
export const SCRIPT_RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const runId = z
  .string({ error: (issue) => `run id must be 1-64 characters of A-Z a-z 0-9 _ -, got ${describe(issue.input)}.` })
  .regex(SCRIPT_RUN_ID_PATTERN);

export function checkRunId(id: unknown): string {
  return check(runId, id);
}

export const NewScriptRunSchema = record('run', {
  /** {@link SCRIPT_RUN_ID_PATTERN}; handed to the client as `run_id`. */
  id: runId,
  /** Which client drives it (`stdio`, `session:<id>`, `run:<id>`); changes when another client adopts the run. */
  clientKey: nonEmptyText,
  /** Principal id that started it; only that principal may drive it. */
  principal: nonEmptyText,
  /** Display name of the first script started (`test:nested`). */
  name: nonEmptyText,
});
export type NewScriptRun = z.output<typeof NewScriptRunSchema>;

export function checkNewScriptRun(run: unknown): NewScriptRun {
  return check(NewScriptRunSchema, run);
}

/** Journal entries as JSON text, all checked before any is written. */
const journal = z.array(plainObject('an object').transform(jsonText), { error: mustBe('an array of objects') });

export function journalRows(entries: unknown): string[] {
  return check(journal, entries, 'entries') as string[];
}

/** A run patch: only status and clientKey may change (null: unchanged). */
const RunPatchSchema = closedRecord(
  'patch',
  {
    status: status.optional().transform((v) => v ?? null),
    clientKey: nonEmptyText.optional().transform((v) => v ?? null),
  },
  (key) => `unknown patch key '${key}'; expected status, clientKey.`,
);

export function checkRunPatch(patch: unknown): z.output<typeof RunPatchSchema> {
  return check(RunPatchSchema, patch);
}

const RUN_FILTER_KEYS = ['principal', 'clientKey', 'status', 'limit'] as const;

export const ScriptRunFilterSchema = closedRecord(
  'filter',
  {
    principal: text.optional(),
    clientKey: text.optional(),
    status: status.optional(),
    /** 1..500, default 50. */
    limit: integer(1, MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  },
  (key) => `unknown filter key '${key}'; expected one of ${RUN_FILTER_KEYS.join(', ')}.`,
);
export type ScriptRunFilter = z.input<typeof ScriptRunFilterSchema>;

export function checkRunFilter(filter: unknown): z.output<typeof ScriptRunFilterSchema> {
  return check(ScriptRunFilterSchema, filter);
}
