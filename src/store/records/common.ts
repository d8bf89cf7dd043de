// What every part's records are made of, and how a Zod issue becomes the INVALID_INPUT every store words alike.
// Messages are sentences about a field ("text must not be empty.", "limit must be an integer between 1 and 500,
// got 0."): a schema says only what it expects (`must be …`), and `check` puts the field's name in front.
import { z } from 'zod';
import { SwitchboardError } from '../../core/errors.ts';

export function invalid(message: string): never {
  throw new SwitchboardError('INVALID_INPUT', message);
}

/** A value as a message shows it: short strings quoted, long ones cut, objects by kind only. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

/** The message of an issue: "must be WORDS, got VALUE." (the field's name is put in front by {@link check}). */
export const mustBe =
  (words: string) =>
  (issue: { input?: unknown }): string =>
    `must be ${words}, got ${describe(issue.input)}.`;

/** The field an issue is about: `name` (a lone value's, a patch field's) and the issue's path under it. */
function fieldName(name: string | undefined, path: readonly PropertyKey[]): string {
  let out = name ?? '';
  for (const key of path)
    out = typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key);
  return out;
}

/** The message of a record that is not an object at all: a whole sentence, so it names the record. */
export const mustBeObject =
  (record: string) =>
  (issue: { input?: unknown }): string =>
    `${record} must be an object, got ${describe(issue.input)}.`;

/**
 * Parse `value`, or throw INVALID_INPUT with the first issue. A message that starts with `must` is about its field
 * and gets the field's name in front (`name` names a lone value); any other message is a whole sentence.
 */
export function check<S extends z.ZodType>(schema: S, value: unknown, name?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = fieldName(name, issue.path);
  invalid(issue.message.startsWith('must') && field ? `${field} ${issue.message}` : issue.message);
}

/** One of a list of words (a status, an outcome); the message lists them. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, words = values.join(', ')) {
  return z.enum(values, { error: mustBe(`one of ${words}`) });
}

/** A record: an object of `shape` (other keys are dropped), anything else refused with "`name` must be an object". */
export function record<S extends z.core.$ZodLooseShape>(name: string, shape: S) {
  return z.object(shape, { error: mustBeObject(name) });
}

/**
 * A record whose keys are closed: a key it does not know is refused with `unknownKey(key)` (a whole sentence that
 * lists the keys it knows), anything not an object with "`record` must be an object".
 */
export function closedRecord<S extends z.core.$ZodLooseShape>(
  record: string,
  shape: S,
  unknownKey: (key: string) => string,
) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKey(issue.keys[0]) : mustBeObject(record)(issue)),
  });
}

// --- the pieces records are made of -------------------------------------------------------------------------------

export const text = z.string({ error: mustBe('a string') });
export const nonEmptyText = z.string({ error: mustBe('a string') }).min(1, { error: 'must not be empty.' });
export const textOrNull = z.string({ error: mustBe('a string or null') }).nullable();

/** A safe integer, at least `min` and at most `max` when a bound is given. */
export function integer(min?: number, max = Number.MAX_SAFE_INTEGER) {
  const words = `an integer${min === undefined ? '' : ` between ${min} and ${max}`}`;
  const int = z.int({ error: mustBe(words) });
  return min === undefined ? int : int.min(min).max(max);
}

/** Check a lone integer (a limit, a ttl); INVALID_INPUT names `field` and the range. */
export function checkInt(value: unknown, field: string, min?: number, max?: number): number {
  return check(integer(min, max), value, field);
}

/** A duration or similar: a finite number of milliseconds ≥ 0 (fractions allowed). */
export const milliseconds = z.number({ error: mustBe('a finite number of milliseconds ≥ 0') }).min(0);

/** A plain object (not null, not an array); its fields are the caller's. */
export const plainObject = (words: string) =>
  z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    error: mustBe(words),
  });

/** `value` as JSON text (null for null or undefined), or why JSON cannot hold it (cycles, BigInt, functions). */
function serialise(value: unknown): string | null | { refused: string } {
  if (value === undefined || value === null) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return { refused: `must be JSON-serialisable: ${(err as Error).message}.` };
  }
  return text ?? { refused: mustBe('JSON-serialisable')({ input: value }) };
}

/** A value as JSON column text, as a Zod transform (an issue for what JSON cannot hold). */
export function jsonText(value: unknown, ctx: z.RefinementCtx): string | null {
  const text = serialise(value);
  if (text === null || typeof text === 'string') return text;
  ctx.addIssue({ code: 'custom', input: value, message: text.refused });
  return z.NEVER;
}

/** Any value as a JSON column. */
export const jsonColumn = z.unknown().transform(jsonText);

/**
 * Serialise a JSON column outside a record (an event, a journal entry); INVALID_INPUT names `field`. No schema
 * here: the hub appends every call's event through it.
 */
export function toJson(value: unknown, field: string): string | null {
  const text = serialise(value);
  if (text === null || typeof text === 'string') return text;
  invalid(`${field} ${text.refused}`);
}

// --- times --------------------------------------------------------------------------------------------------------

/** ISO 8601 date or date-time; a time needs a zone (Z or ±hh:mm) so it means one instant on every machine. */
export const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** The one shape every stored time has (`2030-01-01T00:00:00.000Z`), so comparing the text compares the instants. */
export const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** An ISO time in canonical UTC form, or undefined; impossible dates (Feb 30) are refused rather than rolled over. */
function canonicalIso(value: unknown): string | undefined {
  // The common case — already canonical, as toISOString() writes it — costs one regex and one round trip.
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms) && new Date(ms).toISOString() === value) return value;
  }
  const m = typeof value === 'string' ? ISO_TIME.exec(value) : null;
  if (!m) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = m;
  const mo = Number(month);
  const daysInMonth = new Date(Date.UTC(Number(year), mo, 0)).getUTCDate();
  if (
    !(mo >= 1 && mo <= 12 && Number(day) >= 1 && Number(day) <= daysInMonth) ||
    !(Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59)
  )
    return undefined;
  const ms = Date.parse(value as string);
  if (Number.isNaN(ms)) return undefined;
  // Length 24 keeps the year within 0000..9999, where text order equals time order.
  const iso = new Date(ms).toISOString();
  return iso.length === 24 ? iso : undefined;
}

/** An ISO time, given as any ISO form and kept in canonical UTC form. */
export const isoTime = z.custom<string>().transform((value: unknown, ctx): string => {
  const iso = canonicalIso(value);
  if (iso !== undefined) return iso;
  ctx.addIssue({
    code: 'custom',
    input: value,
    message: mustBe('an ISO 8601 time such as 2030-01-01T00:00:00.000Z')({ input: value }),
  });
  return z.NEVER;
});

/** Check a lone ISO time and return it canonical; INVALID_INPUT names `field`. */
export function checkIso(value: unknown, field: string): string {
  return check(isoTime, value, field);
}

/** Check a lone string; INVALID_INPUT names `field`. */
export function checkString(value: unknown, field: string): string {
  return check(text, value, field);
}

/** Check a lone non-empty string (an owner, a key); INVALID_INPUT names `field`. */
export function checkNonEmpty(value: unknown, field: string): string {
  return check(nonEmptyText, value, field);
}

/** Page size when a caller gives none, and the largest page a caller may ask for. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Most finished tasks or hook runs one metrics read returns. */
export const MAX_FINISHED = 10_000;
