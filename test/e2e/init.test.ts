// `switchboard init` as a person runs it: the built CLI in a child process, HOME and CODEX_HOME in temp folders,
// a PATH without any agent on it; and once on a real pseudo-terminal (script(1)) answering the prompts.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';

/** Every file under `root` with its bytes (folders as entries too): what "nothing else touched" compares. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        out[`${relative(root, path)}/`] = '';
        walk(path);
      } else out[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return out;
}

function machine() {
  const dir = tempProject();
  const home = join(dir, 'home');
  const codexHome = join(dir, 'codex-home');
  mkdirSync(home);
  const env = { HOME: home, CODEX_HOME: codexHome, PATH: '/usr/bin:/bin' };
  return { dir, home, codexHome, env, run: (args: string[]) => runCli(dir, args, { env, timeoutMs: 20_000 }) };
}

const servers = (dir: string) =>
  (parse(readFileSync(join(dir, '.switchboard/config.toml'), 'utf8')).servers ?? []) as Array<Record<string, unknown>>;

describe('switchboard init', () => {
  it('in an empty folder: writes a config that loads, prints the next steps, touches nothing else', async () => {
    const m = machine();
    const r = await m.run(['init']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(Object.keys(snapshot(m.dir)).sort()).toEqual(['.switchboard/', '.switchboard/config.toml', 'home/']);
    expect(r.stdout).toContain('Wrote .switchboard/config.toml');
    expect(r.stdout).toContain('No MCP servers found');
    expect(r.stdout).toContain('No coding agent found');
    expect(r.stdout).toContain('Next steps');
    expect(r.stdout).toContain('switchboard mcp list --status');
    expect(r.stdout).toContain('switchboard serve');
    // The CLI loads it: the hub starts on it and lists its tools.
    const tools = await m.run(['tools', 'list', '--json']);
    expect(tools.code).toBe(0);
    expect(JSON.parse(tools.stdout).map((t: { name: string }) => t.name)).toContain('task__create');
    // A second init keeps the file as it is.
    writeFileSync(join(m.dir, '.switchboard/config.toml'), '# mine\n[server]\nport = 9000\n');
    const again = await m.run(['init']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('.switchboard/config.toml exists; kept as it is');
    expect(readFileSync(join(m.dir, '.switchboard/config.toml'), 'utf8')).toBe('# mine\n[server]\nport = 9000\n');
  });

  it('with Claude Code and Codex configs and flags: imports the servers, connects both agents, and again changes nothing', async () => {
    const m = machine();
    writeFileSync(
      join(m.dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['-y', 'server-fs', '.'] } } }),
    );
    mkdirSync(join(m.dir, '.claude'));
    mkdirSync(m.codexHome);
    const codexConfig =
      '# my Codex settings\nmodel = "o3"  # the fast one\n\n[mcp_servers.search]\ncommand = "search-mcp"\nargs = ["--fast"]\n';
    writeFileSync(join(m.codexHome, 'config.toml'), codexConfig);
    // ~/.codex is not Codex's home while CODEX_HOME is set: its servers are not Codex's.
    mkdirSync(join(m.home, '.codex'));
    writeFileSync(join(m.home, '.codex/config.toml'), '[mcp_servers.decoy]\ncommand = "decoy"\n');

    const r = await m.run(['init', '--import', 'all', '--install', 'detected', '--scope', 'user']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/files +claude-code: .*\.mcp\.json/);
    expect(r.stdout).toMatch(/search +codex: .*codex-home\/config\.toml/);
    expect(r.stdout).not.toContain('decoy');
    expect(servers(m.dir)).toEqual([
      { name: 'files', command: 'npx', args: ['-y', 'server-fs', '.'] },
      { name: 'search', command: 'search-mcp', args: ['--fast'] },
    ]);
    // Both agents connected in the user scope, each in its own file; the Codex file keeps the user's bytes.
    // This install's launcher by absolute path; Codex is told to wait for it.
    const serve = { command: BIN, args: ['serve'] };
    expect(JSON.parse(readFileSync(join(m.home, '.claude.json'), 'utf8')).mcpServers.switchboard).toEqual({
      type: 'stdio',
      ...serve,
    });
    const codexAfter = readFileSync(join(m.codexHome, 'config.toml'), 'utf8');
    expect(codexAfter.startsWith(codexConfig)).toBe(true);
    expect((parse(codexAfter).mcp_servers as Record<string, unknown>).switchboard).toEqual({
      ...serve,
      required: true,
      startup_timeout_sec: 60,
    });
    expect(r.stdout).toContain('Installed Switchboard for Claude Code (user scope)');
    expect(r.stdout).toContain('Installed Switchboard for Codex (user scope)');
    // Each client still starts what was imported from it: the next steps say how to drop those entries there.
    const next = r.stdout.slice(r.stdout.indexOf('Next steps'));
    expect(next).toContain(
      'Claude Code still starts them itself: once it reaches them through Switchboard, remove them there (claude mcp remove files)',
    );
    expect(next).toContain(
      'Codex still starts them itself: once it reaches them through Switchboard, remove them there (codex mcp remove search)',
    );

    const before = { project: snapshot(m.dir) };
    const again = await m.run(['init', '--import', 'all', '--install', 'detected', '--scope', 'user']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/files .*already in Switchboard, project scope; skipped/);
    expect(again.stdout).toMatch(/search .*already in Switchboard, project scope; skipped/);
    // Switchboard's own entries are recognised as the agents being connected, never imported as servers.
    expect(again.stdout).toMatch(/claude-code \([^)]*; connected to Switchboard\)/);
    expect(again.stdout).toMatch(/codex \([^)]*; connected to Switchboard\)/);
    expect(again.stdout).toContain('Already installed: Switchboard for Codex');
    expect(snapshot(m.dir)).toEqual(before.project);
    expect((await m.run(['mcp', 'list', '--json'])).code).toBe(0);
  });

  it('names in its next steps only the servers it imported: a same-named one of another client stays there', async () => {
    const m = machine();
    writeFileSync(join(m.dir, '.mcp.json'), JSON.stringify({ mcpServers: { files: { command: 'fs-mcp' } } }));
    mkdirSync(m.codexHome);
    writeFileSync(join(m.codexHome, 'config.toml'), '[mcp_servers.files]\ncommand = "other-fs"\n');
    const r = await m.run(['init', '--import', 'all', '--install', 'none']);
    expect(r.code).toBe(0);
    expect(servers(m.dir)).toEqual([{ name: 'files', command: 'fs-mcp' }]);
    expect(r.stdout).toMatch(/files \(codex\) not importable: same name as the one from claude-code/);
    const next = r.stdout.slice(r.stdout.indexOf('Next steps'));
    expect(next).toContain('remove them there (claude mcp remove files)');
    expect(next).not.toContain('codex mcp remove');
  });

  it('without a terminal or flags: writes the config only, and prints the commands for the rest', async () => {
    const m = machine();
    const mcp = JSON.stringify({ mcpServers: { files: { command: 'fs-mcp' } } });
    writeFileSync(join(m.dir, '.mcp.json'), mcp);
    mkdirSync(join(m.dir, '.claude'));
    mkdirSync(m.codexHome);
    writeFileSync(join(m.codexHome, 'config.toml'), '[mcp_servers.search]\ncommand = "search-mcp"\n');
    const r = await m.run(['init']);
    expect(r.code).toBe(0);
    expect(servers(m.dir)).toEqual([]);
    expect(readFileSync(join(m.dir, '.mcp.json'), 'utf8')).toBe(mcp);
    expect(Object.keys(snapshot(m.dir)).sort()).toEqual([
      '.claude/',
      '.mcp.json',
      '.switchboard/',
      '.switchboard/config.toml',
      'codex-home/',
      'codex-home/config.toml',
      'home/',
    ]);
    const next = r.stdout.slice(r.stdout.indexOf('Next steps'));
    for (const command of [
      'switchboard mcp import --from claude-code',
      'switchboard mcp import --from codex',
      'switchboard install claude-code',
      'switchboard install codex',
    ])
      expect(next).toContain(`    ${command}\n`);
    expect(next).not.toContain('install gemini');
  });

  it('finds an agent by its command on PATH, and refuses bad flags before writing anything', async () => {
    const m = machine();
    const bin = join(m.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'gemini'), '#!/bin/sh\n', { mode: 0o755 });
    const r = await runCli(m.dir, ['init', '--install', 'detected', '--no-import'], {
      env: { ...m.env, PATH: `${bin}:/usr/bin:/bin` },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Agents found: gemini (gemini on PATH)');
    expect(JSON.parse(readFileSync(join(m.dir, '.gemini/settings.json'), 'utf8'))).toEqual({
      mcpServers: { switchboard: { command: BIN, args: ['serve'] } },
    });

    const other = machine();
    const bad = await other.run(['init', '--install', 'cursor']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--install: expected detected, none, claude-code, codex, gemini or a comma-separated list',
    );
    expect(Object.keys(snapshot(other.dir))).toEqual(['home/']);
  });

  it('on a terminal asks with prompts, and does what was answered', async () => {
    const m = machine();
    writeFileSync(join(m.dir, '.mcp.json'), JSON.stringify({ mcpServers: { files: { command: 'fs-mcp' } } }));
    mkdirSync(join(m.dir, '.claude'));
    // Answers: untick the one server (space) and confirm; keep claude-code ticked; pick "every project" (down).
    const answers: Array<[string, string]> = [
      ['Import these servers', ' \r'],
      ['Connect these agents', '\r'],
      ['agents’ config for', '\x1b[B\r'],
    ];
    const { code, screen } = await onTerminal(m.dir, m.env, answers);
    expect(code).toBe(0);
    expect(answers).toEqual([]);
    expect(screen).toContain('◆  Import these servers into .switchboard/config.toml?');
    expect(screen).toMatch(/◻ files \(claude-code: .*\.mcp\.json\)/);
    expect(servers(m.dir)).toEqual([]);
    expect(JSON.parse(readFileSync(join(m.home, '.claude.json'), 'utf8')).mcpServers.switchboard.command).toBe(BIN);
    expect(JSON.parse(readFileSync(join(m.dir, '.mcp.json'), 'utf8')).mcpServers.switchboard).toBeUndefined();
    expect(screen).toContain('    switchboard mcp import --from claude-code');
  });
});

/**
 * Run `switchboard init` on a pseudo-terminal (script(1), 120 columns) and type each answer once its question is
 * on the screen. Returns the exit code and the screen text without escape sequences.
 */
function onTerminal(
  dir: string,
  env: Record<string, string>,
  answers: Array<[string, string]>,
): Promise<{ code: number | null; screen: string }> {
  const command = `stty cols 120 rows 40; exec ${process.execPath} ${BIN} --cwd ${dir} init`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...childEnv(dir, env), TERM: 'xterm' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    while (answers.length && out.includes(answers[0][0])) child.stdin.write((answers.shift() as [string, string])[1]);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
      done({ code, screen: out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '') });
    }),
  );
}
