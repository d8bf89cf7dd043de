// What a creating call hands the store (src/core/creating.ts): the caller's idempotency key and the claim on it. The
// kernel makes claims, every store backend keeps them (src/store/idempotency.ts), so their shape lives here, below
// both.
import { z } from 'zod';

/** What an idempotency key may look like: 1..255 visible ASCII characters (a UUID, a ULID, `retry-42`). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const IdempotencyKeySchema = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN, 'expected 1-255 visible ASCII characters (a UUID, for example)');

/** Longest a key is kept: a year. */
export const IDEMPOTENCY_MAX_TTL_MS = 366 * 24 * 3_600_000;

/**
 * A creating call's claim on a key: the key is unique per principal and capability, and `fingerprint` (SHA-256 of
 * the call's input) tells a retry of the same request from a different request that reuses the key.
 */
export const IdempotencyClaimSchema = z.strictObject({
  principal: z.string().min(1),
  capability: z.string().min(1),
  key: IdempotencyKeySchema,
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'expected the lowercase hex SHA-256 of the request'),
  /** How long the key is kept (its retention), in ms. */
  ttlMs: z.number().int().min(1).max(IDEMPOTENCY_MAX_TTL_MS),
});
export type IdempotencyClaim = z.output<typeof IdempotencyClaimSchema>;

/** A creating write's outcome: the record, and whether it is the first call's result replayed for a retry. */
export interface Once<T> {
  value: T;
  replayed: boolean;
}
