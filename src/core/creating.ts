// Creating capabilities: calls that insert a new record, which a retry would duplicate. Declared with
// `defineCreating`, they accept an idempotency key — the `idempotencyKey` input field, MCP `_meta`
// `switchboard/idempotency-key`, or REST's `Idempotency-Key` header (rest.ts puts it in `_meta`) — and hand the store
// a claim, so a retry with the same key answers the first result instead of creating a second record.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Capability } from './capability.ts';
import type { CallContext } from './context.ts';
import { SwitchboardError } from './errors.ts';
import { type IdempotencyClaim, IdempotencyKeySchema, type Once } from './idempotency.ts';

/** The MCP `_meta` key of an idempotency key (the `switchboard/` prefix, as `switchboard/error` in results). */
export const IDEMPOTENCY_META_KEY = 'switchboard/idempotency-key';

/** The input field of an idempotency key, added to every creating capability's input schema. */
export const IDEMPOTENCY_FIELD = 'idempotencyKey';

const KEY_FIELD = IdempotencyKeySchema.optional().describe(
  'Makes a retry safe: the first call with a key creates, a repeat with the same key and input answers that same result instead of creating again (kept for [store] idempotency_retention_hours, 24 h by default). Use a fresh UUID per new request. Also accepted as _meta "switchboard/idempotency-key" or the REST Idempotency-Key header.',
);

type Shape = z.ZodObject;

export interface CreatingCapability<I extends Shape, O extends z.ZodType>
  extends Omit<Capability<I, O>, 'handle' | 'input'> {
  input: I;
  /** Where a caller whose call had an unknown outcome can look for the record (`task.list`). */
  lookup: string;
  /**
   * Create the record. With a claim, the store writes the record and the claim together and answers the first result
   * when the key was taken before (`TaskStore.createOnce`); without one, it just creates.
   */
  create: (input: z.output<I>, ctx: CallContext, claim: IdempotencyClaim | undefined) => Promise<Once<z.output<O>>>;
}

/**
 * Declare a creating capability: its input gains `idempotencyKey`, and its `create` gets the claim to pass to the
 * store. An unknown outcome (the store may or may not have written) is answered with how to check or retry safely.
 *
 * @example
 * export const noteCreate = defineCreating({
 *   name: 'note.create', description: 'Add a note.', lookup: 'note.list',
 *   input: z.strictObject({ text: z.string() }), output: NoteSchema,
 *   create: ({ text }, ctx, claim) => ctx.services.store.notes.create({ text }, claim),
 * });
 */
export function defineCreating<I extends Shape, O extends z.ZodType>(cap: CreatingCapability<I, O>): Capability {
  const { create, lookup, input, ...rest } = cap;
  return {
    ...rest,
    input: input.extend({ [IDEMPOTENCY_FIELD]: KEY_FIELD }),
    handle: async (given: Record<string, unknown>, ctx: CallContext) => {
      const { [IDEMPOTENCY_FIELD]: field, ...args } = given;
      const key = idempotencyKey(field as string | undefined, ctx.meta);
      const claim: IdempotencyClaim | undefined =
        key === undefined
          ? undefined
          : {
              principal: ctx.principal.id,
              capability: cap.name,
              key,
              fingerprint: fingerprint(args),
              ttlMs: retentionMs(ctx),
            };
      try {
        return (await create(args as z.output<I>, ctx, claim)).value;
      } catch (err) {
        throw withRetryAdvice(err, cap.name, lookup, key);
      }
    },
  } as Capability;
}

/** The call's key: the input field or `_meta`, checked; both may be given only when they agree. */
function idempotencyKey(field: string | undefined, meta: Record<string, unknown> | undefined): string | undefined {
  const fromMeta = meta?.[IDEMPOTENCY_META_KEY];
  if (fromMeta === undefined) return field;
  const parsed = IdempotencyKeySchema.safeParse(fromMeta);
  if (!parsed.success)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `_meta "${IDEMPOTENCY_META_KEY}" (or the Idempotency-Key header): ${parsed.error.issues[0].message}.`,
    );
  if (field !== undefined && field !== parsed.data)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `${IDEMPOTENCY_FIELD} '${field}' and _meta "${IDEMPOTENCY_META_KEY}" (or the Idempotency-Key header) '${parsed.data}' differ; give the key once, or the same key in both.`,
    );
  return parsed.data;
}

/** SHA-256 of the input as canonical JSON (keys sorted), so the same request always has the same fingerprint. */
export function fingerprint(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function retentionMs(ctx: CallContext): number {
  return Math.round(ctx.services.config.get().store.idempotency_retention_hours * 3_600_000);
}

/** An unknown outcome gets the capability's own way to check it, and whether a retry is safe. */
function withRetryAdvice(err: unknown, name: string, lookup: string, key: string | undefined): unknown {
  if (!(err instanceof SwitchboardError) || err.details?.outcome !== 'unknown') return err;
  const advice = key
    ? `Retrying ${name} with the same idempotency key '${key}' is safe: it answers the first result if that attempt went through, and never creates twice.`
    : `This call had no idempotency key, so a plain retry may create a duplicate: look for the record with ${lookup} first, and pass ${IDEMPOTENCY_FIELD} (a fresh UUID per request) so retries are safe.`;
  return new SwitchboardError(err.code, `${err.message} ${advice}`, err.details);
}
