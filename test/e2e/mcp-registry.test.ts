// `switchboard mcp search` and `mcp add --from-registry` as a person runs them: the built CLI in a child process,
// a fresh HOME, cache and project, a PATH holding stand-in npx/uvx/docker (nothing runs them here), against a
// stand-in registry serving the v0.1 API with hand-written server.json documents — never the live registry.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { runCli, tempProject } from '../helpers/cli.ts';
import { type RegistryStandIn, startRegistry } from '../helpers/registry-stand-in.ts';
import { closedPort } from '../sources/upstream/helpers.ts';

let registry: RegistryStandIn;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(() => registry.close());

/** A project using `url` as its registry, with `commands` (stand-ins that exit 0) the only ones on PATH. */
function project(url = registry.url, commands = ['npx', 'uvx', 'docker']) {
  const dir = tempProject();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const c of commands) {
    writeFileSync(join(bin, c), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, c), 0o755);
  }
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), `# ours\n[registry]\nurl = "${url}"\n`);
  const env = { HOME: join(dir, 'home'), PATH: bin, SWITCHBOARD_CACHE_DIR: join(dir, 'cache') };
  return { dir, run: (args: string[]) => runCli(dir, args, { env }) };
}

const servers = (dir: string) =>
  (parse(readFileSync(join(dir, '.switchboard/config.toml'), 'utf8')).servers ?? []) as Record<string, unknown>[];

describe('switchboard mcp search / add --from-registry', () => {
  it('searches: a table of name, version, description and offers; every word must match; --json', async () => {
    const p = project();
    const table = await p.run(['mcp', 'search', 'weather']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /io\.github\.acme\/weather\s+│ 1\.4\.0\s+│ Forecasts and current conditions.*│ npm, remote sse/,
    );
    expect(table.stdout).toContain('Add one with: switchboard mcp add --from-registry NAME');
    const json = JSON.parse((await p.run(['mcp', 'search', 'acme', 'notes', '--json'])).stdout);
    expect(json).toEqual({
      registry: registry.url,
      total: 1,
      servers: [
        {
          name: 'io.github.acme/notes',
          version: '0.6.2',
          description: 'Markdown notes in a folder, searchable and editable',
          kinds: ['pypi'],
          status: 'active',
        },
      ],
    });
    const none = await p.run(['mcp', 'search', 'nothing-like-it']);
    expect(none.stdout).toBe(`No server in the MCP registry at ${registry.url} matches 'nothing-like-it'.\n`);
    expect((await p.run(['mcp', 'search', 'x', '--limit', '500'])).stderr).toMatch(/--limit: expected a whole number/);
  });

  it('adds the latest npm version pinned, withheld until approved, and says which variables to set', async () => {
    const p = project();
    const r = await p.run(['mcp', 'add', '--from-registry', 'io.github.acme/weather']);
    expect(r.stderr).not.toMatch(/switchboard: (?!acting)/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "Added MCP server 'weather' from the MCP registry (io.github.acme/weather@1.4.0: npm @acme/weather-mcp@1.4.0 (npx)) to project scope: .switchboard/config.toml",
    );
    expect(r.stdout).toContain('run: switchboard mcp approve weather');
    expect(r.stdout).toContain(
      [
        'Set these environment variables where Switchboard runs (it connects once they are set):',
        '  WEATHER_API_KEY    secret, env — API key from https://weather.example.com/keys',
        'Optional:',
        '  WEATHER_CACHE_TTL  default "600", env — Seconds a forecast is reused',
        '  WEATHER_LOG        env (not written; add it to the entry to use it) — Log file path',
      ].join('\n'),
    );
    expect(servers(p.dir)).toEqual([
      {
        name: 'weather',
        command: 'npx',
        args: ['-y', '@acme/weather-mcp@1.4.0', '--transport', 'stdio'],
        approval: 'manual',
        env: { WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_CACHE_TTL: '${WEATHER_CACHE_TTL:-600}' },
      },
    ]);
    expect(readFileSync(join(p.dir, '.switchboard/config.toml'), 'utf8')).toMatch(/^# ours\n/);
    const loaded = loadConfig(p.dir, { SWITCHBOARD_HOME: join(p.dir, '.home') }).config;
    expect(loaded.servers.find((s) => s.name === 'weather')?.approval).toBe('manual');
  });

  it('NAME@VERSION pins that version; an unknown version lists the known ones; --name chooses the local name', async () => {
    const p = project();
    const old = await p.run(['mcp', 'add', '--from-registry', 'io.github.acme/weather@1.3.0', '--name', 'weather-old']);
    expect(old.code).toBe(0);
    expect(servers(p.dir)[0]).toMatchObject({ name: 'weather-old', args: ['-y', '@acme/weather-mcp@1.3.0'] });
    const missing = await p.run(['mcp', 'add', '--from-registry', 'io.github.acme/weather@9.9.9']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `io.github.acme/weather has no version 9.9.9 in the MCP registry at ${registry.url}. Its versions: 1.4.0, 1.3.0.`,
    );
    const again = await p.run([
      'mcp',
      'add',
      '--from-registry',
      'io.github.acme/weather@1.3.0',
      '--name',
      'weather-old',
    ]);
    expect(again.stderr).toMatch(/already exists in project scope.*Or add it under another name: --name OTHER/);
  });

  it('adds pypi through uvx, an OCI image through docker, and a remote with ${VAR} url and headers', async () => {
    const p = project();
    for (const name of ['io.github.acme/notes', 'com.example/search', 'com.example/tickets'])
      expect((await p.run(['mcp', 'add', '--from-registry', name])).code, name).toBe(0);
    const [notes, search, tickets] = servers(p.dir);
    expect(notes).toMatchObject({ command: 'uvx', args: ['notes-mcp@0.6.2', '${NOTES_DIR}'], approval: 'manual' });
    expect(search).toMatchObject({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'SEARCH_API_KEY',
        '-e',
        'SEARCH_INDEX',
        '--network',
        'host',
        'ghcr.io/example/search-mcp:2.1.0',
      ],
    });
    expect(tickets).toEqual({
      name: 'tickets',
      url: 'https://${TICKETS_TENANT}.tickets.example.com/mcp',
      headers: { Authorization: 'Bearer ${TICKETS_API_KEY}', 'X-Client': 'switchboard' },
      approval: 'manual',
    });
    expect(loadConfig(p.dir, { SWITCHBOARD_HOME: join(p.dir, '.home') }).config.servers.map((s) => s.approval)).toEqual(
      ['manual', 'manual', 'manual'],
    );
  });

  it('picks what runs on this machine: without npx the remote; without any runtime a refusal naming each offer', async () => {
    const noNode = project(registry.url, ['uvx']);
    const r = await noNode.run(['mcp', 'add', '--from-registry', 'io.github.acme/weather']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('remote sse https://mcp.weather.example.com/sse');
    expect(r.stdout).toContain('note not picked: npm @acme/weather-mcp@1.4.0: npx is not on PATH');
    expect(r.stdout).toMatch(/WEATHER_X_API_KEY\s+secret, header X-API-Key/);
    const bare = project(registry.url, []);
    const refused = await bare.run(['mcp', 'add', '--from-registry', 'io.github.acme/notes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Not added: io.github.acme/notes@0.6.2 cannot be set up on this machine:\n  - pypi notes-mcp@0.6.2: uvx is not on PATH (install uv',
    );
    const bundle = await bare.run(['mcp', 'add', '--from-registry', 'io.github.acme/mind-map']);
    expect(bundle.stderr).toMatch(/mcpb https:\/\/github\.com\/acme\/mind-map\/[^:]*: an MCPB bundle/);
    const kind = await bare.run(['mcp', 'add', '--from-registry', 'com.example/tickets', '--package', 'npm']);
    expect(kind.stderr).toContain('offers no npm package or remote; it offers: remote streamable-http');
    expect(servers(bare.dir)).toEqual([]);
  });

  it('an unknown name: says so and suggests the nearest names; bad usage exits 2', async () => {
    const p = project();
    const r = await p.run(['mcp', 'add', '--from-registry', 'io.github.acme/wether']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `No server 'io.github.acme/wether' in the MCP registry at ${registry.url}. Did you mean: io.github.acme/weather? Search with: switchboard mcp search WORDS`,
    );
    const usage: Array<[string[], RegExp]> = [
      [['mcp', 'add', '--from-registry', 'weather'], /'weather' is not a registry name: expected NAME\[@VERSION\]/],
      [['mcp', 'add', '--from-registry', 'a.b/c', '--', 'npx', 'x'], /drop a command after --/],
      [['mcp', 'add', '--from-registry', 'a.b/c', '--package', 'cargo'], /--package: expected npm, pypi, oci, remote/],
      [['mcp', 'add', 'x', '--name', 'y', '--', 'node'], /--name, --package and --refresh go with --from-registry/],
    ];
    for (const [args, message] of usage) {
      const u = await p.run(args);
      expect(u.stderr, args.join(' ')).toMatch(message);
      expect(u.code, args.join(' ')).toBe(2);
    }
  });

  it('a registry that cannot be reached or answers garbage: a clear error naming the URL and what was expected', async () => {
    const down = project(`http://127.0.0.1:${await closedPort()}`);
    const r = await down.run(['mcp', 'search', 'weather']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /The MCP registry at http:\/\/127\.0\.0\.1:\d+\/v0\.1\/servers\?search=weather&limit=20&version=latest could not be reached \(ECONNREFUSED\)\. Check \[registry\] url/,
    );
    const garbage = await startRegistry();
    garbage.mode = 'garbage';
    try {
      const g = await project(garbage.url).run(['mcp', 'add', '--from-registry', 'io.github.acme/weather']);
      expect(g.code).toBe(1);
      expect(g.stderr).toContain(
        `The MCP registry at ${garbage.url}/v0.1/servers/io.github.acme%2Fweather/versions/latest answered something that is not JSON (expected a server ({server: {name, version, packages, remotes}})): "<html>maintenance"`,
      );
    } finally {
      await garbage.close();
    }
  });

  it('caches answers for cache_ms; --refresh asks again; a failing registry falls back to the cached answer, saying so', async () => {
    const own = await startRegistry();
    try {
      const p = project(own.url);
      const list = '/v0.1/servers?search=weather';
      const count = () => own.requests.filter((r) => r.startsWith(list)).length;
      expect((await p.run(['mcp', 'search', 'weather'])).code).toBe(0);
      expect((await p.run(['mcp', 'search', 'weather'])).code).toBe(0);
      expect(count()).toBe(1);
      expect((await p.run(['mcp', 'search', 'weather', '--refresh'])).code).toBe(0);
      expect(count()).toBe(2);
      own.mode = 'error';
      const stale = await p.run(['mcp', 'search', 'weather', '--refresh']);
      expect(stale.code).toBe(0);
      expect(stale.stdout).toContain('io.github.acme/weather');
      expect(stale.stderr).toMatch(
        /registry The MCP registry at http:\/\/127\.0\.0\.1:\d+\/v0\.1\/servers\?search=weather[^ ]* answered HTTP 500: \{"error":"database unavailable"\}; using its answer cached 20\d\d-/,
      );
      // cache_ms = 0: every command asks.
      own.mode = 'ok';
      writeFileSync(join(p.dir, '.switchboard/config.toml'), `[registry]\nurl = "${own.url}"\ncache_ms = 0\n`);
      await p.run(['mcp', 'search', 'weather']);
      expect(count()).toBe(4);
    } finally {
      await own.close();
    }
  });

  it('init --from-registry adds the servers the same way, and goes on past one it cannot add', async () => {
    const p = project();
    const r = await p.run([
      'init',
      '--no-import',
      '--no-install',
      '--from-registry',
      'io.github.acme/weather',
      '--from-registry',
      'io.github.acme/nope',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("From the MCP registry:\n  Added MCP server 'weather'");
    expect(r.stdout).toContain("not added io.github.acme/nope: No server 'io.github.acme/nope'");
    expect(servers(p.dir)).toMatchObject([{ name: 'weather', approval: 'manual' }]);
  });
});
