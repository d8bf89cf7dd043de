// The [store] section: SQLite by default, Redis with kind/url/prefix, and a clear error for a URL that is not Redis.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';

function project(toml: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-store-config-'));
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  mkdirSync(join(dir, 'home'));
  writeFileSync(join(dir, '.switchboard/config.toml'), toml);
  return { dir, env: { SWITCHBOARD_HOME: join(dir, 'home'), REDIS_HOST: 'cache.local' } };
}

describe('[store]', () => {
  it('defaults to the SQLite file, with Redis settings ready for kind = "redis"', () => {
    const { dir, env } = project('');
    expect(loadConfig(dir, env).config.store).toEqual({
      kind: 'sqlite',
      path: '.switchboard/state.db',
      url: 'redis://127.0.0.1:6379',
      prefix: 'switchboard:',
      idempotency_retention_hours: 24,
    });
  });

  it('reads idempotency_retention_hours, and refuses one that is not a positive number of hours', () => {
    const half = project('[store]\nidempotency_retention_hours = 0.5\n');
    expect(loadConfig(half.dir, half.env).config.store).toMatchObject({ idempotency_retention_hours: 0.5 });
    const zero = project('[store]\nidempotency_retention_hours = 0\n');
    expect(() => loadConfig(zero.dir, zero.env)).toThrow(/store\.idempotency_retention_hours/);
  });

  it('reads kind, url (with ${VAR} expansion) and prefix for Redis', () => {
    const { dir, env } = project('[store]\nkind = "redis"\nurl = "redis://${REDIS_HOST}:6380/2"\nprefix = "team-a:"\n');
    expect(loadConfig(dir, env).config.store).toMatchObject({
      kind: 'redis',
      url: 'redis://cache.local:6380/2',
      prefix: 'team-a:',
    });
  });

  it('refuses a URL that is not redis:// or rediss://, and an empty prefix, naming the field', () => {
    const bad = project('[store]\nkind = "redis"\nurl = "http://127.0.0.1:6379"\n');
    expect(() => loadConfig(bad.dir, bad.env)).toThrow(/store\.url.*redis:\/\/ or rediss:\/\/ URL/s);
    const empty = project('[store]\nkind = "redis"\nprefix = ""\n');
    expect(() => loadConfig(empty.dir, empty.env)).toThrow(/store\.prefix/);
    const kind = project('[store]\nkind = "postgres"\n');
    expect(() => loadConfig(kind.dir, kind.env)).toThrow(/store\.kind/);
  });
});
