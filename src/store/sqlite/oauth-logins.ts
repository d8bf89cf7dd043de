// OAuth logins to upstream servers in the SQLite store: one row per server × principal, credentials sealed.
import type { NewOAuthLogin, OAuthLogin, OAuthLoginStore } from '../contract.ts';
import { checkLoginKey, checkNewOAuthLogin } from '../records/oauth-logins.ts';
import type { Db, Statement } from './connection.ts';

interface LoginRow {
  server: string;
  principal: string;
  sealed: string;
  state: OAuthLogin['state'];
  reason: string | null;
  scope: string | null;
  required_scope: string | null;
  expires_at: string | null;
  updated_at: string;
}

function toLogin(row: LoginRow): OAuthLogin {
  return {
    server: row.server,
    principal: row.principal,
    sealed: row.sealed,
    state: row.state,
    reason: row.reason,
    scope: row.scope,
    requiredScope: row.required_scope,
    expiresAt: row.expires_at,
    updatedAt: row.updated_at,
  };
}

export class SqliteOAuthLogins implements OAuthLoginStore {
  private readonly one: Statement;
  private readonly upsert: Statement;
  private readonly removeOne: Statement;
  private readonly removeServer: Statement;
  private readonly all: Statement;
  private readonly ofServer: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.one = db.prepare('SELECT * FROM oauth_logins WHERE server = ? AND principal = ?');
    this.upsert = db.prepare(
      `INSERT INTO oauth_logins (server, principal, sealed, state, reason, scope, required_scope, expires_at, updated_at)
       VALUES (@server, @principal, @sealed, @state, @reason, @scope, @required_scope, @expires_at, @updated_at)
       ON CONFLICT (server, principal) DO UPDATE SET sealed = excluded.sealed, state = excluded.state,
         reason = excluded.reason, scope = excluded.scope, required_scope = excluded.required_scope,
         expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
    );
    this.removeOne = db.prepare('DELETE FROM oauth_logins WHERE server = ? AND principal = ?');
    this.removeServer = db.prepare('DELETE FROM oauth_logins WHERE server = ?');
    this.all = db.prepare('SELECT * FROM oauth_logins ORDER BY server, principal');
    this.ofServer = db.prepare('SELECT * FROM oauth_logins WHERE server = ? ORDER BY principal');
  }

  async get(server: string, principal: string): Promise<OAuthLogin | undefined> {
    this.live();
    checkLoginKey(server, principal);
    const row = this.one.get(server, principal) as LoginRow | undefined;
    return row && toLogin(row);
  }

  async put(login: NewOAuthLogin): Promise<OAuthLogin> {
    this.live();
    const l = checkNewOAuthLogin(login);
    const row: LoginRow = {
      server: l.server,
      principal: l.principal,
      sealed: l.sealed,
      state: l.state,
      reason: l.reason,
      scope: l.scope,
      required_scope: l.requiredScope,
      expires_at: l.expiresAt,
      updated_at: new Date().toISOString(),
    };
    this.upsert.run(row);
    return toLogin(row);
  }

  async delete(server: string, principal?: string): Promise<number> {
    this.live();
    checkLoginKey(server, principal);
    return (principal === undefined ? this.removeServer.run(server) : this.removeOne.run(server, principal)).changes;
  }

  async list(server?: string): Promise<OAuthLogin[]> {
    this.live();
    if (server !== undefined) checkLoginKey(server);
    const rows = (server === undefined ? this.all.all() : this.ofServer.all(server)) as LoginRow[];
    return rows.map(toLogin);
  }
}
