import { describe, expect, it } from 'vitest';
import { expandString, loadConfig, mergeConfig } from '../../src/config/load.ts';
import { configProject } from '../helpers/config-project.ts';

const project = configProject;

describe('loadConfig', () => {
  it('gives every default when no file exists', () => {
    const { dir, env } = project();
    const { config } = loadConfig(dir, env);
    // The documented defaults (docs/configuration.md), written out: each table is filled by its keys' own defaults.
    expect(config).toStrictEqual({
      server: {
        host: '127.0.0.1',
        port: 7777,
        max_body_bytes: 4 * 1024 * 1024,
        page_size: 500,
        max_sessions: 1000,
        max_sessions_per_principal: 100,
        session_idle_timeout_ms: 3_600_000,
        allowed_hosts: [],
        allowed_origins: [],
      },
      store: {
        kind: 'sqlite',
        path: '.switchboard/state.db',
        url: 'redis://127.0.0.1:6379',
        prefix: 'switchboard:',
        idempotency_retention_hours: 24,
      },
      handlers: { paths: ['.switchboard/handlers'], watch: true },
      plugins: { paths: [], enabled: [], disabled: [], watch: true, claude_code: true, retention_days: 90 },
      policy: {
        timeout_ms: 30_000,
        breaker: { threshold: 5, reset_ms: 30_000, half_open_probes: 1 },
        max_concurrent_per_principal: 64,
        capabilities: {},
        tokens: {},
      },
      audit: { enabled: true, retention_days: 30, max_input_bytes: 4096 },
      expose: { allow: [], deny: [] },
      profiles: {},
      registry: { url: 'https://registry.modelcontextprotocol.io', cache_ms: 3_600_000 },
      sandbox: { enabled: true },
      catalog: {
        exposure: 'full',
        pin: [],
        run: { timeout_ms: 30_000, memory_bytes: 64 * 1024 * 1024, max_calls: 100, max_running: 4 },
      },
      servers: [],
      system: { instance_ttl_ms: 30_000, test_tools: false },
      events: { retain: 1000 },
      scripts: {
        enabled: true,
        step_timeout_ms: 600_000,
        call_timeout_ms: 1_800_000,
        max_output_bytes: 1024 * 1024,
        retention_days: 7,
        unfinished_retention_days: 7,
      },
      stdio: { roles: ['*'], max_message_bytes: 10 * 1024 * 1024, idle_timeout_ms: 600_000 },
      workspace: { extra_dirs: [] },
      compat: { claudebench_rpc: false },
      agents: {
        default_provider: 'claude-cli',
        max_tokens: 4096,
        max_model_calls: 50,
        turn_timeout_ms: 1_800_000,
        sync_timeout_ms: 600_000,
        max_running: 20,
        max_output_chars: 20_000,
        builtins: true,
        shell: true,
        providers: {
          'claude-cli': { command: 'claude', permission_mode: 'acceptEdits', env: {} },
          anthropic: { model: 'claude-sonnet-5' },
          openai: { model: 'gpt-5.4' },
          gemini: { model: 'gemini-3.5-flash' },
        },
      },
    });
  });

  it('fills the keys a table leaves out, and the tables inside it, with their defaults', () => {
    const { dir, env } = project(
      '[policy]\ntimeout_ms = 5000\n[agents.providers.openai]\napi_key = "k"\n[[servers]]\nname = "fs"\ncommand = "a"\n',
    );
    const { config } = loadConfig(dir, env);
    expect(config.policy.timeout_ms).toBe(5000);
    expect(config.policy.breaker).toEqual({ threshold: 5, reset_ms: 30_000, half_open_probes: 1 });
    expect(config.agents.providers.openai).toEqual({ api_key: 'k', model: 'gpt-5.4' });
    expect(config.agents.providers.anthropic).toEqual({ model: 'claude-sonnet-5' });
    expect(config.agents.max_running).toBe(20);
    expect(config.servers[0].tools).toEqual({ allow: [], deny: [] });
  });

  it('lets the project win over the user scope, key by key', () => {
    const { dir, env } = project('[server]\nport = 9000\n', '[server]\nport = 8000\nallowed_hosts = ["box.local"]\n');
    const { config } = loadConfig(dir, env);
    expect(config.server.port).toBe(9000);
    expect(config.server.allowed_hosts).toEqual(['box.local']);
  });

  it('expands ${VAR} and ${VAR:-default}', () => {
    const { dir, env } = project(
      '[store]\npath = "${STATE_DIR:-.state}/db.sqlite"\n[server]\nallowed_hosts = ["${HOST_A}"]\n',
    );
    const { config } = loadConfig(dir, { ...env, HOST_A: 'a.local' });
    expect(config.store.path).toBe('.state/db.sqlite');
    expect(config.server.allowed_hosts).toEqual(['a.local']);
  });

  it('names the field of a missing variable without default', () => {
    const { dir, env } = project('[server]\nallowed_hosts = ["${NOT_SET_ANYWHERE}"]\n');
    expect(() => loadConfig(dir, env)).toThrow(
      /server\.allowed_hosts\[0\]: environment variable NOT_SET_ANYWHERE is not set/,
    );
  });

  it('keeps ${VAR} in [[servers]] for each server to expand when it connects', () => {
    const { dir, env } = project(
      '[[servers]]\nname = "api"\nurl = "https://h/mcp"\nheaders = { Authorization = "Bearer ${NOT_SET_ANYWHERE}" }\n',
    );
    const { config } = loadConfig(dir, env);
    expect(config.servers[0].headers).toEqual({ Authorization: 'Bearer ${NOT_SET_ANYWHERE}' });
  });

  it('refuses a server with both command and url, or neither, naming it', () => {
    const both = project('[[servers]]\nname = "x"\ncommand = "a"\nurl = "http://h"\n');
    expect(() => loadConfig(both.dir, both.env)).toThrow(/server 'x' has both command and url/);
    const neither = project('[[servers]]\nname = "y"\n');
    expect(() => loadConfig(neither.dir, neither.env)).toThrow(/server 'y' needs either command .* or url/);
    const twice = project('[[servers]]\nname = "z"\ncommand = "a"\n[[servers]]\nname = "z"\ncommand = "b"\n');
    expect(() => loadConfig(twice.dir, twice.env)).toThrow(/server 'z' is defined twice in one file/);
  });

  it('takes max_message_bytes for stdio and per stdio server, and refuses it on a url server, naming it', () => {
    const ok = project(
      '[stdio]\nmax_message_bytes = 2048\n[[servers]]\nname = "fs"\ncommand = "a"\nmax_message_bytes = 4096\n',
    );
    const { config } = loadConfig(ok.dir, ok.env);
    expect([config.stdio.max_message_bytes, config.servers[0].max_message_bytes]).toEqual([2048, 4096]);
    const url = project('[[servers]]\nname = "api"\nurl = "http://h"\nmax_message_bytes = 4096\n');
    expect(() => loadConfig(url.dir, url.env)).toThrow(
      /server 'api' has a url: max_message_bytes limits the lines a stdio server/,
    );
    const small = project('[stdio]\nmax_message_bytes = 10\n');
    expect(() => loadConfig(small.dir, small.env)).toThrow(/stdio\.max_message_bytes/);
  });

  it('lets a project server replace a user server of the same name', () => {
    const { dir, env } = project(
      '[[servers]]\nname = "fs"\ncommand = "project-fs"\n',
      '[[servers]]\nname = "fs"\ncommand = "user-fs"\n[[servers]]\nname = "gh"\ncommand = "gh"\n',
    );
    const { config } = loadConfig(dir, env);
    expect(config.servers.map((s) => [s.name, s.command])).toEqual([
      ['fs', 'project-fs'],
      ['gh', 'gh'],
    ]);
  });

  it('names the file, line and column of a TOML syntax error', () => {
    const { dir, env } = project('[server]\nport = 1\nhost = "x\n');
    expect(() => loadConfig(dir, env)).toThrow(/config\.toml:3:\d+: Invalid TOML document/);
  });

  it('names an unknown key, also in the user file', () => {
    const { dir, env } = project(undefined, '[server]\nhots = "x"\n');
    expect(() => loadConfig(dir, env)).toThrow(/unknown key 'server\.hots'/);
    const p = project('[nonsense]\na = 1\n');
    expect(() => loadConfig(p.dir, p.env)).toThrow(/unknown key 'nonsense'/);
  });

  it('says what was expected for a wrong type', () => {
    const { dir, env } = project('[server]\nport = "seven"\n');
    expect(() => loadConfig(dir, env)).toThrow(/server\.port: .*expected number/);
  });

  it('refuses a negative scripts.unfinished_retention_days, naming it', () => {
    const { dir, env } = project('[scripts]\nunfinished_retention_days = -1\n');
    expect(() => loadConfig(dir, env)).toThrow(/scripts\.unfinished_retention_days: .*>=0/);
    const ok = project('[scripts]\nunfinished_retention_days = 0.5\n');
    expect(loadConfig(ok.dir, ok.env).config.scripts.unfinished_retention_days).toBe(0.5);
  });
});

describe('mergeConfig', () => {
  it('merges arrays of named tables by name, project first', () => {
    const merged = mergeConfig(
      { servers: [{ name: 'a', url: 'user' }, { name: 'b' }] },
      { servers: [{ name: 'a', url: 'project' }] },
    );
    expect(merged.servers).toEqual([{ name: 'a', url: 'project' }, { name: 'b' }]);
  });
});

describe('expandString', () => {
  it('treats an empty variable as unset so the default applies', () => {
    expect(expandString('${EMPTY:-fallback}', 'x', { EMPTY: '' })).toBe('fallback');
  });
  it('leaves text without variables alone', () => {
    expect(expandString('plain $HOME text', 'x', {})).toBe('plain $HOME text');
  });
});
