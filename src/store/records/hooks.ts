// Plugin hook runs as Zod schemas: a run record and the query metrics read them with.
import { z } from 'zod';
import { check, integer, isoTime, MAX_FINISHED, milliseconds, mustBe, nonEmptyText, record } from './common.ts';

const flag = z.boolean({ error: mustBe('a boolean') });

/** One run of a plugin hook in one directory, as recorded (the store adds its `seq`). */
export const NewHookRunSchema = record('hook run', {
  plugin: nonEmptyText,
  hook: nonEmptyText,
  /** Directory the hook ran in, relative to the project root (`.` for the root). */
  directory: nonEmptyText,
  /** Passed (exit 0), or skipped because nothing changed since its last success (`cached`). */
  ok: flag,
  cached: flag,
  /** Exit code; 124 for a timeout; null when it was cached. */
  exitCode: integer()
    .nullish()
    .transform((v) => v ?? null),
  durationMs: milliseconds,
  /** When the run finished, canonical UTC ISO. */
  at: isoTime,
});
export type NewHookRun = z.output<typeof NewHookRunSchema>;

export function checkHookRun(run: unknown): NewHookRun {
  return check(NewHookRunSchema, run);
}

/** Runs with `at` in [since, until): `until` absent is the end of time. */
const HookQuerySchema = record('query', {
  since: isoTime,
  until: isoTime.default('\uffff'),
  /** 1..10 000, default 10 000. */
  limit: integer(1, MAX_FINISHED).default(MAX_FINISHED),
});
export type HookQuery = z.input<typeof HookQuerySchema>;

export function checkHookQuery(query: unknown): z.output<typeof HookQuerySchema> {
  return check(HookQuerySchema, query);
}
