// Tokens on Redis: records by name (`tokens`), names by hash (`tokens:by-hash`), last uses (`tokens:used`) and a
// counter that every create and revoke bumps (`tokens:version`), so verifiers on every instance see a revocation.
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../core/errors.ts';
import type { NewToken, TokenRecord, TokenStore } from '../contract.ts';
import { checkIso } from '../records/common.ts';
import { checkHash, checkNewToken, checkTokenName } from '../records/tokens.ts';
import type { Io, ScriptDef } from './scripts.ts';

export interface TokenScripts {
  sbTokenCreate(k1: string, k2: string, k3: string, ...args: string[]): Promise<string>;
  sbTokenRevoke(k1: string, k2: string, k3: string, k4: string, name: string): Promise<number>;
  sbTokenTouch(k1: string, k2: string, name: string, at: string): Promise<number>;
}

export const TOKEN_SCRIPTS: ScriptDef<keyof TokenScripts>[] = [
  /** KEYS: tokens, by-hash, version; ARGV: name, hash, record json. */
  ['sbTokenCreate', 3, ['token-create.lua']],
  /** KEYS: tokens, by-hash, used, version; ARGV: name. */
  ['sbTokenRevoke', 4, ['token-revoke.lua']],
  /** KEYS: tokens, used; ARGV: name, at. Monotonic: canonical ISO text compares as time. */
  ['sbTokenTouch', 2, ['token-touch.lua']],
];

type Client = Redis & TokenScripts;

interface TokenJson {
  name: string;
  hash: string;
  roles: string[];
  createdAt: string;
  expiresAt: string | null;
  /** Absent in records written before tokens could be bound to a profile. */
  profile?: string | null;
}

export class RedisTokens implements TokenStore {
  private readonly k: { all: string; byHash: string; used: string; version: string };

  constructor(
    private readonly r: Client,
    P: string,
    private readonly io: Io,
  ) {
    this.k = {
      all: `${P}tokens`,
      byHash: `${P}tokens:by-hash`,
      used: `${P}tokens:used`,
      version: `${P}tokens:version`,
    };
  }

  private record(json: string, used: string | null | undefined): TokenRecord {
    const t = JSON.parse(json) as TokenJson;
    return { ...t, lastUsedAt: used ?? null, profile: t.profile ?? null };
  }

  async version(): Promise<string> {
    return (await this.io(() => this.r.get(this.k.version))) ?? '0';
  }

  async create(token: NewToken): Promise<TokenRecord> {
    const { name, hash, roles, expiresAt, profile } = checkNewToken(token);
    const rec: TokenJson = { name, hash, roles, createdAt: new Date().toISOString(), expiresAt, profile };
    const json = JSON.stringify(rec);
    const res = await this.io(() => this.r.sbTokenCreate(this.k.all, this.k.byHash, this.k.version, name, hash, json));
    if (res === 'name')
      throw new SwitchboardError(
        'CONFLICT',
        `Token '${name}' already exists; revoke it first with: switchboard token revoke ${name}`,
      );
    if (res === 'hash')
      throw new SwitchboardError(
        'CONFLICT',
        'Another token already has this hash; generate a new token instead of reusing one.',
      );
    return { ...rec, lastUsedAt: null, profile };
  }

  async list(): Promise<TokenRecord[]> {
    const [all, used] = await this.io(() => Promise.all([this.r.hgetall(this.k.all), this.r.hgetall(this.k.used)]));
    return Object.keys(all)
      .sort()
      .map((name) => this.record(all[name], used[name]));
  }

  async get(name: string): Promise<TokenRecord | undefined> {
    checkTokenName(name);
    const [json, used] = await this.io(() =>
      Promise.all([this.r.hget(this.k.all, name), this.r.hget(this.k.used, name)]),
    );
    return json ? this.record(json, used) : undefined;
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    checkHash(hash);
    const name = await this.io(() => this.r.hget(this.k.byHash, hash));
    return name ? this.get(name) : undefined;
  }

  async revoke(name: string): Promise<boolean> {
    checkTokenName(name);
    return (
      (await this.io(() => this.r.sbTokenRevoke(this.k.all, this.k.byHash, this.k.used, this.k.version, name))) === 1
    );
  }

  async touch(name: string, atIso: string): Promise<void> {
    checkTokenName(name);
    const at = checkIso(atIso, 'atIso');
    await this.io(() => this.r.sbTokenTouch(this.k.all, this.k.used, name, at));
  }

  async count(): Promise<number> {
    return this.io(() => this.r.hlen(this.k.all));
  }
}
