// `switchboard mcp login | logout | list --status` as a person runs them (the built CLI in a child process),
// against a real authorization server and a protected MCP server on loopback; the browser is fetch following the
// URL the command prints.
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlRefusal } from '../../src/mcp-client/oauth/discovery-fetch.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';
import { followAuthorization, type ProtectedServer, useOAuthWorld } from '../helpers/oauth-upstream.ts';

const world = useOAuthWorld();
let mcp: ProtectedServer;
beforeAll(() => {
  mcp = world.mcp();
});

/** A server entry followed by its `[servers.headers]` sub-table, between another entry and comments. */
const HEADERS_AFTER = (url: string) =>
  '# Project servers\n[[servers]]\nname = "other"\nurl = "https://other.example.org/mcp"\nenabled = false\n\n' +
  `# the one that logs in\n[[servers]]\nname = "notes" # the notes server\nurl = "${url}"\nstartup_timeout_ms = 10000\n` +
  '[servers.headers]\nX-Team = "blue" # sent on every request\n\n# the end\n';

function project(oauth = 'oauth = {}\n', url = mcp.url): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(
    join(dir, '.switchboard', 'config.toml'),
    `[[servers]]\nname = "notes"\nurl = "${url}"\nstartup_timeout_ms = 10000\n${oauth}`,
  );
  return dir;
}

/** `mcp login notes --no-browser`, following the printed URL as the browser would. */
function login(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, '--cwd', dir, 'mcp', 'login', 'notes', '--no-browser'], {
      env: childEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let followed = false;
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /^\s+(http:\/\/\S+)$/m.exec(stderr);
      if (m && !followed) {
        followed = true;
        void followAuthorization(new URL(m[1])).catch((err) => {
          stderr += `\n(follow failed: ${err.message})`;
        });
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe('switchboard mcp login', () => {
  it('logs in, shows who is logged in and until when, and logs out', async () => {
    const dir = project();
    const before = await runCli(dir, ['mcp', 'list', '--status']);
    expect(before.stdout).toContain('login_required');
    expect(before.stdout).toContain('login notes: nobody is logged in — run: switchboard mcp login notes');

    const done = await login(dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain("Open this URL to log in to 'notes'");
    expect(done.stderr).toMatch(/code_challenge_method=S256/);
    expect(done.stdout).toMatch(/Logged in to 'notes' \(scope: read\); the token expires \S+ and is refreshed/);

    const after = await runCli(dir, ['mcp', 'list', '--status']);
    expect(after.stdout).toContain('connected');
    expect(after.stdout).toMatch(/login notes \(you\): logged in, token expires \d{4}-\d\d-\d\dT/);
    const json = JSON.parse((await runCli(dir, ['mcp', 'list', '--status', '--json'])).stdout);
    expect(json.servers[0].logins).toEqual([
      expect.objectContaining({ principal: 'local', state: 'active', scope: 'read' }),
    ]);

    const out = await runCli(dir, ['mcp', 'logout', 'notes']);
    expect(out.stdout).toContain("Logged out of 'notes' (1 login removed)");
    expect((await runCli(dir, ['mcp', 'list', '--status'])).stdout).toContain('nobody is logged in');
  }, 120_000);

  it('adds oauth = {} to the [[servers]] entry it logs in to, keeping every other byte of the file', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    const file = join(dir, '.switchboard', 'config.toml');
    // The entry is followed by its own [servers.headers]: text appended at the end would land in that sub-table.
    const original = HEADERS_AFTER(mcp.url);
    writeFileSync(file, original);
    const before = await runCli(dir, ['mcp', 'list', '--status']);
    expect(before.stdout).toContain(
      'login notes: the server asks for credentials (HTTP 401); if it logs in with OAuth, run: switchboard mcp login notes (it adds oauth = {} to the entry)',
    );

    const done = await login(dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(
      `'notes' has no [servers.oauth] table yet: once you are logged in, oauth = {} is added to its entry in ${file}.`,
    );
    expect(done.stdout).toContain(
      `Added oauth = {} to 'notes' in ${file}: Switchboard logs in to it with OAuth from now on.`,
    );
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(original.replace('[servers.headers]', 'oauth = {}\n[servers.headers]'));
    const servers = (parse(text) as { servers: Record<string, unknown>[] }).servers;
    expect(servers[1]).toEqual(expect.objectContaining({ name: 'notes', oauth: {}, headers: { 'X-Team': 'blue' } }));

    // The login is in effect with the entry as it is now.
    const after = await runCli(dir, ['mcp', 'list', '--status']);
    expect(after.stdout).toMatch(/login notes \(you\): logged in, token expires/);
    expect(after.stdout).not.toContain('HTTP 401');
    expect((await runCli(dir, ['mcp', 'login', 'nope'])).stderr).toContain(
      "No MCP server 'nope'. Configured: other, notes.",
    );
  }, 120_000);

  it('edits a user-scope entry through its symlink, leaving the link a link', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.home'), { recursive: true });
    const target = join(dir, 'dotfiles-switchboard.toml');
    const original = HEADERS_AFTER(mcp.url);
    writeFileSync(target, original);
    symlinkSync(target, join(dir, '.home', 'config.toml'));
    const done = await login(dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Added oauth = {} to 'notes' in ${join(dir, '.home', 'config.toml')}`);
    expect(lstatSync(join(dir, '.home', 'config.toml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(original.replace('[servers.headers]', 'oauth = {}\n[servers.headers]'));
  }, 120_000);

  it('shows the change to make, correct where it is pasted, when it cannot edit the file', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    const file = join(dir, '.switchboard', 'config.toml');
    const original = HEADERS_AFTER('https://notes.example.org/mcp');
    writeFileSync(file, original);
    // A read-only file in a read-only folder; root writes anyway, so as root the CLI runs as nobody.
    chmodSync(file, 0o444);
    chmodSync(join(dir, '.switchboard'), 0o555);
    chmodSync(dir, 0o755);
    // This file's own temp folder (test/setup-env.ts): nobody may pass through it to reach the project.
    if (process.getuid?.() === 0) chmodSync(tmpdir(), 0o711);
    const r = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, '--cwd', dir, 'mcp', 'login', 'notes', '--no-browser'], {
        env: childEnv(dir),
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        done({ code, stderr });
      });
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `Server 'notes' has no [servers.oauth] table, so Switchboard does not log in to it, and cannot add one: ${file} is not writable (EACCES).`,
    );
    expect(r.stderr).toContain(
      `In ${file}, add the line marked + (as line 12) to the entry of 'notes':\n\n` +
        '    [[servers]]\n    name = "notes" # the notes server\n    url = "https://notes.example.org/mcp"\n' +
        '    startup_timeout_ms = 10000\n  + oauth = {}\n    [servers.headers]\n    X-Team = "blue" # sent on every request\n\n' +
        'then run: switchboard mcp login notes',
    );
    expect(readFileSync(file, 'utf8')).toBe(original);
    // Pasted where it says, the line puts oauth on the server, not under its headers.
    const line = /^ {2}\+ (.*)$/m.exec(r.stderr)?.[1] as string;
    const lines = original.split('\n');
    lines.splice(11, 0, line);
    const servers = (parse(lines.join('\n')) as { servers: Record<string, unknown>[] }).servers;
    expect(servers[1]).toEqual(expect.objectContaining({ oauth: {}, headers: { 'X-Team': 'blue' } }));
  });

  it('refuses a key file others can read before anything is asked', async () => {
    const dir = project();
    mkdirSync(join(dir, '.home'), { recursive: true });
    const key = join(dir, '.home', 'oauth.key');
    writeFileSync(key, `${Buffer.alloc(32, 7).toString('base64')}\n`);
    chmodSync(key, 0o644);
    const r = await runCli(dir, ['mcp', 'login', 'notes', '--no-browser']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`The OAuth key file ${key} has permissions 0644`);
    expect(r.stderr).toContain(`chmod 600 ${key}`);
  });

  it('refuses --principal local (the local login), and logs a token out of a login stored under its bare name', async () => {
    const dir = project();
    const r = await runCli(dir, ['mcp', 'login', 'notes', '--principal', 'local', '--no-browser']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--principal 'local' would name the local login: leave --principal out for that; a token named 'local' is --principal token:local.",
    );
    // A token's login as it was keyed before keys were namespaced.
    const store = SqliteStore.open(join(dir, '.switchboard', 'state.db'));
    await store.oauthLogins.put({ server: 'notes', principal: 'alice', sealed: 'v1.AAAA', state: 'active' });
    await store.close();
    const out = await runCli(dir, ['mcp', 'logout', 'notes', '--principal', 'alice']);
    expect(out.stdout).toContain("Logged out of 'notes' (1 login removed)");
  });

  it('refuses oauth on a stdio server, naming the server', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(
      join(dir, '.switchboard', 'config.toml'),
      '[[servers]]\nname = "local"\ncommand = "node"\noauth = {}\n\n[[servers]]\nname = "half"\nurl = "https://x.example/mcp"\n[servers.oauth]\nclient_secret = "${S}"\n',
    );
    const r = await runCli(dir, ['mcp', 'list', '--status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("server 'local' runs a command: OAuth is for remote servers");
  });
});

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** A loopback server answering each request with what `answer` says for its path (else 404); it notes every path. */
async function stub(): Promise<{
  origin: string;
  requested: string[];
  answer: (path: string) => Answer | undefined;
  server: Server;
}> {
  const state = {
    origin: '',
    requested: [] as string[],
    answer: (_path: string): Answer | undefined => undefined,
    server: createServer((req, res) => {
      state.requested.push(req.url ?? '');
      req.resume();
      const a = state.answer(req.url ?? '') ?? { status: 404 };
      res.writeHead(a.status, a.headers).end(a.body ?? '');
    }),
  };
  await new Promise<void>((r) => state.server.listen(0, '127.0.0.1', () => r()));
  state.origin = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

const json = (body: unknown): Answer => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('mcp login fetches only what the OAuth specifications allow', () => {
  // The upstream MCP server, and another service on another origin that it (or its metadata) names.
  let up: Awaited<ReturnType<typeof stub>>;
  let other: Awaited<ReturnType<typeof stub>>;
  const PRM = '/.well-known/oauth-protected-resource/mcp';
  const SECRET = '<html><h1>INTERNAL-ONLY payroll dashboard</h1></html>';
  beforeAll(async () => {
    up = await stub();
    other = await stub();
  });
  afterAll(async () => {
    for (const s of [up, other]) await new Promise((r) => s.server.close(r));
  });

  /** The upstream challenges every MCP request, naming `resourceMetadata`, and serves `routes`; then `mcp login`. */
  async function loginAgainst(
    resourceMetadata: string,
    routes: Record<string, Answer>,
    otherRoutes: Record<string, Answer> = {},
  ) {
    up.answer = (path) =>
      routes[path] ??
      (path.startsWith('/mcp')
        ? {
            status: 401,
            headers: { 'www-authenticate': `Bearer resource_metadata="${resourceMetadata}", scope="read"` },
          }
        : undefined);
    other.answer = (path) => otherRoutes[path];
    other.requested.length = 0;
    const r = await runCli(project('oauth = {}\n', `${up.origin}/mcp`), ['mcp', 'login', 'notes', '--no-browser'], {
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(1);
    return r.stderr;
  }

  it('allows https, and loopback only for a server on loopback', () => {
    const remote = new URL('https://mcp.example.com/mcp');
    const local = new URL('http://127.0.0.1:7000/mcp');
    expect(urlRefusal(new URL('https://login.example.com/token'), remote)).toBeUndefined();
    expect(urlRefusal(new URL('http://127.0.0.1:9000/token'), local)).toBeUndefined();
    expect(
      urlRefusal(new URL('https://mcp.example.com/.well-known/oauth-protected-resource/mcp'), remote),
    ).toBeUndefined();
    expect(urlRefusal(new URL('https://127.0.0.1/token'), remote)).toBe(
      'a loopback address is reached only for a server that is itself on loopback (this one is https://mcp.example.com)',
    );
    expect(urlRefusal(new URL('http://[::1]:8080/'), remote)).toMatch(/^a loopback address is reached only/);
    expect(urlRefusal(new URL('http://login.example.com/'), remote)).toMatch(
      /^an authorization server is reached over https only/,
    );
    expect(urlRefusal(new URL('https://other.example.com/.well-known/oauth-protected-resource'), remote)).toMatch(
      /^protected resource metadata is read only from the server's own origin \(https:\/\/mcp.example.com\)/,
    );
  });

  it("reads protected resource metadata only from the server's own origin", async () => {
    const stderr = await loginAgainst(`${other.origin}${PRM}`, {}, { [PRM]: json({ resource: `${up.origin}/mcp` }) });
    expect(stderr).toContain(
      `Not fetching ${other.origin}${PRM} for the OAuth login to 'notes': protected resource metadata is read only from the server's own origin (${up.origin}), as RFC 9728 locates it.`,
    );
    expect(other.requested).toEqual([]);
  });

  it('reaches an authorization server over https only (http only on loopback)', async () => {
    const stderr = await loginAgainst(`${up.origin}${PRM}`, {
      [PRM]: json({ resource: `${up.origin}/mcp`, authorization_servers: ['http://auth.invalid'] }),
    });
    expect(stderr).toContain(
      "Not fetching http://auth.invalid/.well-known/oauth-authorization-server for the OAuth login to 'notes': an authorization server is reached over https only (http only on loopback, for a server on loopback).",
    );
  });

  it('follows no redirect to another origin', async () => {
    const stderr = await loginAgainst(`${up.origin}${PRM}`, {
      [PRM]: { status: 302, headers: { location: `${other.origin}/prm` } },
    });
    expect(stderr).toContain(
      `Not following the redirect from ${up.origin}${PRM} to ${other.origin}/prm for the OAuth login to 'notes': a redirect to another origin is not followed`,
    );
    expect(other.requested).toEqual([]);
  });

  it("never prints another service's body, and names what it answered instead", async () => {
    const asMetadata = {
      issuer: other.origin,
      authorization_endpoint: `${other.origin}/authorize`,
      token_endpoint: `${other.origin}/token`,
      registration_endpoint: `${other.origin}/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    };
    const prm = { [PRM]: json({ resource: `${up.origin}/mcp`, authorization_servers: [other.origin] }) };
    const page = { status: 400, headers: { 'content-type': 'text/html' }, body: SECRET };
    // Registration refused with an HTML page.
    let stderr = await loginAgainst(`${up.origin}${PRM}`, prm, {
      '/.well-known/oauth-authorization-server': json(asMetadata),
      '/register': page,
    });
    expect(stderr).toContain(
      `${other.origin}/register answered HTTP 400 with text/html (${SECRET.length} bytes), which is not an OAuth error response; its body is not shown.`,
    );
    expect(stderr).not.toContain('INTERNAL-ONLY');
    // Metadata that is a page, not JSON.
    stderr = await loginAgainst(`${up.origin}${PRM}`, prm, {
      '/.well-known/oauth-authorization-server': { ...page, status: 200 },
    });
    expect(stderr).toContain(
      `${other.origin}/.well-known/oauth-authorization-server answered HTTP 200 with text/html (${SECRET.length} bytes), not the JSON document OAuth exchanges; its body is not shown.`,
    );
    expect(stderr).not.toContain('INTERNAL-ONLY');
    // An OAuth error response keeps its error fields: they are what the person needs to fix the client.
    stderr = await loginAgainst(`${up.origin}${PRM}`, prm, {
      '/.well-known/oauth-authorization-server': json(asMetadata),
      '/register': {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error: 'invalid_redirect_uri',
          error_description: 'loopback redirects are not allowed',
          trace: SECRET,
        }),
      },
    });
    expect(stderr).toContain('invalid_redirect_uri');
    expect(stderr).toContain('loopback redirects are not allowed');
    expect(stderr).not.toContain('INTERNAL-ONLY');
  });
});
