// Meerkat's `[[servers]]` keys in Switchboard's own configuration: `.rkat/mcp.toml` files in Meerkat's format (our
// own, test/fixtures/meerkat-format) load as `.switchboard/config.toml` with their keys mapped, and a key Switchboard
// has no use for is refused naming the file and the key — by serve's check and by `mcp import`. Meerkat's own files
// load the same way in test/originals/meerkat.test.ts. And the project's own .rkat/mcp.toml as serve reads it live.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importServers } from '../../src/config/import-servers.ts';
import { loadConfig } from '../../src/config/load.ts';
import { readRkatServers } from '../../src/config/rkat-servers.ts';
import { addServer } from '../../src/config/server-entries.ts';
import { configProject } from '../helpers/config-project.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/meerkat-format');

const project = configProject;

/** A file in Meerkat's format used unchanged as the project's config.toml (it holds only `[[servers]]` tables). */
function asConfig(fixture: string) {
  const p = project();
  copyFileSync(join(FIXTURES, fixture, '.rkat/mcp.toml'), join(p.dir, '.switchboard/config.toml'));
  return loadConfig(p.dir, p.env).config.servers;
}

describe("Meerkat's mcp.toml keys in Switchboard's config", () => {
  it('the files load unchanged: connect_timeout_secs is startup_timeout_ms, url servers are http or sse', () => {
    const project = asConfig('project');
    expect(project.map((s) => [s.name, s.command ?? s.url, s.transport, s.startup_timeout_ms])).toEqual([
      ['notes', 'notes-mcp', undefined, 30_000],
      ['weather', 'https://weather.test/mcp', undefined, 5_000],
      ['calendar', 'uvx', undefined, 45_000],
    ]);
    expect(project[0]).toMatchObject({ args: ['--vault', './notes', '--read-only'], env: { NOTES_LOG: 'warn' } });
    const home = asConfig('home');
    expect(home.map((s) => [s.name, s.command ?? s.url, s.transport])).toEqual([
      ['notes', 'notes-mcp-nightly', undefined],
      ['tracker', 'https://tracker.test/mcp', undefined],
      ['old-feed', 'https://feed.test/events', 'sse'],
    ]);
    // Headers keep their ${VAR} for the server to expand when it connects, as in Meerkat.
    expect(home[1].headers).toEqual({ 'X-Api-Key': '${TRACKER_KEY}' });
  });

  it('transport = "streamable-http" (what Meerkat writes for an explicit Streamable HTTP server) is http', () => {
    const { dir, env } = project(
      '[[servers]]\nname = "remote"\nurl = "https://tickets.example.org/mcp"\ntransport = "streamable-http"\nconnect_timeout_secs = 3\n',
    );
    expect(loadConfig(dir, env).config.servers[0]).toMatchObject({ transport: 'http', startup_timeout_ms: 3000 });
  });

  it('refuses what it cannot use, naming the file, the server and the key', () => {
    const cases: Array<[string, RegExp]> = [
      [
        '[[servers]]\nname = "api"\nurl = "https://h/mcp"\noauth_scope = "read"\n',
        /config\.toml\): servers\.api: unknown key 'servers\.api\.oauth_scope' \(a server takes name, command, .*connect_timeout_secs\)/,
      ],
      [
        '[[servers]]\nname = "api"\nurl = "https://h/mcp"\ntransport = "websocket"\n',
        /servers\.api\.transport: expected stdio, http \(or streamable-http\) or sse, got "websocket"/,
      ],
      [
        '[[servers]]\nname = "fs"\ncommand = "fs"\nconnect_timeout_secs = 0\n',
        /servers\.fs\.connect_timeout_secs: expected a whole number of seconds, at least 1/,
      ],
      [
        '[[servers]]\nname = "fs"\ncommand = "fs"\nconnect_timeout_secs = 5\nstartup_timeout_ms = 100\n',
        /servers\.fs\.connect_timeout_secs: give either connect_timeout_secs .* or startup_timeout_ms, not both/,
      ],
      [
        '[[servers]]\nname = "fs"\ncommand = "fs"\ntransport = "streamable-http"\n',
        /server 'fs' runs a command, so its transport is stdio, not http/,
      ],
    ];
    for (const [toml, message] of cases) {
      const { dir, env } = project(toml);
      expect(() => loadConfig(dir, env)).toThrow(message);
    }
  });

  it('a problem in the user file is reported in the user file', () => {
    const { dir, env } = project('[server]\nport = 7777\n', '[[servers]]\nname = "u"\ncommand = "u"\nretries = 3\n');
    expect(() => loadConfig(dir, env)).toThrow(
      new RegExp(`Invalid configuration \\(${join(dir, 'home/config.toml')}\\): servers\\.u: unknown key`),
    );
  });

  it('mcp add refuses an entry that would leave a configuration serve refuses, and writes nothing', () => {
    const { dir, env } = project('[[servers]]\nname = "old"\ncommand = "x"\nbogus = 1\n');
    const before = readFileSync(join(dir, '.switchboard/config.toml'), 'utf8');
    expect(() => addServer('project', dir, { name: 'new', command: 'y' }, env)).toThrow(
      /servers\.old: unknown key 'servers\.old\.bogus'/,
    );
    expect(readFileSync(join(dir, '.switchboard/config.toml'), 'utf8')).toBe(before);
  });
});

describe('mcp import --from meerkat', () => {
  it("writes Switchboard's spelling, and skips an entry with a key it cannot use, naming the file and key", () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-rkat-'));
    mkdirSync(join(dir, '.rkat'));
    const file = join(dir, '.rkat/mcp.toml');
    writeFileSync(
      file,
      '[[servers]]\nname = "remote"\nurl = "https://h/mcp"\ntransport = "streamable-http"\nconnect_timeout_secs = 4\n\n' +
        '[[servers]]\nname = "future"\ncommand = "x"\nfuture_server_key = "leave-this-too"\n',
    );
    const found = importServers('meerkat', dir, undefined, { HOME: join(dir, 'nohome') });
    expect(found.servers).toEqual([{ name: 'remote', url: 'https://h/mcp', startup_timeout_ms: 4000 }]);
    expect(found.skipped).toEqual([
      { name: 'future', reason: expect.stringContaining(`${file}: unknown key 'future_server_key' (a server takes`) },
    ]);
  });
});

describe('readRkatServers: a project’s .rkat/mcp.toml as serve serves it', () => {
  const withRkat = (toml: string) => {
    const p = project();
    mkdirSync(join(p.dir, '.rkat'));
    writeFileSync(join(p.dir, '.rkat/mcp.toml'), toml);
    return p.dir;
  };

  it("our fixture's servers in Switchboard's spelling; no file, no servers", () => {
    const dir = project().dir;
    expect(readRkatServers(dir).servers).toEqual([]);
    const fixture = project();
    mkdirSync(join(fixture.dir, '.rkat'));
    copyFileSync(join(FIXTURES, 'project/.rkat/mcp.toml'), join(fixture.dir, '.rkat/mcp.toml'));
    const { servers } = readRkatServers(fixture.dir);
    expect(servers.length).toBeGreaterThan(0);
    for (const s of servers) expect(s).not.toHaveProperty('connect_timeout_secs');
  });

  it('what cannot be served is one error naming the file, each server and key', () => {
    const dir = withRkat(
      [
        'other = 1',
        '[[servers]]\nname = "a"\ncommand = "x"',
        '[[servers]]\nname = "a"\ncommand = "y"',
        '[[servers]]\nname = "login"\nurl = "https://h/mcp"\noauth_account = "me"',
        '[[servers]]\nname = "slow"\ncommand = "x"\nconnect_timeout_secs = 0',
        '[[servers]]\ncommand = "nameless"',
      ].join('\n'),
    );
    const file = join(dir, '.rkat/mcp.toml');
    expect(() => readRkatServers(dir)).toThrow(
      `Invalid Meerkat server file (${file}): unknown key 'other' (Meerkat's file has [[servers]]); servers.a: the name is given twice; servers.login.oauth_account: Meerkat's OAuth login is not Switchboard's; give the server its headers; servers.slow: connect_timeout_secs: expected a whole number of seconds, at least 1 (Meerkat's name for startup_timeout_ms), got 0; servers.4: expected a table with a name`,
    );
  });
});
