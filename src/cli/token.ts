// `switchboard token create|list|revoke`: API tokens for HTTP callers. The secret is printed once and only
// its SHA-256 is stored; listings never show it.
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { effectiveProfile, knownProfiles } from '../core/profile.ts';
import { openProjectStore } from '../hub.ts';
import { generateToken, hashToken, parseDuration, RESERVED_TOKEN_NAMES } from '../policy/tokens.ts';
import { CliError, printJson } from './output.ts';
import { table as makeTable } from './table.ts';

function parseRoles(text: string | undefined): string[] {
  const roles = (text ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (roles.length === 0)
    throw new CliError("--roles is required: a comma-separated list such as 'agent' or 'agent,admin'.", 2);
  const bad = roles.find((r) => !/^[A-Za-z0-9_*.-]{1,64}$/.test(r));
  if (bad) throw new CliError(`--roles: '${bad}' is not a role name (letters, digits, '_', '.', '-', or '*').`, 2);
  return roles;
}

export async function tokenCreate(
  name: string,
  opts: { cwd: string; roles?: string; expires?: string; profile?: string; json?: boolean },
): Promise<void> {
  if (RESERVED_TOKEN_NAMES.has(name))
    throw new CliError(`'${name}' names a built-in caller; choose another token name.`, 2);
  const roles = parseRoles(opts.roles);
  if (opts.profile !== undefined) checkProfile(opts.cwd, opts.profile);
  const expiresAt = opts.expires ? new Date(Date.now() + parseDuration(opts.expires)).toISOString() : null;
  const store = await openProjectStore(opts.cwd);
  try {
    const token = generateToken();
    const record = await store.tokens.create({
      name,
      hash: hashToken(token),
      roles,
      expiresAt,
      profile: opts.profile ?? null,
    });
    if (opts.json)
      return printJson({
        name: record.name,
        token,
        roles: record.roles,
        expiresAt: record.expiresAt,
        profile: record.profile,
      });
    process.stdout.write(
      `Created token '${record.name}' (roles: ${record.roles.join(', ')}${record.profile ? `; profile: ${record.profile}` : ''}; ${record.expiresAt ? `expires ${record.expiresAt}` : 'does not expire'}).\n` +
        'Copy it now — it is not stored and cannot be shown again:\n\n' +
        `${token}\n\n` +
        `Use it as: Authorization: Bearer ${token.slice(0, 6)}…   e.g. claude mcp add --transport http switchboard URL --header "Authorization: Bearer <token>"\n`,
    );
  } finally {
    await store.close();
  }
}

/**
 * A token is bound only to a profile the configuration defines (a typo would lock it out of everything); one
 * removed later makes the token fail closed with FORBIDDEN (src/policy/profile-select.ts).
 */
function checkProfile(cwd: string, profile: string): void {
  const { config } = loadConfig(resolve(cwd));
  if (!effectiveProfile(config, profile))
    throw new CliError(
      `--profile '${profile}': the configuration defines no [profiles.${profile}]. ${knownProfiles(config)}`,
      2,
    );
}

export async function tokenList(opts: { cwd: string; json?: boolean }): Promise<void> {
  const store = await openProjectStore(opts.cwd);
  try {
    const now = Date.now();
    const tokens = (await store.tokens.list()).map((t) => ({
      name: t.name,
      roles: t.roles,
      createdAt: t.createdAt,
      expiresAt: t.expiresAt,
      lastUsedAt: t.lastUsedAt,
      profile: t.profile,
      status: t.expiresAt && Date.parse(t.expiresAt) <= now ? 'expired' : 'active',
    }));
    if (opts.json) return printJson(tokens);
    if (tokens.length === 0) {
      process.stdout.write('No tokens. Create one with: switchboard token create NAME --roles agent\n');
      return;
    }
    const table = makeTable(['name', 'roles', 'profile', 'status', 'created', 'expires', 'last used']);
    for (const t of tokens)
      table.push([
        t.name,
        t.roles.join(','),
        t.profile ?? '-',
        t.status,
        t.createdAt.slice(0, 19),
        t.expiresAt?.slice(0, 19) ?? 'never',
        t.lastUsedAt?.slice(0, 19) ?? 'never',
      ]);
    process.stdout.write(`${table.toString()}\n`);
  } finally {
    await store.close();
  }
}

export async function tokenRevoke(name: string, opts: { cwd: string }): Promise<void> {
  const store = await openProjectStore(opts.cwd);
  try {
    if (!(await store.tokens.revoke(name)))
      throw new CliError(`No token named '${name}'. List them with: switchboard token list`, 1);
    process.stdout.write(`Revoked token '${name}'. Requests presenting it are refused from now on.\n`);
  } finally {
    await store.close();
  }
}
