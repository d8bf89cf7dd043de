// The per-principal connections of per-user OAuth servers: a caller other than the local person gets a connection
// with their own login, made on first use, so each connection sends only its own principal's token
// (docs/decisions.md, "Upstream OAuth"). The server's primary connection (the local or shared login) stays the
// manager's; this pool holds the others, and the logins (sealed with the key kept outside the store) of both.
import type { Principal } from '../../core/context.ts';
import type { Catalog } from '../../mcp-client/catalog.ts';
import { UpstreamConnection } from '../../mcp-client/connection.ts';
import { LOCAL_LOGIN, loginKey, migrateLoginKeys } from '../../mcp-client/oauth/login-keys.ts';
import { loadSealingKey, type SealingKey } from '../../mcp-client/oauth/sealed.ts';
import { OAuthSession } from '../../mcp-client/oauth/session.ts';
import type { ResolvedServer } from '../../mcp-client/server-spec.ts';
import type { SourceContext } from '../index.ts';

export class OAuthPool {
  /** By server, then login key. */
  private readonly pools = new Map<string, Map<string, UpstreamConnection>>();
  private sealingKey?: SealingKey;
  /** Logins stored under old keys re-keyed (once, before any login is read). */
  private migrated?: Promise<void>;

  constructor(
    private readonly ctx: SourceContext,
    /** A pooled connection listed what its server offers (the manager decides whether to show it). */
    private readonly listed: (primary: UpstreamConnection, catalog: Catalog) => void,
  ) {}

  /** The login of `server` for `key`, sealed with the key kept outside the store (read once, on first need). */
  session(server: ResolvedServer, key: string): OAuthSession {
    this.sealingKey ??= loadSealingKey(this.ctx.env);
    this.migrated ??= this.migrateKeys(this.sealingKey as SealingKey);
    return new OAuthSession({
      server,
      key,
      store: this.ctx.services.store.oauthLogins,
      sealingKey: this.sealingKey as SealingKey,
      mode: { kind: 'hub' },
      ready: this.migrated,
    });
  }

  /** Re-key logins stored under a token's bare name (login-keys.ts), saying what moved and what could not. */
  private async migrateKeys(sealingKey: SealingKey): Promise<void> {
    const log = this.ctx.services.logger;
    try {
      const { moved, superseded, kept } = await migrateLoginKeys(this.ctx.services.store.oauthLogins, () => sealingKey);
      if (moved.length || superseded.length)
        log.info({ moved, superseded }, 'OAuth logins of tokens re-keyed to token:<name>');
      for (const k of kept)
        log.warn(`OAuth login ${k} was left under its old key, which no caller uses any more; log in again for it.`);
    } catch (err) {
      log.warn(`OAuth logins stored under old keys could not be re-keyed now: ${(err as Error).message}`);
    }
  }

  /**
   * The connection a caller's request goes through: a per-user OAuth server's caller other than the local person
   * gets a connection with their own login (made on first use); everyone else shares the server's connection.
   */
  connectionFor(primary: UpstreamConnection, principal: Principal | undefined): UpstreamConnection {
    const oauth = primary.server.oauth;
    if (!oauth || oauth.shared || !principal) return primary;
    const key = loginKey(principal, false);
    if (key === LOCAL_LOGIN) return primary;
    let pool = this.pools.get(primary.name);
    if (!pool) {
      pool = new Map();
      this.pools.set(primary.name, pool);
    }
    let conn = pool.get(key);
    if (!conn) {
      conn = new UpstreamConnection(
        primary.server,
        this.ctx.services.logger,
        {
          catalog: (c) => {
            if (c.catalog) this.listed(primary, c.catalog);
          },
          status: () => {},
        },
        this.session(primary.server, key),
      );
      pool.set(key, conn);
      conn.start();
    }
    return conn;
  }

  /** After `mcp login` in this process: connect the login's connection now instead of at its next poll. */
  relogin(primary: UpstreamConnection, key: string): void {
    const conn = primary.oauth?.key === key ? primary : this.pools.get(primary.name)?.get(key);
    conn?.relogin();
  }

  /** Stop a server's pooled connections (the server was removed or changed). */
  stop(name: string): Promise<void>[] {
    const pool = this.pools.get(name);
    this.pools.delete(name);
    return [...(pool?.values() ?? [])].map((c) => c.stop());
  }

  stopAll(): Promise<void>[] {
    return [...this.pools.keys()].flatMap((name) => this.stop(name));
  }
}
