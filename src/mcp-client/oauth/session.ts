// One OAuth login to one upstream server for one principal key, as the SDK's `OAuthClientProvider`: the SDK does
// discovery, registration, PKCE, code exchange and refresh (`auth()`); this class keeps what it produces — tokens,
// client registration, discovery — sealed in the store, refreshes before expiry, and in the hub (no person at hand)
// turns "the user must authorize again" into a `login required` record and error instead of opening a browser.
import {
  auth,
  computeScopeUnion,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.ts';
import type { OAuthLogin, OAuthLoginStore } from '../../store/contract.ts';
import type { ResolvedServer } from '../server-spec.ts';
import { discoveryFetch } from './discovery-fetch.ts';
import { loginCommand } from './login-keys.ts';
import { loginAad, type SealingKey, seal, unseal } from './sealed.ts';

/** What is sealed in a login record. */
interface Credentials {
  tokens?: StoredOAuthTokens;
  /** When the tokens were saved (ms since the epoch): `expires_in` counts from here. */
  obtainedAt?: number;
  client?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
  /** The redirect URI the client was registered with, so a refresh names the same one. */
  redirectUrl?: string;
}

/** Refresh this long before the access token expires (or at 90 % of a shorter lifetime). */
const REFRESH_MARGIN_MS = 60_000;
/**
 * A connection re-reads its login this often: a new login (`mcp login` in another process, a wider scope) or a
 * refresh another instance made is picked up without a reconnect.
 */
const RELOAD_MS = 5_000;

export type SessionMode =
  | { kind: 'login'; redirectUrl: string; open: (url: URL) => void | Promise<void>; state: string }
  | { kind: 'hub' };

export interface SessionOptions {
  server: ResolvedServer;
  /** Whose login (login-keys.ts). */
  key: string;
  store: OAuthLoginStore;
  sealingKey: SealingKey;
  mode: SessionMode;
  now?: () => number;
  fetchFn?: FetchLike;
  /** Settled before the store is first read: the re-keying of logins stored under old keys (`migrateLoginKeys`). */
  ready?: Promise<unknown>;
}

export class OAuthSession implements OAuthClientProvider {
  private creds: Credentials = {};
  private record?: OAuthLogin;
  private verifier?: string;
  private refreshing?: Promise<void>;
  private loadedAt = Number.NEGATIVE_INFINITY;
  /** Why the tokens were dropped (the authorization server refused them), for the login-required reason. */
  private dropped?: string;
  private readonly now: () => number;

  constructor(private readonly opts: SessionOptions) {
    this.now = opts.now ?? Date.now;
  }

  private get aad(): string {
    return loginAad(this.opts.server.name, this.opts.key);
  }

  get serverName(): string {
    return this.opts.server.name;
  }

  get key(): string {
    return this.opts.key;
  }

  /** The record as last read or written (state, scopes, expiry), undefined before a login. */
  get login(): OAuthLogin | undefined {
    return this.record;
  }

  /** Read the record from the store (another process — `mcp login` — may have replaced it). */
  async load(): Promise<OAuthLogin | undefined> {
    await this.opts.ready;
    const record = await this.opts.store.get(this.opts.server.name, this.opts.key);
    this.loadedAt = this.now();
    this.record = record;
    this.creds = record ? (JSON.parse(unseal(this.opts.sealingKey, record.sealed, this.aad)) as Credentials) : {};
    return record;
  }

  /** Forget the stored client and tokens before a new login (a new loopback port means a new redirect URI). */
  startOver(): void {
    this.creds = {};
  }

  hasTokens(): boolean {
    return this.creds.tokens?.access_token !== undefined;
  }

  private async persist(patch: Partial<Pick<OAuthLogin, 'state' | 'reason' | 'requiredScope'>> = {}): Promise<void> {
    const tokens = this.creds.tokens;
    // A login in progress writes nothing until it has tokens: the login it replaces stays usable until then.
    if (this.opts.mode.kind === 'login' && !tokens) return;
    const expiresAt =
      tokens?.expires_in !== undefined && this.creds.obtainedAt !== undefined
        ? new Date(this.creds.obtainedAt + tokens.expires_in * 1000).toISOString()
        : null;
    this.record = await this.opts.store.put({
      server: this.opts.server.name,
      principal: this.opts.key,
      sealed: seal(this.opts.sealingKey, JSON.stringify(this.creds), this.aad),
      state: patch.state ?? (tokens ? 'active' : 'login_required'),
      reason: patch.reason !== undefined ? patch.reason : tokens ? null : (this.record?.reason ?? 'not logged in'),
      scope: tokens?.scope ?? null,
      requiredScope: patch.requiredScope !== undefined ? patch.requiredScope : (this.record?.requiredScope ?? null),
      expiresAt,
    });
  }

  // --- OAuthClientProvider -------------------------------------------------------------------------------------

  get redirectUrl(): string {
    const mode = this.opts.mode;
    // A refresh from the hub names the URI the client was registered with; nothing is redirected there.
    return mode.kind === 'login' ? mode.redirectUrl : (this.creds.redirectUrl ?? 'http://127.0.0.1/callback');
  }

  get clientMetadataUrl(): string | undefined {
    return this.opts.server.oauth?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const o = this.opts.server.oauth;
    return {
      client_name: o?.clientName ?? 'Switchboard',
      redirect_uris: [this.redirectUrl],
      ...(o?.scopes.length ? { scope: o.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.opts.mode.kind === 'login' ? this.opts.mode.state : '';
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const o = this.opts.server.oauth;
    // A pre-registered client from the config wins; the SDK's issuer stamp on it is kept.
    if (o?.clientId) {
      const stamp = this.creds.client?.client_id === o.clientId ? this.creds.client.issuer : undefined;
      return {
        client_id: o.clientId,
        ...(o.clientSecret ? { client_secret: o.clientSecret } : {}),
        ...(stamp ? { issuer: stamp } : {}),
      };
    }
    return this.creds.client;
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    // The pre-registered secret stays in the config's variable; only the id and the issuer stamp are kept.
    this.creds.client = this.opts.server.oauth?.clientId
      ? { client_id: info.client_id, ...(info.issuer ? { issuer: info.issuer } : {}) }
      : info;
    this.creds.redirectUrl = this.redirectUrl;
    await this.persist();
  }

  /**
   * The tokens. Without `ctx` it is the transport's read before each request: in the hub, a token about to expire is
   * refreshed first (once, however many requests ask at the same moment).
   */
  async tokens(ctx?: unknown): Promise<StoredOAuthTokens | undefined> {
    if (ctx === undefined && this.opts.mode.kind === 'hub') {
      if (this.now() - this.loadedAt >= RELOAD_MS && !this.refreshing) await this.load().catch(() => undefined);
      // Logged out (or never in): nothing is sent, so the hub never registers a client or asks without a token.
      if (!this.creds.tokens) throw this.loginRequired();
      if (this.dueForRefresh()) await this.refresh();
    }
    return this.creds.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    this.creds.tokens = tokens;
    this.creds.obtainedAt = this.now();
    this.creds.redirectUrl ??= this.redirectUrl;
    // A step-up is satisfied once the granted scope covers what the server asked for.
    const wanted = this.record?.requiredScope;
    const covered =
      wanted && tokens.scope ? computeScopeUnion(tokens.scope, wanted) === computeScopeUnion(tokens.scope) : false;
    await this.persist({ state: 'active', reason: null, ...(covered ? { requiredScope: null } : {}) });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const mode = this.opts.mode;
    if (mode.kind === 'login') return mode.open(url);
    // In the hub nobody can authorize: the refresh failed or there was nothing to refresh with.
    const reason = this.creds.tokens?.refresh_token
      ? 'the token could not be refreshed'
      : this.creds.tokens
        ? 'the token expired and the server gave no refresh token'
        : (this.dropped ?? 'not logged in');
    await this.markLoginRequired(reason);
    throw this.loginRequired();
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier: the authorization was not started by this login');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    if ((scope === 'all' || scope === 'tokens') && this.creds.tokens)
      this.dropped = 'the authorization server refused the stored token (the refresh failed)';
    if (scope === 'all') this.creds = {};
    if (scope === 'client') this.creds.client = undefined;
    if (scope === 'tokens') this.creds.tokens = undefined;
    if (scope === 'discovery') this.creds.discovery = undefined;
    await this.persist();
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    this.creds.discovery = state;
    // During a login the record is written with the tokens; in the hub a changed discovery is worth keeping.
    if (this.opts.mode.kind === 'hub' && this.record) await this.persist();
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.creds.discovery;
  }

  // --- refresh and login required ------------------------------------------------------------------------------

  private dueForRefresh(): boolean {
    const t = this.creds.tokens;
    if (!t?.refresh_token || t.expires_in === undefined || this.creds.obtainedAt === undefined) return false;
    const lifetime = t.expires_in * 1000;
    const margin = Math.min(REFRESH_MARGIN_MS, lifetime * 0.1);
    return this.now() >= this.creds.obtainedAt + lifetime - margin;
  }

  /** Refresh with the stored refresh token through the SDK's `auth()`; a failure marks the login required. */
  async refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const url = this.opts.server.url as string;
        const result = await auth(this, {
          serverUrl: url,
          fetchFn: this.opts.fetchFn ?? discoveryFetch(this.opts.server.name, url),
        });
        if (result !== 'AUTHORIZED') throw this.loginRequired();
      } catch (err) {
        if (err instanceof SwitchboardError) throw err;
        await this.markLoginRequired(`the token could not be refreshed: ${(err as Error).message}`);
        throw this.loginRequired();
      }
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  async markLoginRequired(reason: string): Promise<void> {
    await this.persist({ state: 'login_required', reason });
  }

  /** Remember a wider scope a server asked for (403 insufficient_scope), for the next login. */
  async requireScope(scope: string): Promise<string> {
    const wider = computeScopeUnion(this.record?.requiredScope ?? undefined, this.creds.tokens?.scope, scope) ?? scope;
    await this.persist({ requiredScope: wider });
    return wider;
  }

  loginRequired(): SwitchboardError {
    const server = this.opts.server.name;
    const command = loginCommand(server, this.opts.key);
    const why = this.record?.reason ?? 'not logged in';
    return new SwitchboardError('UNAVAILABLE', `Upstream server '${server}' needs a login (${why}). Run: ${command}`, {
      server,
      loginRequired: true,
      command,
      // Refused before anything was sent: breakers do not count it.
      breaker: 'upstream-down',
    });
  }
}
