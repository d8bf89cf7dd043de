// `switchboard install|uninstall codex|gemini` (and what uninstall claude-code leaves): each agent's own file gets
// the entry that starts Switchboard, everything else in it survives byte for byte, and uninstall takes back
// exactly that — deleting the files and folders install created. The entry starts this install's own launcher by
// absolute path (no npx, no registry); `--npx` writes the package-name form.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as jsonc } from 'jsonc-parser';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempProject } from '../helpers/cli.ts';

/** What the install writes: this checkout's launcher, which the built CLI under test runs from. */
const SERVE = { command: BIN, args: ['serve'] };
/** Codex's entry also makes Codex wait for it (issue 29: `codex exec` went on without it otherwise). */
const CODEX_SERVE = { ...SERVE, required: true, startup_timeout_sec: 60 };

function machine() {
  const dir = tempProject();
  const home = join(dir, 'home');
  mkdirSync(home);
  const env = { HOME: home, CODEX_HOME: join(home, 'codex'), PATH: '/usr/bin:/bin' };
  return { dir, home, run: (args: string[]) => runCli(dir, args, { env, timeoutMs: 20_000 }) };
}

describe('switchboard install codex', () => {
  it('user scope: [mcp_servers.switchboard] in $CODEX_HOME/config.toml; the user’s file survives install+uninstall unchanged', async () => {
    const m = machine();
    mkdirSync(join(m.home, 'codex'));
    const file = join(m.home, 'codex/config.toml');
    const mine =
      '# Codex, my way\nmodel = "o3"            # fast enough\napproval_policy = "on-request"\n\n[mcp_servers.github]\n# the GitHub server\ncommand = "gh-mcp"\nenv = { GH_TOKEN = "x" }\n\n[projects."/src/app"]\ntrust_level = "trusted"\n';
    writeFileSync(file, mine);
    const r = await m.run(['install', 'codex', '--scope', 'user']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Installed Switchboard for Codex (user scope): [mcp_servers.switchboard] in ${file}`);
    expect(r.stdout).toContain('start codex at the project root');
    const installed = readFileSync(file, 'utf8');
    expect(installed.startsWith(mine)).toBe(true);
    const toml = parse(installed) as { mcp_servers: Record<string, unknown>; model: string };
    expect(toml.mcp_servers).toEqual({
      github: { command: 'gh-mcp', env: { GH_TOKEN: 'x' } },
      switchboard: CODEX_SERVE,
    });
    expect(toml.model).toBe('o3');
    // Idempotent: the second install writes nothing.
    const again = await m.run(['install', 'codex', '--scope', 'user']);
    expect(again.stdout).toContain('Already installed: Switchboard for Codex');
    expect(readFileSync(file, 'utf8')).toBe(installed);
    // The project is not touched by a user-scope install.
    expect(existsSync(join(m.dir, '.codex'))).toBe(false);

    const u = await m.run(['uninstall', 'codex', '--scope', 'user']);
    expect(u.code).toBe(0);
    expect(u.stdout).toContain(`Removed Switchboard from Codex (user scope): [mcp_servers.switchboard] in ${file}.`);
    expect(readFileSync(file, 'utf8')).toBe(mine);
    const twice = await m.run(['uninstall', 'codex', '--scope', 'user']);
    expect(twice.stdout).toContain('Switchboard is not installed for Codex (user scope)');
    expect(readFileSync(file, 'utf8')).toBe(mine);
  });

  it('project scope: creates .codex/config.toml (and says Codex must trust the project); uninstall deletes both', async () => {
    const m = machine();
    const r = await m.run(['install', 'codex', '--scope', 'project']);
    expect(r.code).toBe(0);
    expect(parse(readFileSync(join(m.dir, '.codex/config.toml'), 'utf8'))).toEqual({
      mcp_servers: { switchboard: CODEX_SERVE },
    });
    expect(r.stdout).toContain('Codex reads .codex/config.toml only in a trusted project');
    expect(r.stdout).toContain(`[projects."${m.dir}"] trust_level = "trusted"`);
    const u = await m.run(['uninstall', 'codex']);
    expect(u.stdout).toContain('deleted');
    expect(existsSync(join(m.dir, '.codex'))).toBe(false);
    expect(existsSync(join(m.home, 'codex'))).toBe(false);
  });

  it('--npx writes the package-name form, for a config file a team shares; a later install replaces it', async () => {
    const m = machine();
    expect((await m.run(['install', 'codex', '--npx'])).code).toBe(0);
    const file = join(m.dir, '.codex/config.toml');
    expect(parse(readFileSync(file, 'utf8'))).toEqual({
      mcp_servers: {
        switchboard: {
          command: 'npx',
          args: ['-y', 'switchboard-mcp', 'serve'],
          required: true,
          startup_timeout_sec: 60,
        },
      },
    });
    expect((await m.run(['install', 'codex'])).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8'))).toEqual({ mcp_servers: { switchboard: CODEX_SERVE } });
  });

  it('refuses a config.toml that is not TOML, writing nothing', async () => {
    const m = machine();
    mkdirSync(join(m.dir, '.codex'));
    writeFileSync(join(m.dir, '.codex/config.toml'), 'model = \n');
    const r = await m.run(['install', 'codex']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(m.dir, '.codex/config.toml')} is not valid TOML`);
    expect(readFileSync(join(m.dir, '.codex/config.toml'), 'utf8')).toBe('model = \n');
  });
});

describe('switchboard install gemini', () => {
  it('project scope: mcpServers.switchboard in .gemini/settings.json; comments and entries survive install+uninstall byte for byte', async () => {
    const m = machine();
    mkdirSync(join(m.dir, '.gemini'));
    const file = join(m.dir, '.gemini/settings.json');
    const mine =
      '{\n  // my Gemini settings\n  "theme": "GitHub",\n  "mcpServers": {\n    "files": { "command": "fs-mcp", "trust": true } // keep this one\n  },\n  "autoAccept": false, /* trailing comma next */\n}\n';
    writeFileSync(file, mine);
    const r = await m.run(['install', 'gemini']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `Installed Switchboard for Gemini CLI (project scope): mcpServers.switchboard in ${file}`,
    );
    const installed = readFileSync(file, 'utf8');
    expect(installed).toContain('// my Gemini settings');
    expect(installed).toContain('// keep this one');
    expect(jsonc(installed)).toEqual({
      theme: 'GitHub',
      mcpServers: { switchboard: SERVE, files: { command: 'fs-mcp', trust: true } },
      autoAccept: false,
    });
    expect((await m.run(['install', 'gemini'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(installed);
    expect((await m.run(['uninstall', 'gemini'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(mine);
  });

  it('user scope: creates ~/.gemini/settings.json; uninstall deletes it and the folder, but not a folder with other files', async () => {
    const m = machine();
    expect((await m.run(['install', 'gemini', '--scope', 'user'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(m.home, '.gemini/settings.json'), 'utf8'))).toEqual({
      mcpServers: { switchboard: SERVE },
    });
    expect(existsSync(join(m.dir, '.gemini'))).toBe(false);
    expect((await m.run(['uninstall', 'gemini', '--scope', 'user'])).code).toBe(0);
    expect(existsSync(join(m.home, '.gemini'))).toBe(false);

    expect((await m.run(['install', 'gemini', '--scope', 'user'])).code).toBe(0);
    writeFileSync(join(m.home, '.gemini/oauth_creds.json'), '{}');
    expect((await m.run(['uninstall', 'gemini', '--scope', 'user'])).code).toBe(0);
    expect(existsSync(join(m.home, '.gemini/settings.json'))).toBe(false);
    expect(readFileSync(join(m.home, '.gemini/oauth_creds.json'), 'utf8')).toBe('{}');
  });

  it('deletes a settings.json left with nothing in it, even one that was `{}` before (an empty file says nothing)', async () => {
    const m = machine();
    mkdirSync(join(m.dir, '.gemini'));
    writeFileSync(join(m.dir, '.gemini/settings.json'), '{\n}\n');
    expect((await m.run(['install', 'gemini'])).code).toBe(0);
    expect((await m.run(['uninstall', 'gemini'])).code).toBe(0);
    expect(existsSync(join(m.dir, '.gemini/settings.json'))).toBe(false);
  });
});

describe('switchboard uninstall claude-code', () => {
  it('deletes the files and folders install created, when nothing else is in them', async () => {
    const m = machine();
    expect((await m.run(['install', 'claude-code'])).code).toBe(0);
    for (const p of ['.mcp.json', '.claude/settings.json', '.claude/commands', '.switchboard/scripts/nl'])
      expect(existsSync(join(m.dir, p))).toBe(true);
    expect((await m.run(['uninstall', 'claude-code'])).code).toBe(0);
    for (const p of ['.mcp.json', '.claude', '.switchboard']) expect(existsSync(join(m.dir, p))).toBe(false);
  });

  it('keeps what holds something else: a script the user wrote, their own settings', async () => {
    const m = machine();
    expect((await m.run(['install', 'claude-code'])).code).toBe(0);
    writeFileSync(join(m.dir, '.switchboard/scripts/nl/mine.md'), '# Mine\n');
    const settings = JSON.parse(readFileSync(join(m.dir, '.claude/settings.json'), 'utf8'));
    writeFileSync(join(m.dir, '.claude/settings.json'), JSON.stringify({ ...settings, model: 'opus' }));
    expect((await m.run(['uninstall', 'claude-code'])).code).toBe(0);
    expect(existsSync(join(m.dir, '.mcp.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(m.dir, '.claude/settings.json'), 'utf8'))).toEqual({ model: 'opus' });
    expect(readFileSync(join(m.dir, '.switchboard/scripts/nl/mine.md'), 'utf8')).toBe('# Mine\n');
  });
});
