// OAuth logins to upstream servers as Zod schemas: one record per server × principal key, the tokens sealed
// (AES-256-GCM, src/mcp-client/oauth/sealed.ts) by the hub before the store sees them. What people may read
// without the key stays beside the sealed text: state, scopes, expiry.
import { z } from 'zod';
import { check, isoTime, nonEmptyText, oneOf, record } from './common.ts';

export const OAUTH_LOGIN_STATES = ['active', 'login_required'] as const;
export type OAuthLoginState = (typeof OAUTH_LOGIN_STATES)[number];

const SERVER = /^[A-Za-z0-9_-]{1,64}$/;
const serverName = z
  .string()
  .regex(SERVER, { error: 'server must be 1-64 characters of A-Z a-z 0-9 _ - (an upstream server name).' });
const principalKey = nonEmptyText.max(200, { error: 'principal must be at most 200 characters.' });
const optionalText = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

export const NewOAuthLoginSchema = record('oauth login', {
  server: serverName,
  /** Whose login: a principal's id, `local` (stdio, CLI, loopback) or `*` (a shared server). */
  principal: principalKey,
  /** The sealed credentials (tokens, client registration, discovery): base64url, never plaintext. */
  sealed: z.string().regex(/^v1\.[A-Za-z0-9_-]+$/, { error: 'sealed must be sealed text (v1.<base64url>).' }),
  state: oneOf(OAUTH_LOGIN_STATES),
  /** Why a login is required (refresh failed, no refresh token, …), for `mcp list --status` and errors. */
  reason: optionalText,
  /** The scope the server granted, as it said. */
  scope: optionalText,
  /** A wider scope a server asked for (403 insufficient_scope): the next login asks for it. */
  requiredScope: optionalText,
  /** When the access token expires; null when the server did not say. */
  expiresAt: isoTime.nullish().transform((v) => v ?? null),
});
export type NewOAuthLogin = z.input<typeof NewOAuthLoginSchema>;
export type OAuthLogin = z.output<typeof NewOAuthLoginSchema> & { updatedAt: string };

export function checkNewOAuthLogin(login: unknown): z.output<typeof NewOAuthLoginSchema> {
  return check(NewOAuthLoginSchema, login);
}

export function checkLoginKey(server: unknown, principal?: unknown): void {
  check(serverName, server, 'server');
  if (principal !== undefined) check(principalKey, principal, 'principal');
}
