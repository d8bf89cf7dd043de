// End-to-end: the real `claude` binary (Claude Code 2.x) against a fake Anthropic Messages API on 127.0.0.1,
// with Switchboard as its MCP server over stdio and the UserPromptSubmit hook from --settings: the user types
// `//test:nested` (Claude Code refuses `/name` for a name that is not one of its commands, and bundled scripts are
// not), the hook routes it to script__start, and the model drives the nested script with its LLM steps to the end.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPT_PERMISSIONS } from '../../src/cli/install.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { claude, lastMessage, switchboardMcpConfig, toolUse } from '../helpers/claude-code.ts';
import { BIN, childEnv } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { replayCassetteFile } from '../helpers/vcr.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

let anthropic: FakeAnthropic | undefined;
let dir: string | undefined;
afterEach(async () => {
  await anthropic?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  anthropic = undefined;
  dir = undefined;
});

/** A project with a compiled script `flow`, set up by the real `switchboard install claude-code`. */
function installedProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'switchboard-claude-'));
  projectScripts(project, {
    'nl/flow.md': '---\ndescription: a flow\n---\n# Flow\n\nAsk one question about $ARGUMENTS.\n',
    'compiled/flow.mjs':
      "import { auto, llm } from 'switchboard';\nexport default function* (r) { yield auto('echo flow ' + r); yield llm('A question about ' + r, { expects: { answer: 'an answer' } }); }\n",
  });
  execFileSync(process.execPath, [BIN, '--cwd', project, 'install', 'claude-code'], { env: childEnv(project) });
  // The hooks run this install's launcher as written; the server entry gets the test's own home and log level.
  const mcp = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
  mcp.mcpServers.switchboard = {
    type: 'stdio',
    command: process.execPath,
    args: [BIN, '--cwd', project, 'serve'],
    env: { SWITCHBOARD_HOME: join(project, '.home'), SWITCHBOARD_LOG_LEVEL: 'warn' },
  };
  writeFileSync(join(project, '.mcp.json'), JSON.stringify(mcp));

  return project;
}

describe('Claude Code runs a script through Switchboard', () => {
  it('routes //test:nested through the hook and completes its LLM steps and nested script', async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-claude-'));
    const project = dir;
    anthropic = await startFakeAnthropic({
      // A model that reads each answer and calls the tool it names next.
      respond: (req) => {
        const last = lastMessage(req);
        if (last.includes('All scripts finished')) return 'The nested script finished.';
        if (last.includes('Pending LLM step: `test:nested[2]`'))
          return toolUse('mcp__switchboard__script__continue_compiled_script', {
            outputs: { summary: 'It picked a number, doubled it and said it is even.' },
          });
        if (last.includes('Pending LLM step: `test:nested[1] > test:random[2]`'))
          return toolUse('mcp__switchboard__script__continue_compiled_script', { outputs: { parity: 'even' } });
        if (last.includes('mcp__switchboard__script__start'))
          return toolUse('mcp__switchboard__script__start', { name: 'test:nested', arguments: '' });
        return 'I did not understand.';
      },
    });
    const mcpConfig = switchboardMcpConfig(project);
    const settings = join(project, 'settings.json');
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [
            {
              matcher: '',
              hooks: [{ type: 'command', command: `${process.execPath} ${BIN} hook user-prompt-submit` }],
            },
          ],
        },
      }),
    );
    const events = await claude(
      project,
      '//test:nested',
      [
        '--mcp-config',
        mcpConfig,
        '--strict-mcp-config',
        '--settings',
        settings,
        '--allowedTools',
        ...SCRIPT_PERMISSIONS,
      ],
      anthropic,
      // Claude Code passes its environment to the stdio server: the whole session is recorded.
      { SWITCHBOARD_VCR_CASSETTE: 'session.yaml' },
    );
    const result = events.find((e) => e.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', result: 'The nested script finished.' });
    expect(result.num_turns).toBe(4);

    const turns = anthropic.messages();
    // The hook's instruction reached the model with the typed command.
    expect(JSON.stringify(turns[0].body.messages)).toContain(
      'call `mcp__switchboard__script__start` with name=\\"test:nested\\" arguments=\\"\\"',
    );
    // Switchboard's tools were offered under the names the permissions use.
    const offered = turns[0].body.tools.map((t: { name: string }) => t.name);
    for (const p of SCRIPT_PERMISSIONS) expect(offered).toContain(p);
    // Each answer went back to the model: nested frames, executed steps with output, the end of the run.
    const answers = turns.slice(1).map(lastMessage);
    expect(answers[0]).toContain('test:nested[0]`: ✓ `echo nested: start`');
    expect(answers[0]).toContain('Pending LLM step: `test:nested[1] > test:random[2]`');
    expect(answers[1]).toContain('- `test:random`: ✓ script completed');
    expect(answers[2]).toContain('test:nested[3]`: ✓ `echo nested: done`');
    expect(answers[2]).toContain('All scripts finished');
    expect(turns).toHaveLength(4);

    // The cassette recorded there replays against the project with the real executor.
    const env = { SWITCHBOARD_HOME: join(project, '.home') };
    await expect(replayCassetteFile(join(project, 'session.yaml'), project, env)).resolves.toEqual({
      calls: 3,
      events: expect.any(Number),
    });

    // The run was journalled and is finished.
    const store = SqliteStore.open(join(project, '.switchboard/state.db'));
    try {
      const runs = await store.scriptRuns.list();
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        name: 'test:nested',
        status: 'finished',
        clientKey: expect.stringMatching(/^stdio:\d+-/),
      });
    } finally {
      await store.close();
    }
  }, 150_000);

  it('works from what `switchboard install claude-code` writes: the Skill tool is denied and the script runs over MCP', async () => {
    dir = installedProject();
    const project = dir;
    anthropic = await startFakeAnthropic({
      respond: (req) => {
        const last = lastMessage(req);
        if (last.includes('All scripts finished')) return 'Flow done.';
        if (last.includes('Pending LLM step: `flow[1]`'))
          return toolUse('mcp__switchboard__script__continue_compiled_script', { outputs: { answer: '42' } });
        if (last.includes('must run through its executor'))
          return toolUse('mcp__switchboard__script__start', { name: 'flow', arguments: 'life' });
        return toolUse('Skill', { skill: 'flow', args: 'life' });
      },
    });
    // No --permission-mode: the installed permission entries must let the script tools run.
    const events = await claude(project, 'please run the flow', [], anthropic);
    const result = events.find((e) => e.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', result: 'Flow done.' });
    const answers = anthropic.messages().slice(1).map(lastMessage);
    expect(answers[0]).toContain('`flow` is a compiled Switchboard script and must run through its executor');
    expect(answers[0]).toContain('is_error');
    expect(answers[1]).toContain('flow[0]`: ✓ `echo flow life`');
    expect(answers[1]).toContain('A question about life');
    expect(answers[2]).toContain('All scripts finished');
    // Claude Code knows the script as a command through the installed .claude/commands link (its description).
    expect(JSON.stringify(anthropic.messages()[0].body)).toContain('a flow');
  }, 150_000);

  it('routes a typed /flow of an installed project script to script__start', async () => {
    dir = installedProject();
    const project = dir;
    anthropic = await startFakeAnthropic({
      respond: (req) => {
        const last = lastMessage(req);
        if (last.includes('All scripts finished')) return 'Typed flow done.';
        if (last.includes('Pending LLM step: `flow[1]`'))
          return toolUse('mcp__switchboard__script__continue_compiled_script', { outputs: { answer: 'x' } });
        if (last.includes('call `mcp__switchboard__script__start` with name=\\"flow\\" arguments=\\"life\\"'))
          return toolUse('mcp__switchboard__script__start', { name: 'flow', arguments: 'life' });
        return 'The hook said nothing.';
      },
    });
    const events = await claude(project, '/flow life', [], anthropic);
    expect(events.find((e) => e.type === 'result')).toMatchObject({ subtype: 'success', result: 'Typed flow done.' });
    // Claude Code expanded its own command (the linked NL file) and the hook added the route to the executor.
    const first = JSON.stringify(anthropic.messages()[0].body.messages);
    expect(first).toContain('Ask one question about life.');
    expect(first).toContain('UserPromptSubmit hook');
    expect(lastMessage(anthropic.messages()[1])).toContain('flow[0]`: ✓ `echo flow life`');
  }, 150_000);
});
