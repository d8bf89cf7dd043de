// Whose upstream login a call uses: the login key. Keys are namespaced by how the caller was identified, so that no
// name a caller can choose reaches another's login: `local` (the person at this machine), `*` (a shared server),
// `token:<name>`, `oauth:<sub>`, `agent:<session>`. A token named `local` gets `token:local`, never the person's
// login. Logins stored before keys were namespaced (a token's key was its bare name) are re-keyed, resealed under
// their new key, by `migrateLoginKeys`.

import { SwitchboardError } from '../../core/errors.ts';
import type { OAuthLoginStore } from '../../store/contract.ts';
import { TOKEN_NAME_PATTERN } from '../../store/records/tokens.ts';
import { loginAad, type SealingKey, seal, unseal } from './sealed.ts';

/** The login of the person at this machine (stdio, the CLI, anonymous on loopback): what plain `mcp login` writes. */
export const LOCAL_LOGIN = 'local';
/** The one login of a shared server (`oauth.shared = true`). */
export const SHARED_LOGIN = '*';

/** The namespaces a login key of a caller other than the local person starts with. */
const NAMESPACES = ['token', 'oauth', 'agent'] as const;

/** Whose login a call uses: one login for a shared server, the local person's for local callers, else the caller's. */
export function loginKey(principal: { id: string; kind?: string }, shared: boolean): string {
  if (shared) return SHARED_LOGIN;
  switch (principal.kind) {
    case undefined:
    case 'stdio':
    case 'cli':
    case 'anonymous':
      return LOCAL_LOGIN;
    case 'token':
      return `token:${principal.id}`;
    // `oauth:<sub>` (src/policy/auth.ts): the subject the identity provider vouches for, already namespaced.
    case 'oauth':
      return principal.id.startsWith('oauth:') ? principal.id : `oauth:${principal.id}`;
    default:
      // Internal callers are agent sessions (`agent:<session>`); any other gets a namespace no option can name.
      return principal.id.startsWith('agent:') ? principal.id : `internal:${principal.id}`;
  }
}

/** The command that logs this key in, for messages. */
export function loginCommand(server: string, key: string): string {
  return `switchboard mcp login ${server}${key === LOCAL_LOGIN || key === SHARED_LOGIN ? '' : ` --principal ${key}`}`;
}

/**
 * The login key `--principal` names: `token:NAME`, `oauth:SUBJECT` or `agent:SESSION` as written, and a bare name
 * as the token of that name. `local` and `*` are refused: they would read as the local or shared login.
 */
export function principalOptionKey(text: string): string {
  if (text === LOCAL_LOGIN || text === SHARED_LOGIN)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `--principal '${text}' would name the ${text === LOCAL_LOGIN ? 'local' : 'shared'} login: leave --principal out for that; a token named '${text}' is --principal token:${text}.`,
    );
  const colon = text.indexOf(':');
  const [namespace, rest] = colon < 0 ? ['token', text] : [text.slice(0, colon), text.slice(colon + 1)];
  if (namespace === 'token' && !TOKEN_NAME_PATTERN.test(rest))
    throw new SwitchboardError(
      'INVALID_INPUT',
      `--principal '${text}': '${rest}' is not a token name (1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-').`,
    );
  if (!(NAMESPACES as readonly string[]).includes(namespace) || rest === '')
    throw new SwitchboardError(
      'INVALID_INPUT',
      `--principal '${text}' names no caller: expected a token name (or token:NAME), oauth:SUBJECT or agent:SESSION.`,
    );
  return `${namespace}:${rest}`;
}

/** A key written before keys were namespaced that belonged to a token: its bare name (never `local`, the person's). */
function legacyTokenKey(key: string): boolean {
  return key !== LOCAL_LOGIN && TOKEN_NAME_PATTERN.test(key);
}

/** The key a token's login had before keys were namespaced, if it had one of its own (`token:alice` → `alice`). */
export function legacyKeyOf(key: string): string | undefined {
  const name = key.startsWith('token:') ? key.slice('token:'.length) : undefined;
  return name !== undefined && legacyTokenKey(name) ? name : undefined;
}

export interface KeyMigration {
  /** Logins re-keyed, as `server: old → new`. */
  moved: string[];
  /** Old logins dropped because a login under the new key was already stored (it is newer, or the same one). */
  superseded: string[];
  /** Logins left under their old key: the sealing key does not open them (each with why). */
  kept: string[];
}

/**
 * Re-key the logins stored under a token's bare name to `token:<name>`, resealed for the new key (the sealed text is
 * bound to its key). Idempotent, safe to run from several processes. A login the sealing key cannot open is kept as
 * it was and reported, never dropped; the sealing key is asked for only when there is something to move.
 */
export async function migrateLoginKeys(store: OAuthLoginStore, sealingKey: () => SealingKey): Promise<KeyMigration> {
  const result: KeyMigration = { moved: [], superseded: [], kept: [] };
  const legacy = (await store.list()).filter((l) => legacyTokenKey(l.principal));
  if (legacy.length === 0) return result;
  const key = sealingKey();
  for (const old of legacy) {
    const to = `token:${old.principal}`;
    const label = `${old.server}: ${old.principal} → ${to}`;
    if (await store.get(old.server, to)) {
      await store.delete(old.server, old.principal);
      result.superseded.push(label);
      continue;
    }
    let plain: string;
    try {
      plain = unseal(key, old.sealed, loginAad(old.server, old.principal));
    } catch (err) {
      result.kept.push(`${label} (${(err as Error).message})`);
      continue;
    }
    const { updatedAt: _, ...record } = old;
    await store.put({ ...record, principal: to, sealed: seal(key, plain, loginAad(old.server, to)) });
    await store.delete(old.server, old.principal);
    result.moved.push(label);
  }
  return result;
}
