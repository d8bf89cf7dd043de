// API tokens: minting, hashing and checking bearer tokens against the Store, and parsing `--expires` durations.
// Only a token's SHA-256 is ever stored; the secret is shown once at creation and never kept.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SwitchboardError } from '../core/errors.ts';
import type { TokenRecord, TokenStore } from '../store/contract.ts';

/** Every token Switchboard mints starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'sb_';

/** Names of built-in principals: a token may not borrow one (audit records and limits key on the name). */
export const RESERVED_TOKEN_NAMES = new Set(['anonymous', 'stdio', 'cli', 'internal']);

/** Longer presented strings are refused without hashing: no real token is this long. */
const MAX_PRESENTED_LENGTH = 1024;

/**
 * A new bearer token: `sb_` + 32 random bytes in base64url (256 bits of entropy, 46 characters).
 *
 * @example
 * const token = generateToken(); // 'sb_3q2-7wKf…' — print it once, store only hashToken(token)
 */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The SHA-256 of a token as lowercase hex — what {@link TokenStore} keeps. A fast hash is right here (unlike for
 * passwords): tokens are random with 256 bits of entropy, so there is nothing to brute-force.
 *
 * @example
 * await store.tokens.create({ name: 'ci', hash: hashToken(token), roles: ['agent'], expiresAt: null });
 */
export function hashToken(token: string): string {
  if (typeof token !== 'string') throw new SwitchboardError('INVALID_INPUT', 'A token must be a string.');
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The token record a presented secret belongs to, looked up in a token set keyed by hash, or undefined when it
 * is unknown, malformed, too long or expired (`expiresAt <= now`, an unreadable expiry included). Lookup is by
 * hash, so timing can reveal at most something about the hash, never the secret; the final comparison is
 * constant-time all the same.
 *
 * @example
 * const record = verifyInSet(byHash, bearer);
 */
export function verifyInSet(
  byHash: ReadonlyMap<string, TokenRecord>,
  presented: string,
  now: number = Date.now(),
): TokenRecord | undefined {
  if (!presentable(presented)) return undefined;
  const hash = hashToken(presented);
  return matchHash(hash, byHash.get(hash), now);
}

/** Whether a token has expired at `now`; an unreadable expiry counts as expired (fails closed). */
export function isExpired(record: Pick<TokenRecord, 'expiresAt'>, now: number = Date.now()): boolean {
  if (record.expiresAt === null) return false;
  const expires = Date.parse(record.expiresAt);
  return Number.isNaN(expires) || expires <= now;
}

function presentable(presented: unknown): presented is string {
  return typeof presented === 'string' && presented.length > 0 && presented.length <= MAX_PRESENTED_LENGTH;
}

function matchHash(hash: string, record: TokenRecord | undefined, now: number): TokenRecord | undefined {
  if (!record) return undefined;
  const expected = Buffer.from(record.hash, 'hex');
  const actual = Buffer.from(hash, 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  return isExpired(record, now) ? undefined : record;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** The largest offset a JavaScript Date can hold; a longer duration could not be turned into an expiry time. */
const MAX_DURATION_MS = 8.64e15;

/**
 * Milliseconds in a duration such as `30d`, `12h`, `45m`, `90s` or `2w` (a positive whole number and one unit).
 * Bad input is INVALID_INPUT naming `flag`, so the CLI can show it as is.
 *
 * @example
 * parseDuration('30d'); // 2_592_000_000
 * new Date(Date.now() + parseDuration(opts.expires)).toISOString(); // the token's expiresAt
 * parseDuration('7d', '--since'); // same rule for another flag
 */
export function parseDuration(text: string, flag = '--expires'): number {
  const m = typeof text === 'string' ? /^\s*(\d{1,16})\s*([smhdw])\s*$/.exec(text) : null;
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : Number.NaN;
  if (!(ms > 0 && ms <= MAX_DURATION_MS)) {
    const got = typeof text === 'string' ? `'${text}'` : String(text);
    throw new SwitchboardError('INVALID_INPUT', `${flag} must look like 30d, 12h, 45m or 90s; got ${got}`);
  }
  return ms;
}
