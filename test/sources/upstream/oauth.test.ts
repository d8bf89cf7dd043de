// Upstream OAuth against a real authorization server (oidc-provider) and a protected MCP server on loopback: the
// login (discovery, dynamic registration, PKCE, code exchange) driven without a browser, calls with the token,
// refresh before expiry (injected clock) and on a 401, a failed refresh leaving the rest of the hub working,
// scope step-up, one connection per principal, and the tokens sealed at rest.
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import type { Principal } from '../../../src/core/context.ts';
import { login } from '../../../src/mcp-client/oauth/login.ts';
import { migrateLoginKeys, principalOptionKey } from '../../../src/mcp-client/oauth/login-keys.ts';
import { keyFilePath, loadSealingKey, loginAad, seal, unseal } from '../../../src/mcp-client/oauth/sealed.ts';
import { OAuthSession } from '../../../src/mcp-client/oauth/session.ts';
import type { ResolvedServer } from '../../../src/mcp-client/server-spec.ts';
import { generateToken, hashToken } from '../../../src/policy/tokens.ts';
import { serveHttp } from '../../../src/serve/http.ts';
import type { RunningUpstream } from '../../../src/sources/upstream/index.ts';
import { resolveServer, serverDefaults } from '../../../src/sources/upstream/resolve.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import {
  type AuthServer,
  followAuthorization,
  type ProtectedServer,
  useOAuthWorld,
} from '../../helpers/oauth-upstream.ts';
import { fixtureStdio, projectWith, waitFor } from './helpers.ts';

const world = useOAuthWorld();
let as: AuthServer;
let mcp: ProtectedServer;
beforeAll(() => {
  as = world.as();
  mcp = world.mcp();
});

const manager = (hub: TestHub) => (hub.sources.get('upstream') as RunningUpstream).manager();
const view = (hub: TestHub, name = 'notes') =>
  manager(hub)
    ?.views()
    .find((v) => v.name === name);
const env = (hub: TestHub) => ({ ...process.env, SWITCHBOARD_HOME: join(hub.dir, '.home') });

function serverOf(hub: TestHub, name = 'notes'): ResolvedServer {
  const cfg = hub.services.config.get().servers.find((s) => s.name === name);
  const r = resolveServer(
    cfg as never,
    process.env,
    hub.dir,
    serverDefaults(loadConfig(hub.dir, process.env).config, hub.dir, process.env),
  );
  if (!r.ok) throw new Error(r.message);
  return r.server;
}

/** `mcp login` as the person at the browser would do it, for login key `key`. */
async function logIn(hub: TestHub, key = 'local', user = 'alice') {
  as.user = user;
  const record = await login({
    server: serverOf(hub),
    key,
    store: hub.services.store.oauthLogins,
    sealingKey: loadSealingKey(env(hub)) as NonNullable<ReturnType<typeof loadSealingKey>>,
    open: followAuthorization,
  });
  manager(hub)?.relogin('notes', key);
  return record;
}

async function hubWithNotes(oauth: Record<string, unknown> = {}, project?: string): Promise<TestHub> {
  const dir =
    project ?? projectWith([{ name: 'notes', url: mcp.url, oauth, startup_timeout_ms: 10_000 }, fixtureStdio('plain')]);
  const hub = await testHub({ cwd: dir });
  await hub.ready();
  return hub;
}

const text = (out: { ok: boolean; raw?: unknown }) =>
  ((out.raw as { content?: Array<{ text?: string }> })?.content ?? [])[0]?.text;
/** The next whole second: the server compares tokens' `iat`, which counts seconds. */
const nextSecond = () => Math.ceil((Date.now() + 1) / 1000) * 1000;

describe('upstream OAuth', () => {
  it('waits for a login, logs in with discovery + dynamic registration + PKCE, then calls with the token', async () => {
    const hub = await hubWithNotes();
    try {
      expect(view(hub)?.status).toBe('login_required');
      expect(view(hub)?.error).toContain('Run: switchboard mcp login notes');
      const record = await logIn(hub);
      expect(record.state).toBe('active');
      expect(record.scope).toContain('read');
      expect(Date.parse(record.expiresAt as string)).toBeGreaterThan(Date.now());
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'notes connected after login');
      const out = await hub.call('notes__whoami', {});
      expect(out.ok).toBe(true);
      expect(text(out)).toBe('alice');

      // Sealed at rest: the raw row holds neither the access token nor the refresh token, and opens with the key.
      const key = loadSealingKey(env(hub)) as NonNullable<ReturnType<typeof loadSealingKey>>;
      const db = new Database(join(hub.dir, '.switchboard', 'state.db'), { readonly: true });
      const row = db.prepare("SELECT * FROM oauth_logins WHERE server = 'notes'").get() as Record<string, string>;
      db.close();
      const creds = JSON.parse(unseal(key, row.sealed, 'notes\u0000local'));
      expect(creds.tokens.access_token.length).toBeGreaterThan(20);
      const raw = JSON.stringify(row);
      expect(raw).not.toContain(creds.tokens.access_token);
      expect(raw).not.toContain(creds.tokens.refresh_token);
      expect(raw).not.toContain(creds.client.client_id);
      // The key file was made on first use, readable by its owner only.
      expect(statSync(keyFilePath(env(hub))).mode & 0o777).toBe(0o600);
    } finally {
      await hub.close();
    }
  });

  it('refreshes before expiry on the clock it is given, and once on a 401', async () => {
    const hub = await hubWithNotes();
    try {
      await logIn(hub);
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected');
      // Refresh before expiry: a session on an injected clock an hour later refreshes before handing out a token.
      let now = Date.now();
      const session = new OAuthSession({
        server: serverOf(hub),
        key: 'local',
        store: hub.services.store.oauthLogins,
        sealingKey: loadSealingKey(env(hub)) as NonNullable<ReturnType<typeof loadSealingKey>>,
        mode: { kind: 'hub' },
        now: () => now,
      });
      await session.load();
      const before = (await session.tokens())?.access_token;
      const refreshes = as.refreshes;
      expect((await session.tokens())?.access_token).toBe(before);
      expect(as.refreshes).toBe(refreshes);
      now += 3600_000 - 30_000;
      const after = (await session.tokens())?.access_token;
      expect(as.refreshes).toBe(refreshes + 1);
      expect(after).not.toBe(before);

      // On a 401: the server stops accepting the hub's token; the next call refreshes once and goes through.
      mcp.rejectIssuedBefore = nextSecond();
      as.accessTtl = 3600;
      const refreshesBefore = as.refreshes;
      await waitFor(() => Date.now() >= mcp.rejectIssuedBefore + 5, 3000, 'the next second (token iat is in seconds)');
      const out = await hub.call('notes__whoami', {});
      expect(out.ok, JSON.stringify(out)).toBe(true);
      expect(as.refreshes).toBe(refreshesBefore + 1);
    } finally {
      mcp.rejectIssuedBefore = 0;
      await hub.close();
    }
  });

  it('a refresh that fails marks the server login required; the rest of the hub keeps working', async () => {
    const hub = await hubWithNotes();
    try {
      await logIn(hub);
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected');
      as.refuseRefresh = true;
      mcp.rejectIssuedBefore = nextSecond();
      await waitFor(() => Date.now() >= mcp.rejectIssuedBefore + 5, 3000, 'the next second');
      const out = await hub.call('notes__whoami', {});
      expect(out.ok).toBe(false);
      if (out.ok) return;
      expect(out.error.code).toBe('UNAVAILABLE');
      expect(out.error.message).toContain("Upstream server 'notes' needs a login");
      expect(out.error.message).toContain('Run: switchboard mcp login notes');
      expect(out.error.details).toMatchObject({ loginRequired: true, command: 'switchboard mcp login notes' });
      expect(view(hub)?.status).toBe('login_required');
      const record = await hub.services.store.oauthLogins.get('notes', 'local');
      expect(record?.state).toBe('login_required');
      expect(record?.reason).toContain('refresh');
      // Everything else still answers, and health says which server needs what.
      expect((await hub.call('plain__echo', { text: 'still here' })).ok).toBe(true);
      const health = await hub.value('system.health');
      expect(JSON.stringify(health)).toContain('login_required');
      // Logging in again brings it back without a restart.
      as.refuseRefresh = false;
      mcp.rejectIssuedBefore = 0;
      await logIn(hub);
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'reconnected after the new login');
      expect(text(await hub.call('notes__whoami', {}))).toBe('alice');
    } finally {
      as.refuseRefresh = false;
      mcp.rejectIssuedBefore = 0;
      await hub.close();
    }
  });

  it('a 403 insufficient_scope is remembered for the next login and said so', async () => {
    const hub = await hubWithNotes({ scopes: ['read'] });
    try {
      await logIn(hub);
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected');
      const denied = await hub.call('notes__write_note', { text: 'x' });
      expect(denied.ok).toBe(false);
      if (denied.ok) return;
      expect(denied.error.code).toBe('FORBIDDEN');
      expect(denied.error.message).toContain("needs a wider scope for this call: 'read write'");
      expect(denied.error.message).toContain('switchboard mcp login notes');
      expect((await hub.services.store.oauthLogins.get('notes', 'local'))?.requiredScope).toBe('read write');
      // The next login asks for the wider scope; the call then goes through and the step-up is cleared.
      const record = await logIn(hub);
      expect(record.scope?.split(' ')).toEqual(expect.arrayContaining(['read', 'write']));
      expect(record.requiredScope).toBeNull();
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected with the wider scope');
      const ok = await hub.call('notes__write_note', { text: 'x' });
      expect(ok.ok, JSON.stringify(ok)).toBe(true);
    } finally {
      await hub.close();
    }
  });

  it("keeps one login per principal and never sends one user's token for another's call", async () => {
    const hub = await hubWithNotes();
    try {
      await logIn(hub, 'local', 'alice');
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected');
      await logIn(hub, 'token:bob', 'bob');
      const bob: Principal = { id: 'bob', roles: ['*'], kind: 'token' };
      const carol: Principal = { id: 'carol', roles: ['*'], kind: 'token' };
      const stdio: Principal = { id: 'stdio', roles: ['*'], kind: 'stdio' };
      mcp.calls.length = 0;
      expect(text(await hub.call('notes__whoami', {}, bob))).toBe('bob');
      expect(text(await hub.call('notes__whoami', {}, stdio))).toBe('alice');
      const denied = await hub.call('notes__whoami', {}, carol);
      expect(denied.ok).toBe(false);
      if (!denied.ok) {
        expect(denied.error.message).toContain('switchboard mcp login notes --principal token:carol');
        expect(denied.error.details).toMatchObject({ loginRequired: true });
      }
      expect(mcp.calls.map((c) => c.sub)).toEqual(['bob', 'alice']);
    } finally {
      await hub.close();
    }
  });

  it("a token named local gets neither the operator's login nor an OAuth user's (real tokens over HTTP)", async () => {
    const hub = await hubWithNotes();
    const tokens: Record<string, string> = {};
    for (const name of ['local', 'bob']) {
      tokens[name] = generateToken();
      await hub.services.store.tokens.create({ name, hash: hashToken(tokens[name]), roles: ['*'], expiresAt: null });
    }
    const http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
    const clients: Client[] = [];
    const whoamiAsToken = async (name: string) => {
      const client = new Client({ name: 'caller', version: '1.0.0' });
      clients.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${tokens[name]}` } },
        }),
      );
      const result = await client.callTool({ name: 'notes__whoami', arguments: {} });
      return { isError: result.isError === true, text: (result.content as Array<{ text: string }>)[0]?.text };
    };
    try {
      await logIn(hub, 'local', 'alice'); // the operator's own login
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected');
      await logIn(hub, 'oauth:bob', 'bob'); // the login of the OAuth caller whose subject is bob
      mcp.calls.length = 0;
      // The token named local is not the local person; the token bob is not the OAuth caller bob.
      for (const name of ['local', 'bob']) {
        const out = await whoamiAsToken(name);
        expect(out.isError, `token '${name}' was served: ${out.text}`).toBe(true);
        expect(out.text).toContain(
          `needs a login (not logged in). Run: switchboard mcp login notes --principal token:${name}`,
        );
      }
      expect(mcp.calls).toEqual([]);
      // The callers those logins belong to keep them.
      expect(text(await hub.call('notes__whoami', {}, { id: 'oauth:bob', roles: ['*'], kind: 'oauth' }))).toBe('bob');
      expect(text(await hub.call('notes__whoami', {}, { id: 'stdio', roles: ['*'], kind: 'stdio' }))).toBe('alice');
      // The token named local logs in for itself with the command it was given.
      await logIn(hub, principalOptionKey('token:local'), 'mallory');
      await waitFor(async () => (await whoamiAsToken('local')).text === 'mallory', 10_000, "token local's own login");
      expect(mcp.calls.map((c) => c.sub)).toEqual(expect.arrayContaining(['bob', 'alice', 'mallory']));
      expect(mcp.calls.filter((c) => c.sub !== 'mallory').length).toBe(2);
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await http.close();
      await hub.close();
    }
  });

  it("re-keys a token's login stored under its bare name to token:NAME, and keeps one it cannot open", async () => {
    const first = await hubWithNotes();
    await logIn(first, 'local', 'alice'); // the tools are listed through the local login
    await logIn(first, 'bob', 'bob'); // how a token's login was keyed before: its bare name
    const sealingKey = loadSealingKey(env(first)) as NonNullable<ReturnType<typeof loadSealingKey>>;
    // A login sealed with a key this hub does not have: it must stay where it is, not vanish.
    const foreign = { key: Buffer.alloc(32, 9), source: 'another key' };
    const carol = await first.services.store.oauthLogins.get('notes', 'bob');
    await first.services.store.oauthLogins.put({
      ...(carol as NonNullable<typeof carol>),
      principal: 'carol',
      sealed: seal(foreign, '{}', loginAad('notes', 'carol')),
    });
    await first.close();

    const hub = await hubWithNotes({}, first.dir);
    try {
      const bob: Principal = { id: 'bob', roles: ['*'], kind: 'token' };
      await waitFor(async () => (await hub.call('notes__whoami', {}, bob)).ok, 10_000, "bob's re-keyed login");
      expect(text(await hub.call('notes__whoami', {}, bob))).toBe('bob');
      const logins = await hub.services.store.oauthLogins.list('notes');
      expect(logins.map((l) => l.principal).sort()).toEqual(['carol', 'local', 'token:bob']);
      const moved = logins.find((l) => l.principal === 'token:bob') as (typeof logins)[number];
      expect(
        JSON.parse(unseal(sealingKey, moved.sealed, loginAad('notes', 'token:bob'))).tokens.access_token,
      ).toBeTruthy();
      // Run again (another instance, another process): nothing moves twice; the unopenable one is reported each time.
      const again = await migrateLoginKeys(hub.services.store.oauthLogins, () => sealingKey);
      expect(again.moved).toEqual([]);
      expect(again.kept).toEqual([expect.stringContaining('notes: carol → token:carol (The stored OAuth login')]);
      // A login under the new key supersedes a leftover under the old one (a crash between the two writes).
      await hub.services.store.oauthLogins.put({ ...moved, principal: 'bob', sealed: moved.sealed });
      expect((await migrateLoginKeys(hub.services.store.oauthLogins, () => sealingKey)).superseded).toEqual([
        'notes: bob → token:bob',
      ]);
      expect(await hub.services.store.oauthLogins.get('notes', 'bob')).toBeUndefined();
    } finally {
      await hub.close();
    }
  });

  it('reads --principal as a namespaced caller, a bare name as a token, and refuses local and *', () => {
    expect(principalOptionKey('alice')).toBe('token:alice');
    expect(principalOptionKey('token:local')).toBe('token:local');
    expect(principalOptionKey('oauth:alice')).toBe('oauth:alice');
    expect(principalOptionKey('agent:s1')).toBe('agent:s1');
    expect(() => principalOptionKey('ci:main')).toThrow(
      "--principal 'ci:main' names no caller: expected a token name (or token:NAME), oauth:SUBJECT or agent:SESSION.",
    );
    expect(() => principalOptionKey('local')).toThrow(
      "--principal 'local' would name the local login: leave --principal out for that; a token named 'local' is --principal token:local.",
    );
    expect(() => principalOptionKey('*')).toThrow(/would name the shared login/);
    expect(() => principalOptionKey('a b')).toThrow(
      "--principal 'a b': 'a b' is not a token name (1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-').",
    );
    expect(() => principalOptionKey('oauth:')).toThrow(
      "--principal 'oauth:' names no caller: expected a token name (or token:NAME), oauth:SUBJECT or agent:SESSION.",
    );
  });

  it('a shared server uses one login for every caller', async () => {
    const hub = await hubWithNotes({ shared: true });
    try {
      await logIn(hub, '*', 'team');
      await waitFor(() => view(hub)?.status === 'connected', 10_000, 'connected');
      const bob: Principal = { id: 'bob', roles: ['*'], kind: 'token' };
      expect(text(await hub.call('notes__whoami', {}, bob))).toBe('team');
      expect(text(await hub.call('notes__whoami', {}))).toBe('team');
    } finally {
      await hub.close();
    }
  });

  it('refuses a key file others can read, naming the file and the fix', async () => {
    const hub = await hubWithNotes();
    try {
      const file = keyFilePath(env(hub));
      loadSealingKey(env(hub));
      chmodSync(file, 0o644);
      expect(() => loadSealingKey(env(hub))).toThrow(`chmod 600 ${file}`);
      expect(() => loadSealingKey({ SWITCHBOARD_OAUTH_KEY: 'c2hvcnQ=' })).toThrow(
        'SWITCHBOARD_OAUTH_KEY: expected a 32-byte key',
      );
    } finally {
      await hub.close();
    }
  });
});
