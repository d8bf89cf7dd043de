// API tokens as Zod schemas: a token's name and hash (never the secret) and a new token as a caller gives it.
import { z } from 'zod';
import { PROFILE_NAME } from '../../config/schema.ts';
import { check, describe, isoTime, mustBe, nonEmptyText, record } from './common.ts';

/** What a token name may look like: 1..64 characters from `A-Z a-z 0-9 _ . -` (case-sensitive). */
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export const TokenNameSchema = z
  .string({
    error: (issue) =>
      `Token name ${describe(issue.input)} is invalid: a token name is 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'.`,
  })
  .regex(TOKEN_NAME_PATTERN);

/** A profile name as `[profiles.NAME]` allows it (src/config/schema.ts): URL-safe, 1..64 characters. */
export const ProfileNameSchema = z
  .string({
    error: (issue) =>
      `Profile name ${describe(issue.input)} is invalid: a profile name is 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'.`,
  })
  .regex(PROFILE_NAME);

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The lowercase hex SHA-256 of a token. The message never echoes the value: it may be the token itself. */
export const TokenHashSchema = z
  .string({
    error: (issue) =>
      `must be the lowercase hex SHA-256 of the token (64 characters from 0-9a-f), got ${typeof issue.input === 'string' ? `a string of ${issue.input.length} characters` : describe(issue.input)}.`,
  })
  .regex(SHA256_HEX);

/** A new token as a caller gives it; `expiresAt` is kept canonical, null when it never expires. */
export const NewTokenSchema = record('token', {
  name: TokenNameSchema,
  /** Lowercase hex SHA-256 of the token (64 characters); see `hashToken` in src/policy/tokens.ts. */
  hash: TokenHashSchema,
  /** Roles the token grants, as given at creation. */
  roles: z.array(nonEmptyText, { error: mustBe('an array of strings') }),
  /** When the token stops being accepted (exclusive); null: never. */
  expiresAt: isoTime.nullish().transform((v) => v ?? null),
  /** The profile every request of the token runs under; null: none (it may choose one per request). */
  profile: ProfileNameSchema.nullish().transform((v) => v ?? null),
});
export type NewToken = z.input<typeof NewTokenSchema>;

export function checkNewToken(token: unknown): z.output<typeof NewTokenSchema> {
  return check(NewTokenSchema, token);
}

export function checkTokenName(name: unknown): string {
  return check(TokenNameSchema, name);
}

export function checkHash(hash: unknown): string {
  return check(TokenHashSchema, hash, 'hash');
}
