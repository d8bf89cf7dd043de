// The OAuth resource server's parts in process: telling JWTs from Switchboard tokens, roles from the claims IdPs
// use (`scope`, `scp` as string or array, groups), the issuer metadata lookup and its errors, the configuration's
// errors, and what a caller gets while the issuer cannot be reached.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, validateHeaderValue } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigSchema } from '../../src/config/schema.ts';
import { HttpAuth } from '../../src/policy/auth.ts';
import {
  looksLikeJwt,
  MCP_METADATA_PATH,
  METADATA_PATH,
  OAuthResource,
  type OAuthSettings,
} from '../../src/policy/oauth.ts';
import { discoverJwksUri, metadataUrls } from '../../src/policy/oauth-discovery.ts';
import { generateToken } from '../../src/policy/tokens.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { newSigningKey, signToken, startIssuer } from '../helpers/oidc-issuer.ts';

const settings = (extra: Partial<OAuthSettings> = {}): OAuthSettings =>
  ConfigSchema.parse({
    auth: { oauth: { issuer: 'https://login.example.com', roles: { 'sb:agent': ['agent'] }, ...extra } },
  }).auth?.oauth as OAuthSettings;

it('tells a JWT from a Switchboard token by its shape', () => {
  expect(looksLikeJwt(generateToken())).toBe(false);
  expect(looksLikeJwt('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln')).toBe(true);
  expect(looksLikeJwt('a.b')).toBe(false);
  expect(looksLikeJwt('a..c')).toBe(false);
});

it('maps scopes from scope or scp (string or array) and groups from the configured claim', () => {
  const oauth = new OAuthResource(
    settings({
      roles: { 'sb:agent': ['agent'], 'sb:admin': ['admin', 'agent'] },
      groups_claim: 'roles',
      group_roles: { Ops: ['ops'] },
    }),
    'https://sb.example.com',
  );
  expect(oauth.rolesFor({ scope: 'openid sb:agent' })).toEqual(['agent']);
  expect(oauth.rolesFor({ scp: 'sb:admin' })).toEqual(['admin', 'agent']); // Microsoft Entra
  expect(oauth.rolesFor({ scp: ['sb:agent', 'x'] })).toEqual(['agent']); // Okta
  expect(oauth.rolesFor({ scope: 'x', roles: ['Ops'] })).toEqual(['ops']);
  expect(oauth.rolesFor({ scope: 'x', roles: 'Ops' })).toEqual(['ops']);
  expect(oauth.rolesFor({ scope: 'SB:AGENT' })).toEqual([]); // scopes are case-sensitive
  expect(oauth.scopesGranting(['admin'])).toEqual(['sb:admin']);
});

it("points 401s at the metadata URLs the SDK builds (RFC 9728 §3.1), on the routes' paths", () => {
  const oauth = new OAuthResource(settings(), 'https://sb.example.com');
  expect(oauth.metadataUrl(false)).toBe(`https://sb.example.com${METADATA_PATH}`);
  expect(oauth.metadataUrl(true)).toBe(`https://sb.example.com${MCP_METADATA_PATH}`);
  expect(new OAuthResource(settings(), 'http://[::1]:7777').metadataUrl(true)).toBe(
    'http://[::1]:7777/.well-known/oauth-protected-resource/mcp',
  );
  // As a URL: the host in lower case and a default port left out; the published resource stays as configured.
  const spelled = new OAuthResource(settings(), 'https://SB.example.com:443');
  expect(spelled.metadataUrl(true)).toBe('https://sb.example.com/.well-known/oauth-protected-resource/mcp');
  expect(spelled.metadata().resource).toBe('https://SB.example.com:443');
});

it('writes a challenge Node can send whatever the refusal quotes (RFC 6750 §3: printable ASCII, no " or \\)', () => {
  const oauth = new OAuthResource(settings(), 'https://sb.example.com');
  const challenge = oauth.challenge(true, {
    error: 'invalid_token',
    message: 'unexpected "iss" claim value: https://登录.example.com\\x',
  });
  expect(challenge).toContain(`error_description="unexpected 'iss' claim value: https://??.example.com'x"`);
  // Node refuses a header value with a character above U+00FF (http.ts would answer 500 instead of 401).
  expect(() => validateHeaderValue('www-authenticate', challenge)).not.toThrow();
});

describe('issuer metadata', () => {
  let server: Server;
  let base: string;
  /** Answers per path, set by each test. */
  let routes: Record<string, unknown> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      const body = routes[req.url ?? ''];
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('tries RFC 8414 (inserted before the path), then OpenID Connect discovery (appended)', async () => {
    expect(metadataUrls('https://idp.example.com/realms/team')).toEqual([
      'https://idp.example.com/.well-known/oauth-authorization-server/realms/team',
      'https://idp.example.com/realms/team/.well-known/openid-configuration',
    ]);
    const issuer = `${base}/realms/team`;
    routes = { '/realms/team/.well-known/openid-configuration': { issuer, jwks_uri: `${issuer}/certs` } };
    expect(await discoverJwksUri(issuer)).toBe(`${issuer}/certs`);
    routes = { '/.well-known/oauth-authorization-server/realms/team': { issuer, jwks_uri: `${issuer}/keys` } };
    expect(await discoverJwksUri(issuer)).toBe(`${issuer}/keys`);
  });

  it('refuses metadata naming another issuer, or none with jwks_uri, and names every URL it tried', async () => {
    routes = { '/.well-known/oauth-authorization-server': { issuer: `${base}/`, jwks_uri: `${base}/k` } };
    await expect(discoverJwksUri(base)).rejects.toThrow(
      `names issuer "${base}/", not "${base}"; set [auth.oauth] issuer to exactly the value your provider puts in its tokens' iss claim.`,
    );
    routes = { '/.well-known/openid-configuration': { issuer: base, jwks_uri: 'http://keys.example.com/jwks' } };
    await expect(discoverJwksUri(base)).rejects.toThrow(
      /gives jwks_uri http:\/\/keys.example.com\/jwks, which is not https:\/\//,
    );
    routes = { '/.well-known/openid-configuration': { issuer: base } };
    await expect(discoverJwksUri(base)).rejects.toThrow(/has no jwks_uri; set \[auth.oauth\] jwks_uri/);
    routes = {};
    await expect(discoverJwksUri(base)).rejects.toThrow(
      `Cannot read the metadata of issuer ${base} (${base}/.well-known/oauth-authorization-server: HTTP 404; ${base}/.well-known/openid-configuration: HTTP 404); check [auth.oauth] issuer, or set jwks_uri.`,
    );
  });

  it('answers 503 (no challenge) while the issuer cannot be reached, and 401 for a malformed JWT', async () => {
    routes = {};
    const store = SqliteStore.open(':memory:');
    const config = ConfigSchema.parse({});
    const auth = new HttpAuth(store, () => config, undefined, false);
    auth.oauth = new OAuthResource(settings({ issuer: base }), 'http://127.0.0.1:7777');
    const key = await newSigningKey('k');
    const jwt = await signToken(key, { iss: base, aud: 'http://127.0.0.1:7777', sub: 'a', exp: 2e9 });
    const req = (bearer?: string) =>
      ({ headers: bearer ? { authorization: `Bearer ${bearer}` } : {} }) as IncomingMessage;
    const down = await auth.authenticate(req(jwt));
    expect(down).toMatchObject({ ok: false, status: 503 });
    expect(!down.ok && down.challenge).toBeUndefined();
    expect(!down.ok && down.message).toMatch(/^Cannot check OAuth tokens now: Cannot read the metadata of issuer/);
    // With OAuth configured, a caller without a token is refused even on loopback with no Switchboard token.
    const none = await auth.authenticate(req());
    expect(none).toMatchObject({ ok: false, status: 401 });
    expect(!none.ok && none.challenge).toContain(
      'resource_metadata="http://127.0.0.1:7777/.well-known/oauth-protected-resource"',
    );
    auth.oauth = new OAuthResource(settings({ issuer: base, jwks_uri: `${base}/keys` }), 'http://127.0.0.1:7777');
    const malformed = await auth.authenticate(req('eyJub3QiOiJqc29uIn0.e30.c2ln'));
    expect(malformed).toMatchObject({ ok: false, status: 401 });
    expect(!malformed.ok && malformed.message).toMatch(/^The access token is not a well-formed signed JWT/);
    await store.close();
  });
});

describe('recovering from an identity provider outage without a restart', () => {
  const RESOURCE = 'http://127.0.0.1:7777';
  const METADATA = '/.well-known/oauth-authorization-server'; // RFC 8414, read first
  const req = (bearer: string) => ({ headers: { authorization: `Bearer ${bearer}` } }) as IncomingMessage;

  /** A resource server on a real issuer whose clock the test moves, and a client-credentials token from it. */
  async function world() {
    const issuer = await startIssuer();
    const clock = { now: Date.now() };
    const store = SqliteStore.open(':memory:');
    const auth = new HttpAuth(store, () => ConfigSchema.parse({}), undefined, false);
    auth.oauth = new OAuthResource(
      settings({ issuer: issuer.issuer, roles: { 'switchboard:agent': ['agent'] } }),
      RESOURCE,
      () => clock.now,
    );
    const token = await issuer.clientToken({ resource: RESOURCE, scope: 'switchboard:agent' });
    const metadataReads = () => issuer.requested.filter((p) => p === METADATA).length;
    const close = async () => {
      await store.close();
      await issuer.stop();
    };
    return { issuer, clock, auth, token, metadataReads, close };
  }

  it('reads the metadata again after it briefly named a refused jwks_uri, once the pause has passed', async () => {
    const w = await world();
    try {
      const real = (await (await fetch(`${w.issuer.issuer}${METADATA}`)).json()) as Record<string, unknown>;
      w.issuer.override = (path) =>
        path === METADATA ? { status: 200, body: { ...real, jwks_uri: 'http://keys.example.com/jwks' } } : undefined;
      const refused = await w.auth.authenticate(req(w.token));
      expect(refused).toMatchObject({ ok: false, status: 503 });
      expect(!refused.ok && refused.message).toContain(
        'gives jwks_uri http://keys.example.com/jwks, which is not https://',
      );
      // The provider is fixed. Within the pause the answer stands and the provider is not asked again.
      w.issuer.override = undefined;
      const reads = w.metadataReads();
      expect(await w.auth.authenticate(req(w.token))).toMatchObject({ ok: false, status: 503 });
      expect(w.metadataReads()).toBe(reads);
      // After it, the metadata is read again and the same token is accepted.
      w.clock.now += 5_001;
      const ok = await w.auth.authenticate(req(w.token));
      expect(ok, JSON.stringify(ok)).toMatchObject({ ok: true, principal: { id: 'oauth:robot', kind: 'oauth' } });
      expect(w.metadataReads()).toBe(reads + 1);
    } finally {
      await w.close();
    }
  });

  it('finds the key set again after the jwks_uri it discovered stopped answering', async () => {
    const w = await world();
    try {
      // The provider briefly publishes its keys somewhere that does not answer.
      const real = (await (await fetch(`${w.issuer.issuer}${METADATA}`)).json()) as Record<string, unknown>;
      w.issuer.override = (path) =>
        path === METADATA
          ? { status: 200, body: { ...real, jwks_uri: `${w.issuer.issuer}/moved-jwks` } }
          : path === '/moved-jwks'
            ? { status: 502 }
            : undefined;
      const down = await w.auth.authenticate(req(w.token));
      expect(down).toMatchObject({ ok: false, status: 503 });
      expect(!down.ok && down.message).toMatch(
        /^Cannot check OAuth tokens now: the issuer's keys could not be fetched/,
      );
      w.issuer.override = undefined;
      w.clock.now += 5_001;
      const ok = await w.auth.authenticate(req(w.token));
      expect(ok, JSON.stringify(ok)).toMatchObject({ ok: true, principal: { id: 'oauth:robot' } });
    } finally {
      await w.close();
    }
  });
});

describe('[auth.oauth] configuration errors', () => {
  const load = (toml: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-oauth-'));
    mkdirSync(join(dir, '.switchboard'));
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(dir, '.switchboard/config.toml'), toml);
    return () => loadConfig(dir, { SWITCHBOARD_HOME: join(dir, 'home') });
  };
  const oauth = '[auth.oauth]\nissuer = "https://login.example.com"\n';

  it('names each mistake and what is expected', () => {
    expect(load(`${oauth}`)).toThrow(/maps no scope to a role, so every OAuth caller would be refused/);
    expect(load(`${oauth}[auth.oauth.group_roles]\nops = ["admin"]\n`)).toThrow(/group_roles needs groups_claim/);
    expect(load('[auth.oauth]\nissuer = "http://login.example.com"\n[auth.oauth.roles]\na = ["b"]\n')).toThrow(
      /expected an https:\/\/ URL \(http:\/\/ only on a loopback host\)/,
    );
    expect(load(`[server]\npublic_url = "https://sb.example.com/mcp"\n`)).toThrow(/expected an origin without a path/);
    expect(load(`${oauth}[auth.oauth.roles]\na = ["b"]\n[auth.oauth.nope]\n`)).toThrow(/nope/);
    expect(load(`${oauth}dashboard_client_id = ""\n[auth.oauth.roles]\na = ["b"]\n`)).toThrow(/dashboard_client_id/);
    const ok = load(`[server]\npublic_url = "https://sb.example.com"\n${oauth}[auth.oauth.roles]\na = ["b"]\n`)();
    expect(ok.config.auth?.oauth).toMatchObject({
      clock_tolerance_s: 30,
      jwks_cooldown_ms: 30000,
      roles: { a: ['b'] },
    });
  });
});
