// `switchboard mcp login | logout | list --status` as a person runs them (the built CLI in a child process),
// against a real authorization server and a protected MCP server on loopback; the browser is fetch following the
// URL the command prints.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';
import { followAuthorization, type ProtectedServer, useOAuthWorld } from '../helpers/oauth-upstream.ts';

const world = useOAuthWorld();
let mcp: ProtectedServer;
beforeAll(() => {
  mcp = world.mcp();
});

function project(oauth = 'oauth = {}\n'): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(
    join(dir, '.switchboard', 'config.toml'),
    `[[servers]]\nname = "notes"\nurl = "${mcp.url}"\nstartup_timeout_ms = 10000\n${oauth}`,
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

  it('refuses a server without [servers.oauth], saying what to add', async () => {
    const dir = project('');
    const r = await runCli(dir, ['mcp', 'login', 'notes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Server 'notes' has no [servers.oauth] table");
    expect(r.stderr).toContain('oauth = {}');
    expect((await runCli(dir, ['mcp', 'login', 'nope'])).stderr).toContain("No MCP server 'nope'. Configured: notes.");
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
