import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../helpers/cli.ts';
import { closedPort, FIXTURE } from '../sources/upstream/helpers.ts';

const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runCli(dir, args, { env: { HOME: join(dir, 'home'), ...env } });

const projectFile = (dir: string) => join(dir, '.switchboard', 'config.toml');
const userFile = (dir: string) => join(dir, '.home', 'config.toml');
const servers = (file: string) => (parse(readFileSync(file, 'utf8')).servers ?? []) as Record<string, unknown>[];

describe('switchboard mcp', () => {
  it('adds stdio, http and sse servers to the project file, keeping its comments', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(projectFile(dir), '# team settings\n[server]\nport = 7777 # do not change\n');
    expect(
      (await run(dir, ['mcp', 'add', 'fs', '-e', 'DEBUG=${DEBUG:-0}', '--', 'npx', '-y', 'server-fs', '/srv'])).code,
    ).toBe(0);
    const auth = 'Authorization: Bearer ${TOK}';
    const http = await run(dir, ['mcp', 'add', 'tickets', '-u', 'https://tickets.example.org/mcp', '-H', auth]);
    expect(http.code).toBe(0);
    const sse = await run(dir, ['mcp', 'add', 'archive', '-t', 'sse', '-u', 'https://archive.example.org/sse']);
    expect(sse.stdout).toContain("Added MCP server 'archive' (sse) to project scope");
    const text = readFileSync(projectFile(dir), 'utf8');
    expect(text).toContain('# team settings');
    expect(text).toContain('port = 7777 # do not change');
    expect(servers(projectFile(dir))).toEqual([
      { name: 'fs', command: 'npx', args: ['-y', 'server-fs', '/srv'], env: { DEBUG: '${DEBUG:-0}' } },
      { name: 'tickets', url: 'https://tickets.example.org/mcp', headers: { Authorization: 'Bearer ${TOK}' } },
      { name: 'archive', url: 'https://archive.example.org/sse', transport: 'sse' },
    ]);
  });

  it('writes a stdio server’s fence and idle timeout from --sandbox, --allow-*, --no-network and --idle-timeout', async () => {
    const dir = tempProject();
    const fenced = await run(dir, [
      'mcp',
      'add',
      'notes',
      '--no-network',
      '--allow-read',
      '~/notes',
      '--allow-write',
      'out',
      '--sandbox',
      'required',
      '--idle-timeout',
      '60000',
      '--',
      'npx',
      '-y',
      'notes-server',
    ]);
    expect(fenced.code).toBe(0);
    expect((await run(dir, ['mcp', 'add', 'legacy', '--sandbox', 'off', '--', 'legacy-server'])).code).toBe(0);
    expect(servers(projectFile(dir))).toEqual([
      {
        name: 'notes',
        command: 'npx',
        args: ['-y', 'notes-server'],
        sandbox: { read: ['~/notes'], write: ['out'], network: false, required: true },
        idle_timeout_ms: 60000,
      },
      { name: 'legacy', command: 'legacy-server', sandbox: 'off' },
    ]);
    const bad = [
      [['--sandbox', 'maybe', '--', 'x'], /--sandbox: expected on, off or required, got 'maybe'/],
      [['--sandbox', 'off', '--no-network', '--', 'x'], /--sandbox off runs the server unfenced: drop/],
      [
        ['-u', 'https://h.example/mcp', '--no-network'],
        /are for a server Switchboard starts \(a command after --\), not a URL/,
      ],
      [['--idle-timeout', 'soon', '--', 'x'], /--idle-timeout: expected milliseconds/],
    ] as const;
    for (const [args, message] of bad) {
      const out = await run(dir, ['mcp', 'add', 'bad', ...args]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(message);
    }
    expect(servers(projectFile(dir)).map((s) => s.name)).toEqual(['notes', 'legacy']);
  });

  it('takes a URL where the command goes as a remote server (Meerkat’s and Claude Code’s `mcp add NAME URL`)', async () => {
    const dir = tempProject();
    expect((await run(dir, ['mcp', 'add', 'docs', 'https://docs.example.org/mcp'])).code).toBe(0);
    // As Meerkat spells it: --transport http, and --scope local (its alias for project).
    const wiki = ['mcp', 'add', '--scope', 'local', '--transport', 'http', 'wiki', 'https://wiki.example.org/mcp'];
    expect((await run(dir, wiki)).code).toBe(0);
    expect(servers(projectFile(dir))).toEqual([
      { name: 'docs', url: 'https://docs.example.org/mcp' },
      { name: 'wiki', url: 'https://wiki.example.org/mcp' },
    ]);
  });

  it('says what is wrong with an add, and changes nothing', async () => {
    const dir = tempProject();
    await run(dir, ['mcp', 'add', 'x', '--', 'node', 'a.js']);
    const before = readFileSync(projectFile(dir), 'utf8');
    const cases: Array<[string[], RegExp, number]> = [
      [
        ['mcp', 'add', 'x', '--', 'node', 'b.js'],
        /MCP server 'x' already exists in project scope\. Remove it first with: switchboard mcp remove x --scope project/,
        1,
      ],
      [['mcp', 'add', 'y'], /Missing the server: give a command after --/, 2],
      [
        ['mcp', 'add', 'y', '-u', 'http://h', '--', 'node'],
        /Give either a URL \(-u\) or a command after --, not both/,
        2,
      ],
      [['mcp', 'add', 'y', '-t', 'sse'], /A sse server needs its URL/, 2],
      [['mcp', 'add', 'y', '-t', 'stdio', '-u', 'http://h'], /-t stdio runs a command/, 2],
      [['mcp', 'add', 'y', '-t', 'ws', '-u', 'http://h'], /expected stdio, http or sse, got 'ws'/, 2],
      [['mcp', 'add', 'y', '-u', 'http://h', '-H', 'no-colon'], /-H\/--header: expected Key: Value, got 'no-colon'/, 2],
      [['mcp', 'add', 'bad name', '--', 'node'], /Invalid server 'bad name': name: expected 1-64 characters/, 2],
    ];
    for (const [args, message, code] of cases) {
      const r = await run(dir, args);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.code, args.join(' ')).toBe(code);
    }
    expect(readFileSync(projectFile(dir), 'utf8')).toBe(before);
  });

  it('keeps user and project scopes apart; remove asks which when a name is in both', async () => {
    const dir = tempProject();
    await run(dir, ['mcp', 'add', 'x', '--', 'node', 'p.js']);
    await run(dir, ['mcp', 'add', 'x', '--user', '--', 'node', 'u.js']);
    expect(servers(userFile(dir))).toEqual([{ name: 'x', command: 'node', args: ['u.js'] }]);
    const listed = JSON.parse((await run(dir, ['mcp', 'list', '--json'])).stdout);
    expect(listed.servers.map((s: { scope: string; shadowedBy?: string }) => [s.scope, s.shadowedBy ?? null])).toEqual([
      ['project', null],
      ['user', 'project'],
    ]);
    const ambiguous = await run(dir, ['mcp', 'remove', 'x']);
    expect(ambiguous.stderr).toMatch(
      /exists in both project and user scope\. Say which to remove: switchboard mcp remove x --scope project/,
    );
    expect((await run(dir, ['mcp', 'remove', 'x', '--scope', 'user'])).code).toBe(0);
    expect(servers(userFile(dir))).toEqual([]);
    expect((await run(dir, ['mcp', 'remove', 'x'])).stdout).toContain("Removed MCP server 'x' from project scope.");
    const missing = await run(dir, ['mcp', 'remove', 'x']);
    expect(missing.stderr).toMatch(/No MCP server 'x'\. None are configured/);
  });

  it('masks literal secrets in get, showing ${VAR} references as written', async () => {
    const dir = tempProject();
    await run(dir, [
      'mcp',
      'add',
      'api',
      '-u',
      'https://h/mcp',
      '-H',
      'Authorization: Bearer ${TOK}',
      '-H',
      'X-Api-Key: sk-live-123',
    ]);
    await run(dir, [
      'mcp',
      'add',
      'fs',
      '-e',
      'GITHUB_TOKEN=ghp_secret',
      '-e',
      'REF=${HOME_DIR}',
      '--',
      'node',
      's.js',
    ]);
    const api = JSON.parse((await run(dir, ['mcp', 'get', 'api', '--json'])).stdout);
    expect(api.headers).toEqual({ Authorization: '**** ${TOK}', 'X-Api-Key': '****' });
    const fs = await run(dir, ['mcp', 'get', 'fs']);
    expect(fs.stdout).toContain('GITHUB_TOKEN=****');
    expect(fs.stdout).toContain('REF=${HOME_DIR}');
    expect(fs.stdout).not.toContain('ghp_secret');
    expect((await run(dir, ['mcp', 'get', 'nope'])).stderr).toMatch(/No MCP server 'nope'\. Configured: api, fs\./);
  });

  it('lists with --status: connected with tool count and round trip, or failed with the reason', async () => {
    const dir = tempProject();
    await run(dir, ['mcp', 'add', 'alpha', '--', process.execPath, FIXTURE]);
    const port = await closedPort();
    await run(dir, ['mcp', 'add', 'down', '-u', `http://127.0.0.1:${port}/mcp`]);
    const r = await run(dir, ['mcp', 'list', '--status', '--json']);
    expect(r.code).toBe(0);
    const [alpha, down] = JSON.parse(r.stdout).servers;
    expect(alpha).toMatchObject({ name: 'alpha', status: 'connected', tools: 11 });
    expect(alpha.rttMs).toBeGreaterThan(0);
    expect(down).toMatchObject({ name: 'down', status: 'failed' });
    expect(down.error).toBe(`connection refused at http://127.0.0.1:${port}/mcp (is the server running?)`);
    const table = await run(dir, ['mcp', 'list', '--status']);
    // The tools column, not any 9 in the row (the round trip in ms can hold one).
    expect(stripVTControlCharacters(table.stdout)).toMatch(/│ alpha .*│ connected +│ 11 +│/);
  }, 30_000);

  it('imports servers from Claude Code, Codex and Gemini CLI configurations', async () => {
    const dir = tempProject();
    const home = join(dir, 'home');
    mkdirSync(join(home, '.codex'), { recursive: true });
    mkdirSync(join(dir, '.gemini'));
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server-fs', '.'], env: { LOG: 'debug' } },
          remote: { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${T}' } },
          old: { type: 'sse', url: 'https://archive.example.org/sse' },
          'bad name!': { command: 'x' },
        },
      }),
    );
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ mcpServers: { files: { command: 'other' }, userwide: { command: 'uw' } } }),
    );
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      '[mcp_servers.search]\ncommand = "search-mcp"\nargs = ["--fast"]\ntool_timeout_sec = 12\n\n[mcp_servers.cloud]\nurl = "https://cloud.example.com/mcp"\nbearer_token_env_var = "CLOUD_TOKEN"\n',
    );
    writeFileSync(
      join(dir, '.gemini', 'settings.json'),
      JSON.stringify({
        mcpServers: {
          gem: { httpUrl: 'https://gem.example.com/mcp', headers: { 'X-K': 'v' } },
          gsse: { url: 'https://g/sse' },
        },
      }),
    );
    const claude = JSON.parse((await run(dir, ['mcp', 'import', '--from', 'claude-code', '--json'])).stdout);
    expect(claude.added).toEqual(['files', 'remote', 'old', 'userwide']);
    expect(claude.skipped).toEqual([{ name: 'bad name!', reason: expect.stringMatching(/not 1-64/) }]);
    const codex = JSON.parse((await run(dir, ['mcp', 'import', '--from', 'codex', '--json'])).stdout);
    expect(codex.added).toEqual(['search', 'cloud']);
    const gemini = JSON.parse((await run(dir, ['mcp', 'import', '--from', 'gemini', '--json'])).stdout);
    expect(gemini.added).toEqual(['gem', 'gsse']);
    const again = JSON.parse((await run(dir, ['mcp', 'import', '--from', 'codex', '--json'])).stdout);
    expect(again.added).toEqual([]);
    expect(again.skipped).toEqual([
      { name: 'search', reason: 'already in project scope' },
      { name: 'cloud', reason: 'already in project scope' },
    ]);
    const byName = Object.fromEntries(servers(projectFile(dir)).map((s) => [s.name, s]));
    expect(byName.files).toEqual({
      name: 'files',
      command: 'npx',
      args: ['-y', 'server-fs', '.'],
      env: { LOG: 'debug' },
    });
    expect(byName.remote).toEqual({
      name: 'remote',
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer ${T}' },
    });
    expect(byName.old).toEqual({ name: 'old', url: 'https://archive.example.org/sse', transport: 'sse' });
    expect(byName.search).toEqual({ name: 'search', command: 'search-mcp', args: ['--fast'], timeout_ms: 12000 });
    expect(byName.cloud).toEqual({
      name: 'cloud',
      url: 'https://cloud.example.com/mcp',
      headers: { Authorization: 'Bearer ${CLOUD_TOKEN}' },
    });
    expect(byName.gem).toEqual({ name: 'gem', url: 'https://gem.example.com/mcp', headers: { 'X-K': 'v' } });
    expect(byName.gsse).toEqual({ name: 'gsse', url: 'https://g/sse', transport: 'sse' });
    // The imported file is a valid configuration: the hub loads it (servers that cannot connect just fail).
    expect((await run(dir, ['mcp', 'list'])).code).toBe(0);
    const bad = await run(dir, ['mcp', 'import', '--from', 'vscode']);
    expect(bad.stderr).toMatch(/--from: expected one of claude-code, codex, gemini, meerkat, got 'vscode'/);
    const missing = await run(dir, ['mcp', 'import', '--from', 'codex', join(dir, 'nope.toml')]);
    expect(missing.stderr).toMatch(/nope\.toml does not exist/);
  });
});
