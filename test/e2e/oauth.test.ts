// Switchboard as an OAuth 2.1 resource server, end to end: a real authorization server (oidc-provider) on 127.0.0.1,
// a real `switchboard serve --http` child process, and the official SDK client doing the whole flow — discovery from
// the 401, dynamic registration, authorization code with PKCE, token, calls — over both HTTP eras and REST. Then each
// way a token can be wrong, with the status and WWW-Authenticate it gets.
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { newSigningKey, signToken, startIssuer, type TestIssuer } from '../helpers/oidc-issuer.ts';
import { until } from '../helpers/until.ts';

/** An MCP client's OAuth state in memory, as a desktop client keeps it; the "browser" is the test. */
class MemoryOAuthClient implements OAuthClientProvider {
  client?: any;
  saved?: any;
  verifier = '';
  discovery?: any;
  authorizationUrl?: URL;
  readonly redirectUrl = 'http://127.0.0.1:1/callback';
  get clientMetadata() {
    return {
      client_name: 'oauth e2e',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation = () => this.client;
  saveClientInformation = (info: unknown) => {
    this.client = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: unknown) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (v: string) => {
    this.verifier = v;
  };
  codeVerifier = () => this.verifier;
  saveDiscoveryState = (state: unknown) => {
    this.discovery = state;
  };
  discoveryState = () => this.discovery;
}

const now = () => Math.floor(Date.now() / 1000);

describe('OAuth: Switchboard as a resource server', () => {
  const dir = tempProject();
  let issuer: TestIssuer;
  let other: TestIssuer;
  let server: HttpServerProcess;
  let sbToken: string;
  const oauth = new MemoryOAuthClient();

  beforeAll(async () => {
    issuer = await startIssuer();
    other = await startIssuer({ keys: issuer.keys }); // same keys, another issuer: only the iss check tells them apart
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(
      join(dir, '.switchboard/config.toml'),
      [
        '[auth.oauth]',
        `issuer = "${issuer.issuer}"`,
        'scopes_supported = ["switchboard:agent"]',
        'groups_claim = "groups"',
        'jwks_cooldown_ms = 0',
        '[auth.oauth.roles]',
        '"switchboard:agent" = ["agent"]',
        '"switchboard:admin" = ["admin", "agent"]',
        '[auth.oauth.group_roles]',
        'ops = ["admin"]',
        '',
      ].join('\n'),
    );
    const created = await runCli(dir, ['token', 'create', 'ci', '--roles', 'agent', '--json']);
    sbToken = JSON.parse(created.stdout).token;
    server = await startHttpServer(dir);
  });
  afterAll(async () => {
    await server?.stop();
    await issuer?.stop();
    await other?.stop();
  });

  const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  const call = (token: string, name = 'fixture__echo') =>
    fetch(`${server.url}/v1/tools/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ text: 'hi' }),
    });
  const mcpList = (token: string) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  const token = (scope: string, client?: 'robot' | 'robot-ops') =>
    issuer.clientToken({ resource: server.url, scope, client });

  it('publishes its protected resource metadata at both well-known paths, without authentication', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: server.url,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['switchboard:agent'],
        bearer_methods_supported: ['header'],
        resource_name: 'Switchboard',
      });
    }
    // The DNS-rebinding guard still applies to them: a foreign browser Origin is refused.
    const foreign = await get('/.well-known/oauth-protected-resource', undefined, {
      origin: 'https://evil.example.com',
    });
    expect(foreign.status).toBe(403);
  });

  it('answers 401 with the metadata URL of the endpoint asked for', async () => {
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(
      `Bearer realm="switchboard", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect((await mcp.json()).error.message).toContain(`an access token from ${issuer.issuer}`);
    const rest = await get('/v1/tools');
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBe(
      `Bearer realm="switchboard", resource_metadata="${server.url}/.well-known/oauth-protected-resource"`,
    );
  });

  it('lets the SDK client do the whole flow: discovery, registration, code with PKCE, token, call (2025 session)', async () => {
    const first = new Client({ name: 'oauth-e2e', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: oauth });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(oauth.client?.client_id).toBeTruthy(); // registered dynamically
    const asked = oauth.authorizationUrl as URL;
    expect(asked.origin).toBe(issuer.issuer);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(server.url);
    // The scopes Switchboard publishes (the SDK adds offline_access for a refresh token).
    expect(asked.searchParams.get('scope')?.split(' ')).toContain('switchboard:agent');
    expect(asked.searchParams.get('scope')).not.toContain('switchboard:admin');

    const callback = await issuer.browse(asked);
    expect(callback.searchParams.get('code')).toBeTruthy();
    await transport.finishAuth(callback.searchParams);
    expect(decodeProtectedHeader(oauth.saved.access_token).typ).toBe('at+jwt');

    const client = new Client({ name: 'oauth-e2e', version: '1' });
    const session = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: oauth });
    await client.connect(session);
    expect(client.getProtocolEra()).not.toBe('modern');
    const echoed = await client.callTool({ name: 'fixture__echo', arguments: { text: 'signed in' } });
    expect(echoed.isError).toBeFalsy();
    expect(JSON.stringify(echoed.content)).toContain('signed in');
    // Roles come from the scopes: switchboard:agent is the agent role, which does not see admin-only tools.
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('fixture__echo');
    expect(names).not.toContain('system__config');
    await session.terminateSession().catch(() => {});
    await client.close();
  });

  it('takes the same access token from a 2026-07-28 (stateless) client and over REST', async () => {
    const client = new Client(
      { name: 'oauth-e2e-2026', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: oauth }));
    expect(client.getProtocolEra()).toBe('modern');
    const echoed = await client.callTool({ name: 'fixture__echo', arguments: { text: 'stateless' } });
    expect(JSON.stringify(echoed.content)).toContain('stateless');
    await client.close();

    const rest = await call(oauth.saved.access_token);
    expect(rest.status).toBe(200);
  });

  it("writes the token's subject as the principal in the audit trail", async () => {
    const rows = await until(
      async () => {
        const out = await runCli(dir, ['audit', '--principal', 'oauth:alice', '--json']);
        const parsed = out.code === 0 ? JSON.parse(out.stdout) : [];
        return parsed.length >= 3 && parsed;
      },
      { what: "alice's calls in the audit trail" },
    );
    expect(rows.map((r: { transport: string }) => r.transport).sort()).toEqual(['http', 'http', 'rest']);
    expect(rows.every((r: { principal: string }) => r.principal === 'oauth:alice')).toBe(true);
  });

  it("keeps Switchboard's own tokens working beside OAuth", async () => {
    expect((await call(sbToken)).status).toBe(200);
    const bad = await get('/v1/tools', 'sb_not-a-real-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  /** The refusal of `token` on REST and on /mcp: both statuses, the REST message and challenge. */
  async function refused(bearer: string) {
    const rest = await get('/v1/tools', bearer);
    const mcp = await mcpList(bearer);
    expect(mcp.status).toBe(rest.status);
    expect(mcp.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp"');
    return {
      status: rest.status,
      message: (await rest.json()).error.message,
      challenge: rest.headers.get('www-authenticate'),
    };
  }

  it('refuses a token for another audience', async () => {
    const bearer = await issuer.clientToken({ resource: 'https://elsewhere.example.com', scope: 'switchboard:agent' });
    const r = await refused(bearer);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('error="invalid_token"');
    expect(r.message).toBe(
      `The access token is for audience "https://elsewhere.example.com", not this server (${server.url}); ask for resource ${server.url}.`,
    );
    // The resource written with a trailing slash (as some providers normalise it) is the same audience.
    const slashed = await signToken(issuer.keys[0], {
      iss: issuer.issuer,
      aud: `${server.url}/`,
      sub: 'alice',
      scope: 'switchboard:agent',
      exp: now() + 600,
    });
    expect((await get('/v1/tools', slashed)).status).toBe(200);
  });

  it('refuses a token from another issuer, even one signed with a key it knows', async () => {
    const bearer = await other.clientToken({ resource: server.url, scope: 'switchboard:agent' });
    const r = await refused(bearer);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('error="invalid_token"');
    expect(r.message).toBe(
      `The access token was issued by "${other.issuer}"; this server accepts tokens from ${issuer.issuer}.`,
    );
  });

  it('refuses an expired token and one not yet valid (beyond the 30 s clock tolerance)', async () => {
    const claims = { iss: issuer.issuer, aud: server.url, sub: 'alice', scope: 'switchboard:agent' };
    const expired = await refused(await signToken(issuer.keys[0], { ...claims, iat: now() - 7200, exp: now() - 60 }));
    expect(expired).toMatchObject({ status: 401, message: 'The access token has expired; get a new one.' });
    expect(expired.challenge).toContain('error="invalid_token"');
    const early = await refused(
      await signToken(issuer.keys[0], { ...claims, iat: now(), nbf: now() + 3600, exp: now() + 7200 }),
    );
    expect(early.status).toBe(401);
    expect(early.message).toMatch(/^The access token is not valid before \d{4}-/);
    // Within the tolerance, a token from a clock a few seconds ahead is accepted.
    const skewed = await signToken(issuer.keys[0], { ...claims, iat: now() + 10, nbf: now() + 10, exp: now() + 600 });
    expect((await get('/v1/tools', skewed)).status).toBe(200);
  });

  it('answers 403 insufficient_scope, naming the scopes that give access, when no scope maps to a role', async () => {
    const r = await refused(await token('switchboard:read'));
    expect(r.status).toBe(403);
    expect(r.challenge).toBe(
      `Bearer realm="switchboard", resource_metadata="${server.url}/.well-known/oauth-protected-resource", error="insufficient_scope", error_description="The access token grants no scope Switchboard maps to a role; ask for one of: switchboard:agent, switchboard:admin.", scope="switchboard:agent switchboard:admin"`,
    );
  });

  it('maps groups to roles, and names the scope an admin view needs', async () => {
    const agentOnly = await get('/metrics', await token('switchboard:agent'));
    expect(agentOnly.status).toBe(403);
    expect(agentOnly.headers.get('www-authenticate')).toContain(
      'error="insufficient_scope", scope="switchboard:admin"',
    );
    // robot-ops carries groups: ["ops"], and ops = ["admin"].
    expect((await get('/metrics', await token('switchboard:agent', 'robot-ops'))).status).toBe(200);
    expect((await get('/metrics', await token('switchboard:admin'))).status).toBe(200);
  });

  it('picks up a rotated signing key, and refuses a key the issuer never published', async () => {
    const before = await token('switchboard:agent');
    expect((await get('/v1/tools', before)).status).toBe(200);
    await issuer.rotate();
    const after = await token('switchboard:agent');
    expect(decodeProtectedHeader(after).kid).toBe(issuer.keys[0].jwk.kid);
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
    expect((await get('/v1/tools', after)).status).toBe(200); // unknown kid: the key set is fetched again
    expect((await get('/v1/tools', before)).status).toBe(200); // the old key is still published

    const stranger = await newSigningKey(issuer.keys[0].jwk.kid as string); // same kid, a key nobody published
    const forged = await signToken(stranger, {
      iss: issuer.issuer,
      aud: server.url,
      sub: 'mallory',
      scope: 'switchboard:admin',
      exp: now() + 600,
    });
    const r = await refused(forged);
    expect(r).toMatchObject({ status: 401, message: 'The access token signature does not verify.' });
    const unknownKid = await refused(
      await signToken(await newSigningKey('key-never'), {
        iss: issuer.issuer,
        aud: server.url,
        sub: 'mallory',
        scope: 'switchboard:admin',
        exp: now() + 600,
      }),
    );
    expect(unknownKid).toMatchObject({
      status: 401,
      message: 'The access token is signed with a key the issuer does not publish.',
    });
    expect(unknownKid.challenge).toContain('error="invalid_token"');
  });
});

const MINIMAL_OAUTH =
  '[auth.oauth]\nissuer = "https://login.example.com"\n[auth.oauth.roles]\n"switchboard:agent" = ["agent"]\n';

/** A project whose configuration is `toml`. */
function projectWith(toml: string): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), toml);
  return dir;
}

describe('OAuth behind a proxy: [server] public_url', () => {
  it('names the resource after public_url and accepts its host', async () => {
    const dir = projectWith(`[server]\npublic_url = "https://sb.example.com/"\n${MINIMAL_OAUTH}`);
    const server = await startHttpServer(dir);
    try {
      // The proxy forwards Host: sb.example.com; undici's fetch will not send a Host of our choosing, node:http will.
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(`${server.url}/.well-known/oauth-protected-resource/mcp`);
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'sb.example.com' } },
          (res) => {
            let text = '';
            res.on('data', (c) => {
              text += c;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
      expect(JSON.parse(body)).toMatchObject({
        resource: 'https://sb.example.com',
        authorization_servers: ['https://login.example.com'],
      });
      const challenge = (await fetch(`${server.url}/v1/tools`)).headers.get('www-authenticate');
      expect(challenge).toContain('resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource"');
    } finally {
      await server.stop();
    }
  });
});

describe('OAuth configuration errors', () => {
  it('refuses to serve off loopback without [server] public_url, naming the key to set', async () => {
    const dir = projectWith(MINIMAL_OAUTH);
    const out = await runCli(dir, ['serve', '--http', '--host', '0.0.0.0', '--port', '0']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('[auth.oauth] needs [server] public_url when bound off loopback');
  });
});
