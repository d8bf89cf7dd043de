// Switchboard as an OAuth 2.1 resource server (`[auth.oauth]`): it publishes its protected resource metadata
// (RFC 9728), checks JWT access tokens from one issuer with `jose` (signature by the issuer's published keys, which
// are fetched, cached and refetched when a token names a key not yet seen; iss, aud, exp, nbf), and maps the token's
// scopes and groups to Switchboard roles.
import {
  getOAuthProtectedResourceMetadataUrl,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import type { z } from 'zod';
import type { OAuthResourceSchema } from '../config/schema.ts';
import { SwitchboardError } from '../core/errors.ts';
import { discoverIssuerMetadata, type IssuerMetadata, jwksUriOf } from './oauth-discovery.ts';

export type OAuthSettings = z.output<typeof OAuthResourceSchema>;

/**
 * The paths of the protected resource metadata: the resource's own, and the MCP endpoint's (MCP authorization spec).
 * The routes serve these; the URLs a 401 names are the SDK's (`getOAuthProtectedResourceMetadataUrl`), which for a
 * resource that is an origin (a `public_url` with a path is refused at load) have exactly these paths.
 */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
export const MCP_METADATA_PATH = `${METADATA_PATH}/mcp`;

/** Signature algorithms accepted: asymmetric only, so a published (public) key can never serve as an HMAC secret. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
/** After a failed discovery, requests wait this long before the metadata is asked for again. */
const DISCOVERY_RETRY_MS = 5_000;
/** Verified tokens remembered by their text (until they expire), so a busy caller is not verified on every request. */
const MAX_REMEMBERED = 10_000;

export type OAuthCheck =
  | { ok: true; subject: string; roles: string[] }
  | {
      ok: false;
      status: 401 | 403 | 503;
      error?: 'invalid_token' | 'insufficient_scope';
      message: string;
      scope?: string;
    };

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export class OAuthResource {
  /** The `aud` a token must carry: `[auth.oauth] audience`, else the resource identifier. */
  readonly audience: string;
  /** What `aud` may say: the audience, and for the default one also its form with a trailing slash (`https://x/`). */
  private readonly audiences: string[];
  /** The metadata URLs a 401 points to (RFC 9728 §3.1, the well-known path inserted before the resource's path). */
  private readonly metadataUrls: { resource: string; mcp: string };
  private keys: KeySet | undefined;
  private issuerMeta: IssuerMetadata | undefined;
  private discovering: Promise<IssuerMetadata> | undefined;
  private discoveryError: { at: number; message: string } | undefined;
  private readonly remembered = new Map<string, { claims: JWTPayload; expiresMs: number }>();

  constructor(
    readonly settings: OAuthSettings,
    /** The resource identifier: this server's public origin (`[server] public_url`, else the bound URL). */
    readonly resource: string,
    /** The clock the pause after a failed discovery is measured on (tests move it instead of waiting). */
    private readonly now: () => number = Date.now,
  ) {
    this.audience = settings.audience ?? resource;
    this.audiences = settings.audience ? [settings.audience] : [resource, `${resource}/`];
    this.metadataUrls = {
      resource: getOAuthProtectedResourceMetadataUrl(new URL(resource)),
      mcp: getOAuthProtectedResourceMetadataUrl(new URL(`${resource}/mcp`)),
    };
  }

  /** The metadata URL a 401 points to: the MCP endpoint's for `/mcp`, the resource's own for everything else. */
  metadataUrl(mcp: boolean): string {
    return mcp ? this.metadataUrls.mcp : this.metadataUrls.resource;
  }

  /** The scopes clients are told to ask for: `scopes_supported`, else the scopes `roles` maps. */
  get scopes(): string[] {
    return this.settings.scopes_supported ?? Object.keys(this.settings.roles);
  }

  /**
   * RFC 9728 protected resource metadata, the same document at both paths: one resource serves /mcp and /v1. Not the
   * SDK's `buildOAuthProtectedResourceMetadata`: it writes `resource` as a URL's href (`https://x/`, a different
   * identifier from the origin clients are told to ask tokens for) and wants the issuer's whole RFC 8414 metadata
   * (docs/decisions.md, "OAuth: the SDK's helpers where they do the same").
   */
  metadata(): OAuthProtectedResourceMetadata {
    return {
      resource: this.resource,
      authorization_servers: [this.settings.issuer],
      scopes_supported: this.scopes,
      bearer_methods_supported: ['header'],
      resource_name: 'Switchboard',
    };
  }

  /**
   * A `WWW-Authenticate` value (RFC 6750 §3, RFC 9728 §5.1) for a refusal on `/mcp` (`mcp`) or elsewhere. Ours, not
   * the SDK's: its formatter is reachable only through `bearerAuthChallengeResponse`, which always sets `error` (RFC
   * 6750 §3.1 wants none when no token was sent), drops the realm and backslash-escapes what §3 forbids in the text.
   */
  challenge(mcp: boolean, refusal?: { error?: string; message?: string; scope?: string }): string {
    const params = [`realm="switchboard"`, `resource_metadata="${this.metadataUrl(mcp)}"`];
    if (refusal?.error) params.push(`error="${refusal.error}"`);
    if (refusal?.message) params.push(`error_description="${describable(refusal.message)}"`);
    if (refusal?.scope) params.push(`scope="${refusal.scope}"`);
    return `Bearer ${params.join(', ')}`;
  }

  /** The scopes whose roles include one of `roles` (`*` included): what a caller refused for want of them should ask for. */
  scopesGranting(roles: readonly string[]): string[] {
    return Object.entries(this.settings.roles)
      .filter(([, granted]) => granted.includes('*') || granted.some((r) => roles.includes(r)))
      .map(([scope]) => scope);
  }

  /** Check a JWT access token: its principal's subject and roles, or the refusal with its status and reason. */
  async check(token: string): Promise<OAuthCheck> {
    let claims = this.recall(token);
    if (!claims) {
      const keys = await this.keySet().catch((err: Error) => err);
      if (keys instanceof Error) return { ok: false, status: 503, message: keys.message };
      try {
        ({ payload: claims } = await jwtVerify(token, keys, {
          issuer: this.settings.issuer,
          audience: this.audiences,
          clockTolerance: this.settings.clock_tolerance_s,
          algorithms: ALGORITHMS,
          requiredClaims: ['iss', 'aud', 'exp', 'sub'],
        }));
      } catch (err) {
        if (!keySetOutage(err)) return this.refusal(err);
        // Not the caller's fault: 503, and no challenge.
        const why = `the issuer's keys could not be fetched (${(err as Error).message})`;
        this.keysFailed(keys, why);
        return { ok: false, status: 503, message: `Cannot check OAuth tokens now: ${why}.` };
      }
      this.remember(token, claims);
    }
    const roles = this.rolesFor(claims);
    if (roles.length === 0) {
      const scopes = Object.keys(this.settings.roles);
      return {
        ok: false,
        status: 403,
        error: 'insufficient_scope',
        scope: scopes.join(' '),
        message: `The access token grants no scope Switchboard maps to a role; ask for one of: ${scopes.join(', ') || '(none: only groups give roles here)'}.`,
      };
    }
    return { ok: true, subject: String(claims.sub), roles };
  }

  /** Roles from the token's scopes (`scope` string, or `scp` string or array) and, when configured, its groups. */
  rolesFor(claims: JWTPayload): string[] {
    const roles = new Set<string>();
    for (const scope of words(claims.scope ?? claims.scp))
      for (const r of this.settings.roles[scope] ?? []) roles.add(r);
    const groupsClaim = this.settings.groups_claim;
    if (groupsClaim)
      for (const group of words(claims[groupsClaim], false))
        for (const r of this.settings.group_roles[group] ?? []) roles.add(r);
    return [...roles].sort();
  }

  /** The key set, found once: from `jwks_uri`, else from the issuer's metadata. */
  private async keySet(): Promise<KeySet> {
    if (this.keys) return this.keys;
    try {
      let uri = this.settings.jwks_uri;
      if (uri === undefined) {
        const meta = await this.issuerMetadata();
        try {
          uri = jwksUriOf(meta);
        } catch (err) {
          // Metadata that names no usable key set is a failed discovery: read again after the pause, not kept.
          this.discoveryFailed((err as Error).message);
          throw err;
        }
      }
      this.keys ??= createRemoteJWKSet(new URL(uri), { cooldownDuration: this.settings.jwks_cooldown_ms });
      return this.keys;
    } catch (err) {
      throw new Error(`Cannot check OAuth tokens now: ${(err as Error).message}`);
    }
  }

  /**
   * The key set at a discovered `jwks_uri` could not be fetched: the issuer may have moved it, so its metadata is
   * read again after the pause (a configured `jwks_uri` is jose's to retry). Only the set that failed is dropped,
   * not one a newer discovery made meanwhile.
   */
  private keysFailed(keys: KeySet, message: string): void {
    if (this.settings.jwks_uri !== undefined || this.keys !== keys) return;
    this.keys = undefined;
    this.discoveryFailed(message);
  }

  private discoveryFailed(message: string): void {
    this.issuerMeta = undefined;
    this.discoveryError = { at: this.now(), message };
  }

  /** The issuer's metadata (keys, endpoints), read once; after a failure it is asked for again only after a pause. */
  issuerMetadata(): Promise<IssuerMetadata> {
    if (this.issuerMeta) return Promise.resolve(this.issuerMeta);
    const failed = this.discoveryError;
    if (failed && this.now() - failed.at < DISCOVERY_RETRY_MS) return Promise.reject(new Error(failed.message));
    this.discovering ??= discoverIssuerMetadata(this.settings.issuer)
      .then((meta) => {
        this.issuerMeta = meta;
        this.discoveryError = undefined;
        return meta;
      })
      .catch((err: Error) => {
        this.discoveryFailed(err.message);
        throw err;
      })
      .finally(() => {
        this.discovering = undefined;
      });
    return this.discovering;
  }

  private recall(token: string): JWTPayload | undefined {
    const hit = this.remembered.get(token);
    if (!hit) return undefined;
    if (hit.expiresMs + this.settings.clock_tolerance_s * 1000 > Date.now()) return hit.claims;
    this.remembered.delete(token);
    return undefined;
  }

  private remember(token: string, claims: JWTPayload): void {
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
    this.remembered.set(token, { claims, expiresMs: Number(claims.exp) * 1000 });
  }

  /** What was wrong with a token, said so its holder can act on it. */
  private refusal(err: unknown): OAuthCheck {
    const invalid = (message: string): OAuthCheck => ({ ok: false, status: 401, error: 'invalid_token', message });
    if (err instanceof errors.JWTExpired) return invalid('The access token has expired; get a new one.');
    if (err instanceof errors.JWTClaimValidationFailed) {
      const claims = err.payload;
      switch (err.claim) {
        case 'nbf':
          return invalid(`The access token is not valid before ${new Date(Number(claims.nbf) * 1000).toISOString()}.`);
        case 'iss':
          return invalid(
            `The access token was issued by ${JSON.stringify(claims.iss)}; this server accepts tokens from ${this.settings.issuer}.`,
          );
        case 'aud':
          return invalid(
            `The access token is for audience ${JSON.stringify(claims.aud)}, not this server (${this.audience}); ask for resource ${this.resource}.`,
          );
        default:
          return invalid(`The access token's ${err.claim} claim is missing or wrong (${err.reason}).`);
      }
    }
    if (err instanceof errors.JWKSNoMatchingKey)
      return invalid('The access token is signed with a key the issuer does not publish.');
    if (err instanceof errors.JWSSignatureVerificationFailed)
      return invalid('The access token signature does not verify.');
    if (err instanceof errors.JOSEAlgNotAllowed)
      return invalid(
        `The access token is signed with an algorithm not accepted here; accepted: ${ALGORITHMS.join(', ')}.`,
      );
    return invalid(`The access token is not a well-formed signed JWT (${(err as Error).message}).`);
  }
}

/** A key set that cannot be fetched or read (timeout, HTTP error: jose's generic error, network): an outage. */
function keySetOutage(err: unknown): boolean {
  return (
    !(err instanceof errors.JOSEError) ||
    err.code === 'ERR_JOSE_GENERIC' ||
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid
  );
}

/** Space-separated words (`scope`) or an array of strings (`scp`, groups); anything else gives none. */
function words(value: unknown, split = true): string[] {
  if (typeof value === 'string') return split ? value.split(' ').filter(Boolean) : [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** Whether a bearer string has the shape of a JWS compact serialization (three base64url parts); Switchboard's own tokens (`sb_…`) never contain a dot. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/**
 * The resource server `serve --http` runs, or undefined without `[auth.oauth]`. Its identifier is `[server]
 * public_url`, else the URL the server is bound to, which off loopback (0.0.0.0, a LAN address) is not what clients
 * use: there `public_url` (or `audience`) must be set.
 */
export function oauthResourceFor(
  config: { server: { public_url?: string }; auth?: { oauth?: OAuthSettings } },
  boundUrl: string,
  exposed: boolean,
): OAuthResource | undefined {
  const settings = config.auth?.oauth;
  if (!settings) return undefined;
  const publicUrl = config.server.public_url?.replace(/\/$/, '');
  if (!publicUrl && exposed)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `[auth.oauth] needs [server] public_url when bound off loopback: set it to the address clients use, e.g. public_url = "https://switchboard.example.com" (it names the OAuth resource; ${boundUrl} is only the bound address).`,
    );
  return new OAuthResource(settings, publicUrl ?? boundUrl);
}

/**
 * `error_description` text as RFC 6750 §3 allows it: printable ASCII without `"` or `\`. Anything else — a token's
 * `iss` or `aud` quoted in the message may hold any character — would make Node refuse the header (a 500, not a 401).
 */
function describable(message: string): string {
  return message.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}
