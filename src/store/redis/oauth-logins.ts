// OAuth logins on Redis: one hash (`oauth:logins`), field `server<NUL>principal`, value the record as JSON with its
// credentials sealed. Single-key writes, so no scripts.
import type { Redis } from 'ioredis';
import type { NewOAuthLogin, OAuthLogin, OAuthLoginStore } from '../contract.ts';
import { checkLoginKey, checkNewOAuthLogin } from '../records/oauth-logins.ts';
import type { Io } from './scripts.ts';

const SEP = '\u0000';

export class RedisOAuthLogins implements OAuthLoginStore {
  private readonly key: string;

  constructor(
    private readonly r: Redis,
    P: string,
    private readonly io: Io,
  ) {
    this.key = `${P}oauth:logins`;
  }

  async get(server: string, principal: string): Promise<OAuthLogin | undefined> {
    checkLoginKey(server, principal);
    const json = await this.io(() => this.r.hget(this.key, `${server}${SEP}${principal}`));
    return json ? (JSON.parse(json) as OAuthLogin) : undefined;
  }

  async put(login: NewOAuthLogin): Promise<OAuthLogin> {
    const record: OAuthLogin = { ...checkNewOAuthLogin(login), updatedAt: new Date().toISOString() };
    await this.io(() => this.r.hset(this.key, `${record.server}${SEP}${record.principal}`, JSON.stringify(record)));
    return record;
  }

  async delete(server: string, principal?: string): Promise<number> {
    checkLoginKey(server, principal);
    const fields =
      principal === undefined
        ? (await this.list(server)).map((l) => `${l.server}${SEP}${l.principal}`)
        : [`${server}${SEP}${principal}`];
    if (fields.length === 0) return 0;
    return this.io(() => this.r.hdel(this.key, ...fields));
  }

  async list(server?: string): Promise<OAuthLogin[]> {
    if (server !== undefined) checkLoginKey(server);
    const all = await this.io(() => this.r.hvals(this.key));
    return all
      .map((json) => JSON.parse(json) as OAuthLogin)
      .filter((l) => server === undefined || l.server === server)
      .sort((a, b) => a.server.localeCompare(b.server) || a.principal.localeCompare(b.principal));
  }
}
