// What `switchboard init` decides from flags, a terminal or none, and what it found; the config it writes; the
// Meerkat servers it reads.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import type { FoundServer } from '../../src/cli/init-detect.ts';
import { decideImports, decideInstalls, decideScope } from '../../src/cli/init-plan.ts';
import { configTemplate } from '../../src/cli/init-template.ts';
import { importServers } from '../../src/config/import-servers.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigSchema, ServerSchema } from '../../src/config/schema.ts';

const server = (name: string, from: FoundServer['from']): FoundServer => ({
  name,
  from,
  file: `/f/${from}`,
  entry: { name, command: name },
  secrets: [],
});
const found = [server('files', 'claude-code'), server('search', 'codex'), server('gem', 'gemini')];

describe('init decisions', () => {
  it('without a terminal and without flags: imports nothing, installs nothing, asks nothing', () => {
    expect(decideImports({}, false, found)).toEqual({ ask: false, chosen: [] });
    expect(decideInstalls({}, false, ['claude-code', 'codex'])).toEqual({ ask: false, chosen: [] });
    expect(decideScope({}, false)).toEqual({ ask: false, chosen: ['project'] });
  });

  it('on a terminal without flags: asks, suggesting everything found', () => {
    expect(decideImports({}, true, found)).toEqual({ ask: true, suggested: found });
    expect(decideInstalls({}, true, ['codex'])).toEqual({ ask: true, suggested: ['codex'] });
    expect(decideScope({}, true)).toEqual({ ask: true, suggested: ['project'] });
    // Nothing found to import: nothing to ask.
    expect(decideImports({}, true, [])).toEqual({ ask: false, chosen: [] });
  });

  it('--yes takes the suggestions without asking, on a terminal or not', () => {
    for (const tty of [true, false]) {
      expect(decideImports({ yes: true }, tty, found)).toEqual({ ask: false, chosen: found });
      expect(decideInstalls({ yes: true }, tty, ['gemini'])).toEqual({ ask: false, chosen: ['gemini'] });
      expect(decideScope({ yes: true }, tty)).toEqual({ ask: false, chosen: ['project'] });
    }
  });

  it('flags settle their question, also on a terminal and over --yes', () => {
    expect(decideImports({ import: 'codex,gemini' }, true, found)).toEqual({
      ask: false,
      chosen: [found[1], found[2]],
    });
    expect(decideImports({ import: 'all' }, false, found)).toEqual({ ask: false, chosen: found });
    expect(decideImports({ import: false, yes: true }, true, found)).toEqual({ ask: false, chosen: [] });
    expect(decideImports({ import: 'none' }, true, found)).toEqual({ ask: false, chosen: [] });
    expect(decideInstalls({ install: 'detected' }, false, ['codex'])).toEqual({ ask: false, chosen: ['codex'] });
    expect(decideInstalls({ install: 'gemini,claude-code' }, true, [])).toEqual({
      ask: false,
      chosen: ['gemini', 'claude-code'],
    });
    expect(decideInstalls({ install: false, yes: true }, true, ['codex'])).toEqual({ ask: false, chosen: [] });
    expect(decideScope({ scope: 'user' }, true)).toEqual({ ask: false, chosen: ['user'] });
  });

  it('refuses unknown clients, agents and scopes, naming what is accepted', () => {
    expect(() => decideImports({ import: 'codex,vscode' }, false, found)).toThrow(
      "--import: expected all, none, claude-code, codex, gemini, meerkat or a comma-separated list of claude-code, codex, gemini, meerkat, got 'codex,vscode'.",
    );
    expect(() => decideInstalls({ install: 'cursor' }, false, [])).toThrow(
      "--install: expected detected, none, claude-code, codex, gemini or a comma-separated list of claude-code, codex, gemini, got 'cursor'.",
    );
    expect(() => decideScope({ scope: 'global' }, false)).toThrow(
      "--scope: expected 'project' or 'user', got 'global'.",
    );
  });
});

describe('the config init writes', () => {
  it('loads with the real loader, and means the defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-init-'));
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(join(dir, '.switchboard/config.toml'), configTemplate());
    const env = { SWITCHBOARD_HOME: join(dir, '.home') };
    expect(loadConfig(dir, env).config).toEqual(ConfigSchema.parse({}));
  });

  it('explains each main section, and every commented-out setting is the default', () => {
    const text = configTemplate();
    for (const section of ['[server]', '[store]', '[handlers]', '[plugins]', '[scripts]', '[agents]', '[[servers]]'])
      expect(text).toContain(`# ── ${section} ─ `);
    // Uncomment the settings (not the [[servers]] examples, which are examples): the result is the defaults.
    const [settings, examples] = text.split('# ── [[servers]]');
    const uncommented = settings
      .split('\n')
      .filter((l) => /^# (\[[^\]]+\]|[a-z_]+ = )/.test(l))
      .map((l) => l.slice(2))
      .join('\n');
    const raw = parse(uncommented);
    expect(Object.keys(raw)).toEqual(['server', 'store', 'handlers', 'plugins', 'scripts', 'agents']);
    const defaults = ConfigSchema.parse({});
    expect(ConfigSchema.parse(raw)).toEqual(defaults);
    expect(uncommented.split('\n').length).toBeGreaterThan(15);
    // The examples are valid server entries once uncommented.
    const servers = parse(
      examples
        .split('\n')
        .filter((l) => /^# (\[\[servers\]\]|[a-z_]+ = )/.test(l))
        .map((l) => l.slice(2))
        .join('\n'),
    ).servers as unknown[];
    expect(servers).toHaveLength(2);
    for (const s of servers) expect(ServerSchema.safeParse(s).success).toBe(true);
  });
});

// Meerkat's own files go through the same in test/originals/meerkat.test.ts.
describe("Meerkat .rkat/mcp.toml (our own files in Meerkat's format)", () => {
  const fixture = resolve(import.meta.dirname, '../fixtures/meerkat-format');

  it('reads the project file, then the user file; the first name wins', () => {
    const found = importServers('meerkat', join(fixture, 'project'), undefined, { HOME: join(fixture, 'home') });
    expect(found.files).toEqual([join(fixture, 'project/.rkat/mcp.toml'), join(fixture, 'home/.rkat/mcp.toml')]);
    expect(found.servers).toEqual([
      { name: 'notes', command: 'notes-mcp', args: ['--vault', './notes', '--read-only'], env: { NOTES_LOG: 'warn' } },
      { name: 'weather', url: 'https://weather.test/mcp', startup_timeout_ms: 5_000 },
      { name: 'calendar', command: 'uvx', args: ['calendar-mcp'], startup_timeout_ms: 45_000 },
      { name: 'tracker', url: 'https://tracker.test/mcp', headers: { 'X-Api-Key': '${TRACKER_KEY}' } },
      { name: 'old-feed', url: 'https://feed.test/events', transport: 'sse' },
    ]);
    // The user file's `notes` is passed over without a word: the project's is the one that counts.
    expect(found.skipped).toEqual([]);
    expect(found.origins.notes).toBe(join(fixture, 'project/.rkat/mcp.toml'));
    expect(found.origins.tracker).toBe(join(fixture, 'home/.rkat/mcp.toml'));
    for (const s of found.servers) expect(ServerSchema.safeParse(s).success).toBe(true);
  });

  it('carries connect_timeout_secs over, and skips an OAuth server with why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-rkat-'));
    mkdirSync(join(dir, '.rkat'));
    writeFileSync(
      join(dir, '.rkat/mcp.toml'),
      '[[servers]]\nname = "slow"\ncommand = "slow-mcp"\nconnect_timeout_secs = 40\n\n[[servers]]\nname = "oauth"\nurl = "https://x/mcp"\noauth_account = "acct-1"\n',
    );
    const found = importServers('meerkat', dir, undefined, { HOME: join(dir, 'nohome') });
    expect(found.servers).toEqual([{ name: 'slow', command: 'slow-mcp', startup_timeout_ms: 40_000 }]);
    expect(found.skipped).toEqual([{ name: 'oauth', reason: expect.stringMatching(/OAuth account/) }]);
  });
});
