// HttpAuth keeps one principal per token record: the same object while the configuration stands, a new one (with
// the new exposure) once it changes — whichever token is seen first after the change.
import type { IncomingMessage } from 'node:http';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type Config, ConfigSchema } from '../../src/config/schema.ts';
import { SwitchboardError } from '../../src/core/errors.ts';
import { HttpAuth } from '../../src/policy/auth.ts';
import { generateToken, hashToken } from '../../src/policy/tokens.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';

let store: SqliteStore;
beforeEach(() => {
  store = SqliteStore.open(':memory:');
});
afterEach(async () => {
  await store.close();
});

const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as IncomingMessage;
const configWith = (expose: object): Config => ConfigSchema.parse({ policy: { tokens: { ci: { expose } } } });

async function issue(name: string): Promise<string> {
  const token = generateToken();
  await store.tokens.create({ name, hash: hashToken(token), roles: ['agent'], expiresAt: null });
  return token;
}

async function principalOf(auth: HttpAuth, token: string) {
  const result = await auth.authenticate(request(token));
  if (!result.ok) throw new Error(result.message);
  return result.principal;
}

it('answers the same principal for a token until the configuration changes, then one built from the new one', async () => {
  const ci = await issue('ci');
  const other = await issue('other');
  let config = configWith({ allow: ['task.*'] });
  const auth = new HttpAuth(store, () => config, undefined, false);

  const first = await principalOf(auth, ci);
  expect(first).toMatchObject({ id: 'ci', kind: 'token', roles: ['agent'] });
  expect(first.sees?.('task.create')).toBe(true);
  expect(first.sees?.('system.health')).toBe(false);
  expect(await principalOf(auth, ci)).toBe(first);

  // Another token is seen first after the change: `ci` must still get a principal from the new configuration.
  config = configWith({ allow: ['system.*'] });
  await principalOf(auth, other);
  const second = await principalOf(auth, ci);
  expect(second).not.toBe(first);
  expect(second.sees?.('task.create')).toBe(false);
  expect(second.sees?.('system.health')).toBe(true);
  expect(await principalOf(auth, ci)).toBe(second);
});

it('keeps the token set it loaded while the store is unavailable, and fails UNAVAILABLE before a first load', async () => {
  const ci = await issue('ci');
  const auth = new HttpAuth(store, () => ConfigSchema.parse({}), undefined, false);
  expect(await principalOf(auth, ci)).toMatchObject({ id: 'ci' });

  const away = new SwitchboardError('UNAVAILABLE', 'Redis at redis://127.0.0.1:6379 is unreachable.');
  vi.spyOn(store.tokens, 'version').mockRejectedValue(away);
  // Past the version check's interval, so the next request asks the store again.
  vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 60_000);
  try {
    expect(await principalOf(auth, ci)).toMatchObject({ id: 'ci' });
    const fresh = new HttpAuth(store, () => ConfigSchema.parse({}), undefined, false);
    await expect(fresh.authenticate(request(ci))).rejects.toBe(away);
  } finally {
    vi.restoreAllMocks();
  }
});
