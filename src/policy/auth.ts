// HTTP authentication: `Authorization: Bearer <token>` checked against the hashed tokens in the store, or, when
// `[auth.oauth]` is set and the bearer is a JWT, as an OAuth access token (oauth.ts). Required as soon as one token
// exists, when OAuth is configured, and always off loopback; otherwise callers on loopback are anonymous.
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.ts';
import type { Principal } from '../core/context.ts';
import type { ErrorInfo } from '../core/errors.ts';
import type { Store, TokenRecord } from '../store/contract.ts';
import { looksLikeJwt, type OAuthResource } from './oauth.ts';
import { type Exposure, makePrincipal } from './principal.ts';
import { isUnavailable } from './shared-policy.ts';
import { isExpired, verifyInSet } from './tokens.ts';

export type AuthResult =
  /**
   * `profile`: the profile the token is bound to (`token create --profile`), applied by the route; `token`: the
   * Switchboard token that authenticated, by its hash, so what it opened can end when it goes ({@link HttpAuth.watch}).
   */
  | { ok: true; principal: Principal; profile?: string; token?: string }
  | { ok: false; status: 401 | 403 | 503; message: string; challenge?: string };

const REALM = 'Bearer realm="switchboard"';
/** How often the token set is checked for changes: a revoked token stops working within this many ms. */
const VERSION_CHECK_MS = 100;

/** What a stream opened with a token is told as it ends, once the token is revoked or has expired. */
export const TOKEN_GONE: ErrorInfo = {
  code: 'UNAUTHORIZED',
  message: 'The token that opened this stream was revoked or has expired; open it again with a valid token.',
};

export class HttpAuth {
  /** The token set by hash, reloaded whenever the store's token version changes (a revocation shows at once). */
  private byHash = new Map<string, TokenRecord>();
  private loadedVersion: string | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  /** Tokens already verified against the current set, by the text presented (skips hashing on every request). */
  private readonly presented = new Map<string, TokenRecord>();
  private readonly principals = new Map<string, Principal>();
  private principalsFor: Config | undefined;
  /** The principal of each token record, so a request skips building the identity key (records are replaced on reload). */
  private byRecord = new WeakMap<TokenRecord, Principal>();
  private readonly touched = new Map<string, number>();
  /** `[auth.oauth]`: set once the server knows its own URL (the resource identifier), right after it binds. */
  oauth: OAuthResource | undefined;
  /** Streams open with a token, each ended once its token is no longer accepted (see {@link watch}). */
  private readonly watched = new Set<{ token: string; end: () => void }>();
  private watchTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly config: () => Config,
    private readonly serveExposure: Exposure | undefined,
    /** Bound to a non-loopback address: tokens are always required. */
    private readonly exposed: boolean,
  ) {}

  /**
   * Reload the token set when it may have changed: tokens are created and revoked by another process (the CLI).
   * While the store is unavailable (Redis away) the set loaded last stays in force: nobody can create or revoke a
   * token in a store that does not answer, and `system.health` must still be able to say the store is degraded.
   * Before a first load there is nothing to keep, so the request fails UNAVAILABLE.
   */
  private async refresh(now: number): Promise<void> {
    this.checkedAt = now;
    try {
      const version = await this.store.tokens.version();
      if (version === this.loadedVersion) return;
      this.byHash = new Map((await this.store.tokens.list()).map((t) => [t.hash, t]));
      this.presented.clear();
      this.loadedVersion = version;
    } catch (err) {
      if (this.loadedVersion === undefined || !isUnavailable(err)) throw err;
    }
  }

  /** The token set as of at most VERSION_CHECK_MS ago. */
  private async refreshIfDue(): Promise<void> {
    // Asking the store costs a round trip per request; once per VERSION_CHECK_MS keeps revocation prompt. Checked
    // here, so most requests do not wait for a promise at all.
    const now = performance.now();
    if (now - this.checkedAt >= VERSION_CHECK_MS || this.loadedVersion === undefined) await this.refresh(now);
  }

  /** Whether the token with this hash is in the set now and not expired. */
  private holds(token: string): boolean {
    const record = this.byHash.get(token);
    return record !== undefined && !isExpired(record);
  }

  /**
   * Whether the Switchboard token with this hash (`AuthResult.token`) is still accepted: not revoked, not expired.
   * A dashboard ticket asks when it is redeemed, so one issued before a revocation opens nothing.
   */
  async accepts(token: string): Promise<boolean> {
    try {
      await this.refreshIfDue();
    } catch {
      return false;
    }
    return this.holds(token);
  }

  /**
   * Call `end` once the token with this hash is revoked (by this process, the CLI or another instance) or expires:
   * a stream it opened must not outlive it. The token set is checked every VERSION_CHECK_MS while any stream is
   * watched; while the store does not answer, the set loaded last stands, as for requests. Returns the stop function.
   */
  watch(token: string, end: () => void): () => void {
    const watcher = { token, end };
    this.watched.add(watcher);
    if (!this.watchTimer) {
      let checking = false;
      this.watchTimer = setInterval(() => {
        if (checking) return;
        checking = true;
        void this.endRevoked().finally(() => {
          checking = false;
        });
      }, VERSION_CHECK_MS);
      this.watchTimer.unref();
    }
    return () => {
      this.watched.delete(watcher);
      if (this.watched.size === 0 && this.watchTimer) {
        clearInterval(this.watchTimer);
        this.watchTimer = undefined;
      }
    };
  }

  private async endRevoked(): Promise<void> {
    try {
      await this.refreshIfDue();
    } catch {
      return;
    }
    for (const watcher of this.watched)
      if (!this.holds(watcher.token)) {
        this.watched.delete(watcher);
        watcher.end();
      }
  }

  /** Who sent `req`; `mcp` says the request is for `/mcp`, whose challenges point to the MCP endpoint's metadata. */
  async authenticate(req: IncomingMessage, mcp = false): Promise<AuthResult> {
    const header = req.headers.authorization;
    await this.refreshIfDue();
    const oauth = this.oauth;
    const required = this.exposed || this.byHash.size > 0 || oauth !== undefined;
    const challenge = (refusal?: { error?: string; message?: string; scope?: string }) =>
      oauth ? oauth.challenge(mcp, refusal) : refusal?.error ? `${REALM}, error="${refusal.error}"` : REALM;
    if (!header) {
      if (!required)
        return {
          ok: true,
          principal: this.principal({ id: 'anonymous', roles: ['*'], kind: 'anonymous' }),
        };
      return {
        ok: false,
        status: 401,
        message: oauth
          ? `Authentication required: send Authorization: Bearer <token>, an access token from ${oauth.settings.issuer} (discovery starts at ${oauth.metadataUrl(mcp)}) or a Switchboard token.`
          : 'Authentication required: send Authorization: Bearer <token> (create one with: switchboard token create NAME --roles agent).',
        challenge: challenge(),
      };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m)
      return {
        ok: false,
        status: 401,
        message: 'Malformed Authorization header: expected "Bearer <token>".',
        challenge: challenge({ error: 'invalid_request' }),
      };
    if (oauth && looksLikeJwt(m[1])) return this.oauthPrincipal(oauth, m[1], challenge);
    let record = this.presented.get(m[1]);
    if (record && isExpired(record)) record = undefined;
    if (!record) {
      record = verifyInSet(this.byHash, m[1]);
      if (record && this.presented.size < 10_000) this.presented.set(m[1], record);
    }
    if (!record)
      return {
        ok: false,
        status: 401,
        message: 'Invalid, revoked or expired token.',
        challenge: challenge({ error: 'invalid_token' }),
      };
    this.touch(record);
    let principal = this.byRecord.get(record);
    if (!principal || this.principalsFor !== this.config()) {
      principal = this.principal({ id: record.name, roles: record.roles, kind: 'token' });
      this.byRecord.set(record, principal);
    }
    return record.profile
      ? { ok: true, principal, profile: record.profile, token: record.hash }
      : { ok: true, principal, token: record.hash };
  }

  /** An OAuth access token's principal (`oauth:<sub>`), or its refusal with the challenge that explains it. */
  private async oauthPrincipal(
    oauth: OAuthResource,
    token: string,
    challenge: (refusal: { error?: string; message?: string; scope?: string }) => string,
  ): Promise<AuthResult> {
    const checked = await oauth.check(token);
    if (checked.ok)
      return {
        ok: true,
        principal: this.principal({ id: `oauth:${checked.subject}`, roles: checked.roles, kind: 'oauth' }),
      };
    // An outage of the issuer's keys is no fault of the token: no challenge, so clients do not discard it.
    if (checked.status === 503) return { ok: false, status: 503, message: checked.message };
    return { ok: false, status: checked.status, message: checked.message, challenge: challenge(checked) };
  }

  /**
   * The principal for an identity, built once per identity and configuration: its exposure filter depends on
   * `[expose]` and the token's own settings, which change only with the configuration (or the token set).
   */
  private principal(who: { id: string; roles: string[]; kind: 'token' | 'oauth' | 'anonymous' }): Principal {
    const config = this.config();
    if (config !== this.principalsFor) {
      this.principals.clear();
      this.byRecord = new WeakMap();
      this.principalsFor = config;
    }
    const key = `${who.kind}\0${who.id}\0${who.roles.join(',')}`;
    let p = this.principals.get(key);
    if (!p) {
      p = makePrincipal(config, this.serveExposure, who);
      if (this.principals.size < 10_000) this.principals.set(key, p);
    }
    return p;
  }

  /** Record use at most once a minute per token: a write per call would cost more than it tells. */
  private touch(record: TokenRecord): void {
    const now = Date.now();
    if (now - (this.touched.get(record.name) ?? 0) < 60_000) return;
    this.touched.set(record.name, now);
    this.store.tokens.touch(record.name, new Date(now).toISOString()).catch(() => {});
  }
}

/** Whether a principal holds one of `roles` (`*` holds all). */
export function hasRole(principal: Principal, roles: readonly string[]): boolean {
  return principal.roles.includes('*') || roles.some((r) => principal.roles.includes(r));
}
