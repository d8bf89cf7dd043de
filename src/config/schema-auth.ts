// The `[auth.oauth]` part of the configuration schema (src/config/schema.ts composes it): Switchboard as an OAuth
// resource server, and the rule every URL naming an authorization server or a public address follows.
import { z } from 'zod';

/** Whether a URL's hostname is this machine: `localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(hostname);
}

/** Whether a URL may name an authorization server or a public address: https, or http on a loopback host (tests, local IdPs). */
export function secureOrLoopback(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHostname(u.hostname));
  } catch {
    return false;
  }
}

export const secureUrl = (example: string) =>
  z.string().refine(secureOrLoopback, `expected an https:// URL (http:// only on a loopback host), e.g. ${example}`);

/** `[auth.oauth]`: Switchboard as an OAuth 2.1 resource server accepting JWT access tokens from one issuer. */
export const OAuthResourceSchema = z
  .object({
    /** The authorization server, exactly as its tokens' `iss` claim says it. */
    issuer: secureUrl('https://login.example.com/realms/team'),
    /** The `aud` tokens must carry and the resource identifier Switchboard publishes; unset: `[server] public_url`, else the bound URL. */
    audience: z.string().min(1).optional(),
    /** Where the issuer's signing keys are; unset: `jwks_uri` from the issuer's RFC 8414 or OpenID metadata. */
    jwks_uri: secureUrl('https://login.example.com/realms/team/protocol/openid-connect/certs').optional(),
    /** Scopes published in the protected resource metadata; unset: the scopes `roles` maps. */
    scopes_supported: z.array(z.string().min(1)).optional(),
    /** Scope → Switchboard roles. A token's roles are the union over its scopes (and groups). */
    roles: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
    /** The claim holding the caller's groups (`groups`, `roles`, …), for `group_roles`. */
    groups_claim: z.string().min(1).optional(),
    /** Group (a value of `groups_claim`) → Switchboard roles. */
    group_roles: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
    /** Seconds of clock difference tolerated when checking `exp` and `nbf`. */
    clock_tolerance_s: z.number().int().min(0).max(600).default(30),
    /** A token signed by a key not in the cached key set refetches the set at most this often (ms). */
    jwks_cooldown_ms: z.number().int().min(0).max(3_600_000).default(30_000),
    /** The dashboard's client id at the issuer (a public client, redirect URI `<public_url>/ui/`); unset: no OAuth sign-in on /ui. */
    dashboard_client_id: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (Object.keys(o.group_roles).length > 0 && !o.groups_claim)
      ctx.addIssue({
        code: 'custom',
        path: ['group_roles'],
        message:
          'group_roles needs groups_claim: name the token claim that lists the groups, e.g. groups_claim = "groups"',
      });
    if (Object.keys(o.roles).length === 0 && Object.keys(o.group_roles).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['roles'],
        message:
          'maps no scope to a role, so every OAuth caller would be refused; add e.g. [auth.oauth.roles] "switchboard:agent" = ["agent"]',
      });
  });
