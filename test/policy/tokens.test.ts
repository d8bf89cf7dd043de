// API tokens against a real SQLite store: minted tokens are random and prefixed, only hashes are stored, and
// verification refuses unknown, revoked and expired tokens. Duration parsing for `--expires`.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateToken, hashToken, parseDuration, verifyInSet } from '../../src/policy/tokens.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';

describe('generateToken', () => {
  it('mints sb_ + 32 random bytes in base64url', () => {
    const token = generateToken();
    expect(token).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(3), 'base64url')).toHaveLength(32);
  });

  it('never mints the same token twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
  });
});

describe('hashToken', () => {
  it('is the lowercase hex SHA-256 of the token text', () => {
    expect(hashToken('sb_test')).toBe(createHash('sha256').update('sb_test').digest('hex'));
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('is stable and differs between tokens', () => {
    const token = generateToken();
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toBe(hashToken(generateToken()));
  });
});

describe("verifyInSet against the store's token set", () => {
  let store: SqliteStore;
  beforeEach(() => {
    store = SqliteStore.open(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  /** The token set as HTTP authentication holds it: every stored token, by hash. */
  const tokenSet = async () => new Map((await store.tokens.list()).map((t) => [t.hash, t]));

  async function issue(name: string, expiresAt: string | null = null, roles = ['agent']) {
    const token = generateToken();
    const record = await store.tokens.create({ name, hash: hashToken(token), roles, expiresAt });
    return { token, record };
  }

  it('answers the record of a valid token', async () => {
    const { token, record } = await issue('ci', null, ['agent', 'admin']);
    expect(verifyInSet(await tokenSet(), token)).toEqual(record);
  });

  it('stores only the hash, never the secret', async () => {
    const { token } = await issue('ci');
    const listed = JSON.stringify(await store.tokens.list());
    expect(listed).not.toContain(token);
    expect(listed).not.toContain(token.slice(3));
  });

  it('refuses an unknown, altered, empty or oversized token', async () => {
    const { token } = await issue('ci');
    expect(verifyInSet(await tokenSet(), generateToken())).toBeUndefined();
    expect(verifyInSet(await tokenSet(), `${token}x`)).toBeUndefined();
    expect(verifyInSet(await tokenSet(), token.slice(0, -1))).toBeUndefined();
    expect(verifyInSet(await tokenSet(), token.toUpperCase())).toBeUndefined();
    expect(verifyInSet(await tokenSet(), '')).toBeUndefined();
    expect(verifyInSet(await tokenSet(), 'x'.repeat(100_000))).toBeUndefined();
    expect(verifyInSet(await tokenSet(), undefined as unknown as string)).toBeUndefined();
  });

  it('refuses a revoked token', async () => {
    const { token } = await issue('ci');
    await store.tokens.revoke('ci');
    expect(verifyInSet(await tokenSet(), token)).toBeUndefined();
  });

  it('refuses a token from the instant it expires', async () => {
    const expiresAt = '2030-01-01T00:00:00.000Z';
    const { token, record } = await issue('ci', expiresAt);
    const at = Date.parse(expiresAt);
    expect(verifyInSet(await tokenSet(), token, at - 1)).toEqual(record);
    expect(verifyInSet(await tokenSet(), token, at)).toBeUndefined();
    expect(verifyInSet(await tokenSet(), token, at + 1)).toBeUndefined();
  });

  it('checks expiry against the current time by default', async () => {
    const past = await issue('old', new Date(Date.now() - 1000).toISOString());
    const future = await issue('new', new Date(Date.now() + 60_000).toISOString());
    expect(verifyInSet(await tokenSet(), past.token)).toBeUndefined();
    expect(verifyInSet(await tokenSet(), future.token)).toEqual(future.record);
  });

  it('tells tokens apart when several exist', async () => {
    const a = await issue('a');
    const b = await issue('b', null, ['admin']);
    expect(verifyInSet(await tokenSet(), a.token)?.name).toBe('a');
    expect(verifyInSet(await tokenSet(), b.token)?.roles).toEqual(['admin']);
  });
});

describe('parseDuration', () => {
  it('reads seconds, minutes, hours, days and weeks', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('45m')).toBe(45 * 60_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration(' 1d ')).toBe(86_400_000);
  });

  it('rejects anything else with INVALID_INPUT that shows the expected form and the input', () => {
    for (const bad of [
      'x',
      '',
      '30',
      'd',
      '30 days',
      '1.5h',
      '-1d',
      '0d',
      '30D',
      '1y',
      '10ms',
      '1d2h',
      '99999999999w',
    ]) {
      expect(() => parseDuration(bad)).toThrow(
        expect.objectContaining({
          code: 'INVALID_INPUT',
          message: `--expires must look like 30d, 12h, 45m or 90s; got '${bad}'`,
        }),
      );
    }
  });

  it('names another flag when asked to', () => {
    expect(() => parseDuration('soon', '--since')).toThrow("--since must look like 30d, 12h, 45m or 90s; got 'soon'");
  });
});

describe('verifyInSet', () => {
  it('verifies against an in-memory set with the same rules, failing closed on an unreadable expiry', async () => {
    const { generateToken, hashToken, verifyInSet } = await import('../../src/policy/tokens.ts');
    const token = generateToken();
    const base = {
      name: 'x',
      hash: hashToken(token),
      roles: ['agent'],
      createdAt: new Date().toISOString(),
      expiresAt: null,
      lastUsedAt: null,
      profile: null,
    };
    expect(verifyInSet(new Map([[base.hash, base]]), token)?.name).toBe('x');
    expect(verifyInSet(new Map([[base.hash, base]]), `${token}x`)).toBeUndefined();
    expect(verifyInSet(new Map([[base.hash, { ...base, expiresAt: 'not a time' }]]), token)).toBeUndefined();
    expect(
      verifyInSet(new Map([[base.hash, { ...base, expiresAt: new Date(Date.now() - 1).toISOString() }]]), token),
    ).toBeUndefined();
    expect(verifyInSet(new Map(), '')).toBeUndefined();
  });
});
