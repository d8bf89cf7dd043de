import { describe, expect, it } from 'vitest';
import { expandString, loadConfig, mergeConfig } from '../../src/config/load.ts';
import { configProject } from '../helpers/config-project.ts';

const project = configProject;

describe('loadConfig', () => {
  it('gives every default when no file exists', () => {
    const { dir, env } = project();
    const { config } = loadConfig(dir, env);
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 7777,
      max_body_bytes: 4194304,
      page_size: 500,
      max_sessions: 1000,
      max_sessions_per_principal: 100,
      session_idle_timeout_ms: 3_600_000,
      allowed_hosts: [],
      allowed_origins: [],
    });
    expect(config.stdio.roles).toEqual(['*']);
    expect(config.servers).toEqual([]);
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
