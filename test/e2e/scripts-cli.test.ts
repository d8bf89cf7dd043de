import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { BIN, ROOT, runCli, tempProject } from '../helpers/cli.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

const run = (dir: string, args: string[], input = '', env: Record<string, string> = {}) =>
  runCli(dir, args, { input, env, timeoutMs: 20_000 });

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

function hookProject(): string {
  const dir = tempProject();
  projectScripts(dir, {
    'nl/mine.md': '# Mine\n\nDo my thing with $ARGUMENTS.\n',
    'nl/proj-flow.md': '# Flow\n',
    'compiled/proj-flow.mjs': "import { llm } from 'switchboard';\nexport default function* () { yield llm('x'); }\n",
  });
  return dir;
}

describe('switchboard hook user-prompt-submit', () => {
  const dir = hookProject();
  const prompt = (text: string, extra: Record<string, unknown> = {}) =>
    run(dir, ['hook', 'user-prompt-submit'], JSON.stringify({ prompt: text, cwd: dir, session_id: 's1', ...extra }));

  it('routes a compiled script to mcp__switchboard__script__start with its name and arguments', async () => {
    for (const text of ['/test:random 5 apples', '//test/random 5 apples', '/test/random   5 apples']) {
      const r = await prompt(text);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('call `mcp__switchboard__script__start` with name="test:random" arguments="5 apples"');
    }
    const project = await prompt('/proj-flow');
    expect(project.stdout).toContain('name="proj-flow" arguments=""');
  });

  it('prints the processed text of a bundled NL-only script', async () => {
    const r = await prompt('/release-notes v2.0');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Draft release notes for v2.0 (if empty');
    expect(r.stdout).not.toContain('$ARGUMENTS');
    expect(r.stdout).not.toContain('description:');
  });

  it('prints nothing for a project NL-only script, unknown names and ordinary prompts', async () => {
    for (const text of ['/mine stuff', '/no-such-script', 'please fix the bug', '/../../etc/passwd', '']) {
      const r = await prompt(text);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
  });

  it('exits 0 without output on empty or malformed input', async () => {
    for (const input of ['', '   ', '[]', '{"cwd": "/"}', '{"prompt": 42}']) {
      const r = await run(dir, ['hook', 'user-prompt-submit'], input);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
    // Input that is not JSON at all is our parsing fault: still exit 0 and nothing on stdout, but say why on stderr.
    const r = await run(dir, ['hook', 'user-prompt-submit'], '{not json');
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/stdin is not JSON/);
  });

  it('resolves against the cwd in the hook input, not where the command was started', async () => {
    const elsewhere = tempProject();
    const r = await run(elsewhere, ['hook', 'user-prompt-submit'], JSON.stringify({ prompt: '/proj-flow', cwd: dir }));
    expect(r.stdout).toContain('name="proj-flow"');
  });
});

describe('switchboard hook pre-tool-use', () => {
  const dir = hookProject();
  const call = (input: unknown) => run(dir, ['hook', 'pre-tool-use'], JSON.stringify(input));

  it('denies a compiled script invoked through the Skill tool and says how to start it', async () => {
    const r = await call({ tool_name: 'Skill', tool_input: { skill: 'test:random', args: '7' }, cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining(
          'call `mcp__switchboard__script__start` with name="test:random" arguments="7"',
        ),
      },
    });
  });

  it('lets everything else through without output', async () => {
    for (const input of [
      { tool_name: 'Skill', tool_input: { skill: 'mine' }, cwd: dir },
      { tool_name: 'Skill', tool_input: { skill: 'release-notes' }, cwd: dir },
      { tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: dir },
      { tool_name: 'Skill', tool_input: {} },
      'nonsense',
    ]) {
      const r = await call(input);
      expect([r.code, r.stdout]).toEqual([0, '']);
    }
  });
});

describe('switchboard install claude-code', () => {
  const permissions = [
    'mcp__switchboard__script__start',
    'mcp__switchboard__script__continue_compiled_script',
    'mcp__switchboard__script__finish_nl_script',
    'mcp__switchboard__script__status',
    'mcp__switchboard__script__list',
  ];

  it('writes the server, both hooks, the commands link and permissions named like the real tools', async () => {
    const dir = tempProject();
    const r = await run(dir, ['install', 'claude-code']);
    expect(r.code).toBe(0);
    // This install's launcher by absolute path: the agent starts the installed version, without npx or a network.
    expect(json(join(dir, '.mcp.json'))).toEqual({
      mcpServers: { switchboard: { type: 'stdio', command: BIN, args: ['serve'] } },
    });
    expect(r.stdout).toContain(`it runs                    ${BIN} serve`);
    const settings = json(join(dir, '.claude/settings.json'));
    expect(settings.hooks.UserPromptSubmit).toEqual([
      { matcher: '', hooks: [{ type: 'command', command: `${BIN} hook user-prompt-submit` }] },
    ]);
    expect(settings.hooks.PreToolUse).toEqual([
      { matcher: 'Skill', hooks: [{ type: 'command', command: `${BIN} hook pre-tool-use` }] },
    ]);
    expect(settings.permissions.allow).toEqual(permissions);
    expect(settings.enabledMcpjsonServers).toEqual(['switchboard']);
    const link = join(dir, '.claude/commands');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(resolve(join(dir, '.claude'), readlinkSync(link))).toBe(join(dir, '.switchboard/scripts/nl'));
    // The permission names are the tool names the hub really serves.
    const tools = JSON.parse((await run(dir, ['tools', 'list', '--json'])).stdout).map((t: { name: string }) => t.name);
    for (const p of settings.permissions.allow) expect(tools).toContain(p.replace('mcp__switchboard__', ''));
  });

  it('merges into existing files, keeps what is there, and is idempotent', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { other: { command: 'other-server' } } }));
    mkdirSync(join(dir, '.claude'));
    const mine = {
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'], deny: ['Read(.env)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }],
      },
    };
    writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify(mine));
    expect((await run(dir, ['install', 'claude-code', '--scope', 'project'])).code).toBe(0);
    const once = {
      mcp: readFileSync(join(dir, '.mcp.json'), 'utf8'),
      settings: readFileSync(join(dir, '.claude/settings.json'), 'utf8'),
    };
    expect((await run(dir, ['install', 'claude-code'])).code).toBe(0);
    expect(readFileSync(join(dir, '.mcp.json'), 'utf8')).toBe(once.mcp);
    expect(readFileSync(join(dir, '.claude/settings.json'), 'utf8')).toBe(once.settings);
    const mcp = JSON.parse(once.mcp);
    expect(Object.keys(mcp.mcpServers)).toEqual(['other', 'switchboard']);
    const settings = JSON.parse(once.settings);
    expect(settings.model).toBe('opus');
    expect(settings.permissions.deny).toEqual(['Read(.env)']);
    expect(settings.permissions.allow).toEqual(['Bash(npm test)', ...permissions]);
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[0]).toEqual(mine.hooks.PreToolUse[0]);
    expect(settings.hooks.Stop).toEqual(mine.hooks.Stop);

    expect((await run(dir, ['uninstall', 'claude-code'])).code).toBe(0);
    expect(json(join(dir, '.mcp.json'))).toEqual({ mcpServers: { other: { command: 'other-server' } } });
    expect(json(join(dir, '.claude/settings.json'))).toEqual(mine);
    expect(existsSync(join(dir, '.claude/commands'))).toBe(false);
  });

  it('replaces the hooks earlier installs wrote (`npx switchboard …`, `npx -y switchboard-mcp …`), and uninstall removes them', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    const old = {
      hooks: {
        UserPromptSubmit: [
          { matcher: '', hooks: [{ type: 'command', command: 'npx switchboard hook user-prompt-submit' }] },
        ],
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard' }] },
          { matcher: 'Skill', hooks: [{ type: 'command', command: 'npx -y switchboard-mcp hook pre-tool-use' }] },
        ],
      },
    };
    writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify(old));
    expect((await run(dir, ['install', 'claude-code'])).code).toBe(0);
    const hooks = json(join(dir, '.claude/settings.json')).hooks;
    expect(hooks.UserPromptSubmit).toEqual([
      { matcher: '', hooks: [{ type: 'command', command: `${BIN} hook user-prompt-submit` }] },
    ]);
    expect(hooks.PreToolUse).toEqual([
      old.hooks.PreToolUse[0],
      { matcher: 'Skill', hooks: [{ type: 'command', command: `${BIN} hook pre-tool-use` }] },
    ]);
    writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify(old));
    expect((await run(dir, ['uninstall', 'claude-code'])).code).toBe(0);
    expect(json(join(dir, '.claude/settings.json')).hooks).toEqual({ PreToolUse: [old.hooks.PreToolUse[0]] });
  });

  it('installs for the user in ~/.claude.json and ~/.claude/, linking the user scripts', async () => {
    const dir = tempProject();
    const home = join(dir, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ numStartups: 3, mcpServers: {} }));
    const r = await run(dir, ['install', 'claude-code', '--scope', 'user'], '', { HOME: home });
    expect(r.code).toBe(0);
    const claude = json(join(home, '.claude.json'));
    expect(claude.numStartups).toBe(3);
    expect(claude.mcpServers.switchboard.command).toBe(BIN);
    expect(json(join(home, '.claude/settings.json')).permissions.allow).toEqual(permissions);
    expect(resolve(join(home, '.claude'), readlinkSync(join(home, '.claude/commands')))).toBe(
      join(dir, '.home/scripts/nl'),
    );
    expect(existsSync(join(dir, '.mcp.json'))).toBe(false);
  });

  it('refuses a malformed settings file without writing anything, and an unknown agent', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude/settings.json'), '{ "hooks": ');
    const r = await run(dir, ['install', 'claude-code']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(dir, '.claude/settings.json'));
    expect(r.stderr).toContain('is not valid JSON');
    expect(existsSync(join(dir, '.mcp.json'))).toBe(false);
    const agent = await run(dir, ['install', 'cursor']);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain("Unknown agent 'cursor'; supported: claude-code, codex, gemini.");
  });
});

describe('switchboard vcr replay', () => {
  const project = join(ROOT, 'test/fixtures/scripts-project');
  const cassette = join(ROOT, 'test/fixtures/cassettes/fallback.yaml');

  it('replays a kept cassette with no differences', async () => {
    const r = await run(project, ['vcr', 'replay', cassette]);
    // Only the line naming the project (it is not the current directory): no warning, no error.
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^switchboard: acting on project /)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Replayed 4 tool calls \(\d+ events\) from .*fallback\.yaml: no differences\./);
  });

  it('exits 1 naming the difference and asking to re-record', async () => {
    const dir = tempProject();
    const data = parse(readFileSync(cassette, 'utf8'));
    const step = data.events.find((e: { type: string }) => e.type === 'auto_step');
    step.inputs.action = 'echo tampered';
    const file = join(dir, 'tampered.yaml');
    writeFileSync(file, stringify(data));
    const r = await run(project, ['vcr', 'replay', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Expected: auto_step shell "echo tampered"');
    expect(r.stderr).toContain('Actual: auto_step shell "echo deploy: start"');
    expect(r.stderr).toContain('re-record the cassette');
  });
});
