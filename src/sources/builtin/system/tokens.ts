// system.tokens: the API tokens, as `switchboard token list|create|revoke` manage them, for an admin over any
// transport (the dashboard's Servers & tokens view). The secret of a new token is answered once and never stored;
// in the call's event it sits under `token`, a key redaction masks (docs/security.md).
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { generateToken, hashToken, isExpired, parseDuration, RESERVED_TOKEN_NAMES } from '../../../policy/tokens.ts';
import { TOKEN_NAME_PATTERN } from '../../../store/contract.ts';

export const systemTokens = defineCapability({
  name: 'system.tokens',
  title: 'API tokens',
  description:
    "Manage the API tokens HTTP callers present (admins only). action 'list' (default): name, roles, created, expires, last used — never the secrets. 'create' with name, roles and optional expires (a duration like 30d, 12h): answers the new token's secret once, it cannot be shown again. 'revoke' with name: the token stops working at once.",
  input: z.strictObject({
    action: z.enum(['list', 'create', 'revoke']).default('list'),
    name: z
      .string()
      .regex(TOKEN_NAME_PATTERN, 'a token name is 1-64 letters, digits, dots, dashes or underscores')
      .optional()
      .describe('The token, for create and revoke.'),
    roles: z.array(z.string().min(1).max(64)).max(32).optional().describe('Roles of a new token, e.g. ["agent"].'),
    expires: z.string().max(16).optional().describe('Lifetime of a new token: 30d, 12h, 90m; none: never expires.'),
  }),
  roles: ['admin'],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handle: async ({ action, name, roles, expires }, ctx) => {
    const { tokens } = ctx.services.store;
    const list = async () => (await tokens.list()).map(({ hash: _hash, ...t }) => ({ ...t, expired: isExpired(t) }));
    if (action === 'list') return { tokens: await list() };
    if (!name) throw new SwitchboardError('INVALID_INPUT', `action '${action}' needs the token's name.`);
    if (action === 'revoke') {
      if (!(await tokens.revoke(name)))
        throw new SwitchboardError('NOT_FOUND', `No token '${name}'. List them with action 'list'.`);
      return { revoked: name, tokens: await list() };
    }
    if (RESERVED_TOKEN_NAMES.has(name))
      throw new SwitchboardError('INVALID_INPUT', `'${name}' names a built-in caller; choose another token name.`);
    if (!roles?.length)
      throw new SwitchboardError('INVALID_INPUT', 'A new token needs roles, e.g. ["agent"] or ["admin", "agent"].');
    const expiresAt = expires ? new Date(Date.now() + parseDuration(expires, 'expires')).toISOString() : null;
    const token = generateToken();
    const record = await tokens.create({ name, hash: hashToken(token), roles, expiresAt });
    return { created: { name: record.name, roles: record.roles, expiresAt: record.expiresAt }, token };
  },
});
