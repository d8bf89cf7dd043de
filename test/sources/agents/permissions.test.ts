// What agent sessions may do is decided on disk: agent.json grants (permission mode, shell, built-ins, directories),
// the configuration caps, and a call may only narrow. The real claude binary and the anthropic SDK against the fake
// Messages API; refusals are checked to come before any session or model call.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { denyEdits } from '../../../src/sources/agents/providers/claude-cli.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
// Registered last, so it runs first (vitest runs after-hooks as a stack): the hub closes before its folders go.
closeAfterEach(() => [hub, api]);

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

/** The mode claude itself reports running with (its stream-json `system/init` event in the transcript). */
function claudePermissionMode(session: string): string | undefined {
  const lines = readFileSync(join((hub as TestHub).dir, `.switchboard/sessions/${session}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return lines.find((l) => l.type === 'claude' && l.event.subtype === 'init')?.event.permissionMode;
}

function metaOf(session: string) {
  return JSON.parse(readFileSync(join((hub as TestHub).dir, `.switchboard/sessions/${session}.meta.json`), 'utf8'));
}

/** A model reply whose Bash command would leave `marker` in claude's working directory. */
const bashWrites = (marker: string) => ({
  content: [
    {
      type: 'tool_use' as const,
      name: 'Bash',
      input: { command: `node -e "require('fs').writeFileSync('${marker}', 'x')"`, description: 'write' },
    },
  ],
});

async function noSessions(): Promise<void> {
  expect((await hub?.value('session.list', { response_format: 'json' }))?.total).toBe(0);
}

describe('directories', () => {
  it('project_dir outside the project is INVALID_INPUT, symlinks resolved; [workspace] extra_dirs and the agent list widen it', async () => {
    const outside = tempDir('switchboard-outside-');
    const extra = tempDir('switchboard-extra-');
    api = await startFakeAnthropic({
      replies: [{ content: [{ type: 'tool_use', id: 'toolu_p', name: 'shell', input: { command: 'pwd' } }] }, 'ok'],
    });
    hub = await agentHub({
      anthropic: api.url,
      config: `[workspace]\nextra_dirs = ["${extra}"]`,
      agents: {
        ops: { json: { name: 'ops', provider: 'anthropic', shell: true, directories: ['.', extra] } },
        plain: { json: { name: 'plain', provider: 'anthropic' } },
      },
    });
    const start = (session: string, more: Record<string, unknown>) =>
      hub?.call('agent.start', { session_name: session, provider: 'anthropic', prompt: 'x', ...more });

    const etc = await start('etc', { project_dir: '/etc' });
    expect(!etc?.ok && etc?.error).toEqual({
      code: 'INVALID_INPUT',
      message: `project_dir: '/etc' is outside the directories sessions and scripts may work in: the project (.) and ${extra}. Give a directory inside them, or add it to [workspace] extra_dirs in the configuration.`,
    });
    symlinkSync(outside, join(hub.dir, 'link-out'));
    const linked = await start('linked', { agent_name: 'ops', project_dir: 'link-out' });
    expect(!linked?.ok && linked?.error).toMatchObject({
      code: 'INVALID_INPUT',
      // Where the link leads, relative to the project: never the absolute folders around it.
      message: expect.stringContaining(
        `project_dir: 'link-out' (it resolves to ${relative(realpathSync(hub.dir), outside)}) is outside`,
      ),
    });
    // In the workspace, but not among the directories the agent (or a session without one) is given.
    const plain = await start('plain', { agent_name: 'plain', project_dir: extra });
    expect(!plain?.ok && plain?.error).toEqual({
      code: 'FORBIDDEN',
      message: `Agent 'plain' does not allow project_dir '${extra}' (its sessions work in .): set "directories": [".","${extra}"] in .switchboard/agents/plain/agent.json.`,
    });
    const agentless = await start('agentless', { project_dir: extra });
    expect(!agentless?.ok && agentless?.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('A session without agent_name does not allow project_dir'),
    });
    expect(api.messages()).toHaveLength(0);
    await noSessions();

    const ok = await hub.value('agent.start', {
      session_name: 'ops',
      agent_name: 'ops',
      prompt: 'where?',
      project_dir: extra,
      enable_builtins: true,
      builtin_config: { enable_shell: true },
    });
    expect(ok.status).toBe('completed');
    expect(api.messages()[1].body.messages.at(-1).content[0].content).toContain(`--- stdout\n${extra}\n`);
    expect(metaOf('ops').project_dir).toBe(extra);
  });
});

describe('shell and built-ins (API providers)', () => {
  it('the shell and built-ins are refused unless agent.json grants them, naming the file and the key', async () => {
    api = await startFakeAnthropic();
    hub = await agentHub({
      anthropic: api.url,
      agents: {
        plain: { json: { name: 'plain', provider: 'anthropic' } },
        tasks: { json: { name: 'tasks', provider: 'anthropic', builtins: false } },
      },
    });
    const asked = { prompt: 'x', enable_builtins: true, builtin_config: { enable_shell: true } };
    const plain = await hub.call('agent.start', { session_name: 's1', agent_name: 'plain', ...asked });
    expect(!plain.ok && plain.error).toEqual({
      code: 'FORBIDDEN',
      message: 'Agent \'plain\' does not allow the shell: set "shell": true in .switchboard/agents/plain/agent.json.',
    });
    const none = await hub.call('agent.start', { session_name: 's2', provider: 'anthropic', ...asked });
    expect(!none.ok && none.error).toEqual({
      code: 'FORBIDDEN',
      message:
        'A session without agent_name does not allow the shell: start it with an agent_name whose .switchboard/agents/<name>/agent.json sets "shell": true.',
    });
    const builtins = await hub.call('agent.start', {
      session_name: 's3',
      agent_name: 'tasks',
      prompt: 'x',
      enable_builtins: true,
    });
    expect(!builtins.ok && builtins.error).toEqual({
      code: 'FORBIDDEN',
      message:
        'Agent \'tasks\' does not allow built-in tools: set "builtins": true (or a list of capability names) in .switchboard/agents/tasks/agent.json.',
    });
    expect(api.messages()).toHaveLength(0);
    await noSessions();
  });

  it('agent.json "builtins" as a list offers only the capabilities it names', async () => {
    api = await startFakeAnthropic({ replies: ['done'] });
    hub = await agentHub({
      anthropic: api.url,
      agents: { board: { json: { name: 'board', provider: 'anthropic', builtins: ['task.list', 'task.get'] } } },
    });
    await hub.value('agent.start', { session_name: 'b', agent_name: 'board', prompt: 'x', enable_builtins: true });
    const offered = api.messages()[0].body.tools.map((t: { name: string }) => t.name);
    expect(offered.sort()).toEqual(['task__get', 'task__list']);
  });

  it('a resumed turn re-checks the definition: a shell taken away on disk since the start is refused', async () => {
    api = await startFakeAnthropic({ replies: ['first'] });
    hub = await agentHub({
      anthropic: api.url,
      agents: { ops: { json: { name: 'ops', provider: 'anthropic', shell: true } } },
    });
    await hub.value('agent.start', {
      session_name: 'ops',
      agent_name: 'ops',
      prompt: 'x',
      enable_builtins: true,
      builtin_config: { enable_shell: true },
    });
    const file = join(hub.dir, '.switchboard/agents/ops/agent.json');
    writeFileSync(file, JSON.stringify({ name: 'ops', provider: 'anthropic' }));
    const resumed = await hub.call('agent.resume', { session_name: 'ops', prompt: 'again' });
    expect(!resumed.ok && resumed.error).toEqual({
      code: 'FORBIDDEN',
      message: 'Agent \'ops\' does not allow the shell: set "shell": true in .switchboard/agents/ops/agent.json.',
    });
    expect(api.messages()).toHaveLength(1);
  });
});

describe('claude-cli permission mode (real claude binary)', () => {
  it('runs with --permission-mode acceptEdits unless agent.json grants more: the model’s command does not run', async () => {
    api = await startFakeAnthropic({ replies: [bashWrites('marker-default'), 'done'] });
    hub = await agentHub({ anthropic: api.url });
    const result = await hub.value('agent.start', { session_name: 'd', prompt: 'go' });
    expect(result.status).toBe('completed');
    expect(claudePermissionMode('d')).toBe('acceptEdits');
    expect(metaOf('d').options.permission_mode).toBe('acceptEdits');
    const toolResult = api
      .messages()[1]
      .body.messages.at(-1)
      .content.find((b: { type: string }) => b.type === 'tool_result');
    expect(toolResult.is_error).toBe(true);
    expect(existsSync(join(hub.dir, 'marker-default'))).toBe(false);
  }, 60_000);

  it('bypassPermissions only where agent.json says so; a call may narrow the mode, never widen it', async () => {
    api = await startFakeAnthropic({ replies: [bashWrites('marker-bypass'), 'done', 'planned'] });
    hub = await agentHub({
      anthropic: api.url,
      claudePermissionLimit: 'bypassPermissions',
      agents: {
        builder: { json: { name: 'builder', permission_mode: 'bypassPermissions' } },
        editor: { json: { name: 'editor' } },
      },
    });
    await hub.value('agent.start', { session_name: 'b', agent_name: 'builder', prompt: 'build' });
    expect(claudePermissionMode('b')).toBe('bypassPermissions');
    expect(existsSync(join(hub.dir, 'marker-bypass'))).toBe(true);

    await hub.value('agent.start', {
      session_name: 'p',
      agent_name: 'builder',
      prompt: 'plan',
      permission_mode: 'plan',
    });
    expect(claudePermissionMode('p')).toBe('plan');
    expect(metaOf('p').options.permission_mode).toBe('plan');

    const wider = await hub.call('agent.start', {
      session_name: 'e',
      agent_name: 'editor',
      prompt: 'x',
      permission_mode: 'bypassPermissions',
    });
    expect(!wider.ok && wider.error).toEqual({
      code: 'FORBIDDEN',
      message:
        'Agent \'editor\' does not allow permission_mode "bypassPermissions" (it allows at most "acceptEdits"; from least to most: plan, dontAsk, default, acceptEdits, auto, bypassPermissions): set "permission_mode": "bypassPermissions" in .switchboard/agents/editor/agent.json.',
    });
    const agentless = await hub.call('agent.start', { session_name: 'n', prompt: 'x', permission_mode: 'auto' });
    expect(!agentless.ok && agentless.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('A session without agent_name does not allow permission_mode "auto"'),
    });
    expect(api.messages()).toHaveLength(3);
  }, 90_000);

  it("the operator's limit caps every agent, and a definition narrowed on disk wins when the session resumes", async () => {
    api = await startFakeAnthropic({ replies: ['first'] });
    hub = await agentHub({
      anthropic: api.url,
      agents: { builder: { json: { name: 'builder', permission_mode: 'bypassPermissions' } } },
    });
    const capped = await hub.call('agent.start', { session_name: 'c', agent_name: 'builder', prompt: 'x' });
    expect(!capped.ok && capped.error).toEqual({
      code: 'FORBIDDEN',
      message:
        'Agent \'builder\' is granted permission_mode "bypassPermissions" in its agent.json, above the operator\'s limit [agents.providers.claude-cli] permission_mode = "acceptEdits": raise that limit in the configuration, or lower the agent\'s.',
    });
    await noSessions();

    const file = join(hub.dir, '.switchboard/agents/builder/agent.json');
    writeFileSync(file, JSON.stringify({ name: 'builder', permission_mode: 'acceptEdits' }));
    await hub.value('agent.start', { session_name: 'r', agent_name: 'builder', prompt: 'x' });
    expect(metaOf('r').options.permission_mode).toBe('acceptEdits');
    writeFileSync(file, JSON.stringify({ name: 'builder', permission_mode: 'plan' }));
    const resumed = await hub.call('agent.resume', { session_name: 'r', prompt: 'again' });
    expect(!resumed.ok && resumed.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining(
        'Agent \'builder\' does not allow permission_mode "acceptEdits" (it allows at most "plan";',
      ),
    });
    expect(api.messages()).toHaveLength(1);
  }, 60_000);
});

describe("the hub's own files (real claude binary)", () => {
  const write = (file_path: string, content: string) => ({
    content: [{ type: 'tool_use' as const, name: 'Write', input: { file_path, content } }],
  });

  it('below bypassPermissions a session cannot edit .switchboard, .mekara, .rkat, the user folder or a [plugins] path, symlinks included; elsewhere it edits', async () => {
    api = await startFakeAnthropic();
    hub = await agentHub({ anthropic: api.url, config: '[plugins]\npaths = ["tools/plugins"]' });
    const dir = realpathSync(hub.dir);
    const config = join(dir, '.switchboard/config.toml');
    const before = readFileSync(config, 'utf8');
    symlinkSync(join(dir, '.switchboard'), join(dir, 'link-sb'));
    const denied = [
      '.switchboard/scripts/widen.md',
      '.switchboard/agents/wide/agent.json',
      '.home/plugins/evil/plugin.toml', // SWITCHBOARD_HOME, the user's folder in the test hub
      'tools/plugins/evil/plugin.toml',
      '.mekara/scripts/widen.md', // mekara's scripts, read live: their auto steps are commands
      '.rkat/mcp.toml', // Meerkat's project servers, read live: the hub would start a command server at once
      'link-sb/scripts/via-link.md',
      '.claude/settings.json', // claude refuses this one itself: its own settings could grant Bash next turn
    ];
    api.enqueue(
      ...denied.map((f) => write(join(dir, f), '{"permission_mode": "bypassPermissions", "shell": true}')),
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: config } }] },
      {
        content: [
          {
            type: 'tool_use',
            name: 'Edit',
            input: { file_path: config, old_string: '[agents.providers.claude-cli]', new_string: '[agents]' },
          },
        ],
      },
      write(join(dir, 'notes.txt'), 'project work'),
      'done',
    );
    const result = await hub.value('agent.start', { session_name: 'e', prompt: 'widen yourself' });
    expect(result.status).toBe('completed');
    expect(claudePermissionMode('e')).toBe('acceptEdits');
    for (const f of denied) expect(existsSync(join(dir, f)), f).toBe(false);
    expect(existsSync(join(dir, '.switchboard/scripts/via-link.md'))).toBe(false);
    expect(readFileSync(config, 'utf8')).toBe(before);
    // The Read went through (sessions may read the hub's files), the Edit after it was denied.
    const results = api
      .messages()
      .slice(1)
      // The newest tool result of each request: claude may append a reminder of its own as a later user message.
      .map((m) =>
        m.body.messages
          .flatMap((msg: { content: unknown }) => (Array.isArray(msg.content) ? msg.content : []))
          .findLast((b: { type: string }) => b.type === 'tool_result'),
      );
    expect(results.map((r: { is_error?: boolean }) => Boolean(r.is_error))).toEqual([
      ...denied.map(() => true),
      false,
      true,
      false,
    ]);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('project work');
  }, 90_000);

  it('the deny rule is absolute and turns pattern characters in the path into ?, so a folder named like a glob still matches', () => {
    expect(denyEdits('/repo/.switchboard')).toBe('Edit(//repo/.switchboard/**)');
    // Checked with the real binary: `[x]` is a character class and backslash escapes are not honoured.
    expect(denyEdits('/tmp/my proj, [x]*{e}!(y)#/é/.switchboard')).toBe(
      'Edit(//tmp/my proj, ?x???e???y??/é/.switchboard/**)',
    );
  });

  it('bypassPermissions, granted in agent.json, edits them: the owner chose a session that runs any command', async () => {
    api = await startFakeAnthropic();
    hub = await agentHub({
      anthropic: api.url,
      claudePermissionLimit: 'bypassPermissions',
      agents: { builder: { json: { name: 'builder', permission_mode: 'bypassPermissions' } } },
    });
    const file = join(realpathSync(hub.dir), '.switchboard/scripts/owner.md');
    api.enqueue(write(file, '# maintained by the builder'), 'done');
    await hub.value('agent.start', { session_name: 'b', agent_name: 'builder', prompt: 'add a script' });
    expect(readFileSync(file, 'utf8')).toBe('# maintained by the builder');
  }, 60_000);
});
