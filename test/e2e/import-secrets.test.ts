// Secrets in imported servers, as a new user meets them (issue 29): a fresh HOME whose ~/.claude.json has a remote
// server with a bearer header and a stdio server with a secret environment variable. `init --yes` (the built CLI in
// a child process) must write no literal secret into the project, write `${VAR}` references and name the variables;
// with them set, `switchboard serve` (official SDK client over stdio) reaches both servers — the remote one only
// answers the right header. `mcp import --user` keeps the literal in the user's own file.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';
import { FIXTURE } from '../sources/upstream/helpers.ts';

const TOKEN = 'sk-live-tickets-4242';
const API_KEY = 'nk-live-notes-1717';

const cleanup: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanup.splice(0)) c();
});

/** The fixture server over Streamable HTTP, answering 401 to any request without `Authorization: Bearer TOKEN`. */
async function ticketsServer(): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, 'http', '0'], {
    env: { ...process.env, FIXTURE_NAME: 'tickets', FIXTURE_AUTH: `Bearer ${TOKEN}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanup.push(() => child.kill());
  const port = await new Promise<number>((ok, fail) => {
    child.stdout?.on('data', (b: Buffer) => {
      const m = /listening (\d+)/.exec(b.toString());
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`fixture server exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

/** A project folder and a fresh HOME whose ~/.claude.json holds the two servers with literal secrets. */
function machine(ticketsUrl: string) {
  const dir = tempProject();
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  mkdirSync(home);
  const claudeJson = join(home, '.claude.json');
  writeFileSync(
    claudeJson,
    JSON.stringify({
      mcpServers: {
        tickets: { type: 'http', url: ticketsUrl, headers: { Authorization: `Bearer ${TOKEN}` } },
        notes: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_NAME: 'notes', API_KEY } },
      },
    }),
  );
  const env = { HOME: home, CODEX_HOME: join(dir, 'codex-home'), PATH: '/usr/bin:/bin' };
  return { dir, home, claudeJson, env };
}

/** Every file of the project (not the HOME, not the isolated Switchboard home) with its text. */
function projectFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (d === dir && (name === 'home' || name === '.home')) continue;
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'latin1');
    }
  };
  walk(dir);
  return out;
}

const configServers = (file: string) =>
  (parse(readFileSync(file, 'utf8')).servers ?? []) as Array<Record<string, unknown>>;

describe('importing servers with secrets', () => {
  it('init --yes writes ${VAR} references and names the variables; with them set, both servers work', async () => {
    const m = machine(await ticketsServer());
    const r = await runCli(m.dir, ['init', '--yes'], { env: m.env, timeoutMs: 20_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    // No literal secret in any file of the project, nor in what init printed.
    const files = projectFiles(m.dir);
    expect(Object.keys(files)).toContain('.switchboard/config.toml');
    for (const [name, text] of Object.entries(files)) {
      expect(text, name).not.toContain(TOKEN);
      expect(text, name).not.toContain(API_KEY);
    }
    expect(r.stdout).not.toContain(TOKEN);
    expect(r.stdout).not.toContain(API_KEY);
    const servers = configServers(join(m.dir, '.switchboard/config.toml'));
    expect(servers.find((s) => s.name === 'tickets')?.headers).toEqual({
      Authorization: 'Bearer ${TICKETS_AUTHORIZATION}',
    });
    expect(servers.find((s) => s.name === 'notes')?.env).toEqual({
      FIXTURE_NAME: 'notes',
      API_KEY: '${NOTES_API_KEY}',
    });
    // The variables to set, what each is for and where its value is.
    expect(r.stdout).toContain('Secrets are not copied into .switchboard/config.toml');
    expect(r.stdout).toMatch(/TICKETS_AUTHORIZATION +tickets headers\.Authorization .*home\/\.claude\.json/);
    expect(r.stdout).toMatch(/NOTES_API_KEY +notes env\.API_KEY; its value is the one in .*home\/\.claude\.json/);

    // With the variables set where Switchboard runs, both servers answer: the remote one got its header.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--cwd', m.dir, 'serve'],
      env: childEnv(m.dir, { ...m.env, TICKETS_AUTHORIZATION: TOKEN, NOTES_API_KEY: API_KEY }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'import-secrets', version: '1.0.0' });
    await client.connect(transport);
    cleanup.push(() => void client.close());
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['tickets__echo', 'notes__env']));
    const echoed = await client.callTool({ name: 'tickets__echo', arguments: { text: 'through the header' } });
    expect(echoed.isError).toBeFalsy();
    expect(echoed.structuredContent).toEqual({ text: 'through the header' });
    const env = (await client.callTool({ name: 'notes__env', arguments: {} })).structuredContent as Record<
      string,
      string
    >;
    expect(env.API_KEY).toBe(API_KEY);
  }, 60_000);

  it('mcp import writes references into the project and lists them; --user keeps the literal in the owner-only user file', async () => {
    const m = machine('https://tickets.example.com/mcp');
    const project = await runCli(m.dir, ['mcp', 'import', '--from', 'claude-code'], { env: m.env });
    expect(project.code).toBe(0);
    expect(project.stdout).toContain('Imported into project scope: tickets, notes');
    expect(project.stdout).toMatch(/TICKETS_AUTHORIZATION +tickets headers\.Authorization/);
    expect(project.stdout).toMatch(/NOTES_API_KEY +notes env\.API_KEY/);
    expect(project.stdout).not.toContain(TOKEN);
    const projectFile = readFileSync(join(m.dir, '.switchboard/config.toml'), 'utf8');
    expect(projectFile).not.toContain(TOKEN);
    expect(projectFile).not.toContain(API_KEY);

    const json = await runCli(m.dir, ['mcp', 'import', '--from', 'claude-code', '--user', '--json'], { env: m.env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ scope: 'user', added: ['tickets', 'notes'], secrets: [] });
    const userFile = join(m.dir, '.home', 'config.toml'); // SWITCHBOARD_HOME of the child (helpers/cli.ts)
    expect(configServers(userFile).find((s) => s.name === 'tickets')?.headers).toEqual({
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(statSync(userFile).mode & 0o777).toBe(0o600);
  });
});
