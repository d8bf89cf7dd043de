// Idempotency keys as every store keeps them: a creating call that carries a key is stored together with its first
// result, in the same transaction (SQLite) or Lua script (Redis) as the record it creates, so a retry with the same
// key returns that result instead of creating a second record. The checks and the replay decision live here, once;
// the key and the claim's shape are the kernel's (src/core/idempotency.ts), which makes claims.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SwitchboardError } from '../core/errors.ts';
import { type IdempotencyClaim, IdempotencyClaimSchema, type Once } from '../core/idempotency.ts';

/** A key as stored, with the first result of the call that claimed it. */
export const IdempotencyRecordSchema = z.strictObject({
  fingerprint: z.string(),
  /** The first call's result, as it answered. */
  result: z.unknown(),
  createdAt: z.string(),
  /** Epoch ms after which the key is forgotten. */
  expiresAt: z.number().int(),
});
export type IdempotencyRecord = z.output<typeof IdempotencyRecordSchema>;

/** Check a claim from a caller; INVALID_INPUT names the field and what is expected. */
export function checkClaim(claim: unknown): IdempotencyClaim {
  const parsed = IdempotencyClaimSchema.safeParse(claim);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? `idempotency claim ${issue.path.join('.')}` : 'idempotency claim';
  throw new SwitchboardError('INVALID_INPUT', `${where}: ${issue.message}.`);
}

/** The record to store for a claim and the result the call answered with. */
export function idempotencyRecord(claim: IdempotencyClaim, result: unknown, now = Date.now()): IdempotencyRecord {
  return {
    fingerprint: claim.fingerprint,
    result,
    createdAt: new Date(now).toISOString(),
    expiresAt: now + claim.ttlMs,
  };
}

/** One string per (principal, capability, key), fit for a Redis key: no separator a principal id could forge. */
export function claimId(claim: IdempotencyClaim): string {
  return createHash('sha256')
    .update(JSON.stringify([claim.principal, claim.capability, claim.key]))
    .digest('hex');
}

/**
 * What a stored key means for a new call with `claim`: the first result again when it is the same request, a
 * CONFLICT when the key was used for a different one.
 */
export function replay<T>(claim: IdempotencyClaim, stored: unknown): Once<T> {
  const record = IdempotencyRecordSchema.parse(stored);
  if (record.fingerprint !== claim.fingerprint)
    throw new SwitchboardError(
      'CONFLICT',
      `Idempotency key '${claim.key}' was already used for a different ${claim.capability} request (at ${record.createdAt}, with other input). A key stands for one request: send a new key for a new request, or resend the first request's input unchanged to get its result.`,
      { idempotencyKey: claim.key, firstUsedAt: record.createdAt },
    );
  return { value: record.result as T, replayed: true };
}
