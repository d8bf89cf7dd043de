// `switchboard install claude-code` over a project Han set up, as a child process on our own plugins in Han's format
// (test/fixtures/han-format; Han's own marketplace: test/originals/han.test.ts): Han's `han hook …` entries give way
// to `hook dispatch`, the entries it writes run the plugin hooks (under the real `claude` too, where Han's own
// `han hook run` left in another settings file exits at once), and uninstall puts Han's back.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { writeFiles, writePlugin } from '../helpers/plugins.ts';
import { claude, promptText } from './claude-code-hooks-cases.ts';
import {
  dispatchGroup,
  type HanProject,
  hanDispatch,
  hanProject,
  hanSettings,
  installOverHanCases,
  jsonText,
} from './install-han-cases.ts';

const OURS: HanProject = {
  marketplace: () => resolve(import.meta.dirname, '../fixtures/han-format/marketplace'),
  name: 'han-format',
  plugins: ['tally', 'commit-often'],
};

const run = (root: string, args: string[], env: Record<string, string>) =>
  runCli(root, args, { env, timeoutMs: 20_000 });
const settingsOf = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('install claude-code in a project Han set up', () => {
  installOverHanCases(OURS);

  it("replaces `han hook run` of a hook Switchboard runs, keeps one it cannot, and leaves Han's other commands", async () => {
    const before = hanSettings(OURS, {
      Stop: [
        { hooks: [{ type: 'command', command: 'han hook run tally test --async', async: true }] },
        { hooks: [{ type: 'command', command: 'npx -y @thebushidocollective/han hook run absent check' }] },
      ],
      SessionStart: [
        hanDispatch('SessionStart'),
        { hooks: [{ type: 'command', command: 'han hook context', timeout: 10 }] },
      ],
    });
    const { root, file, env } = hanProject(before);
    const r = await run(root, ['install', 'claude-code'], env);
    expect(r.code).toBe(0);
    const hooks = settingsOf(file).hooks;
    expect(hooks.Stop).toEqual([before.hooks.Stop[1], dispatchGroup()]);
    expect(hooks.SessionStart).toEqual([before.hooks.SessionStart[1]]);
    expect(r.stdout).toContain(
      "Han's entries replaced     han hook dispatch UserPromptSubmit, han hook dispatch SessionStart, han hook run tally test --async (",
    );
    expect(r.stdout).toContain(
      'note: left in place: npx -y @thebushidocollective/han hook run absent check (no plugin absent with a hook check is found here)',
    );
    expect((await run(root, ['uninstall', 'claude-code'], env)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(jsonText(before));
  });

  it("leaves Han's entries when Switchboard finds no Han plugin to run instead, and says why", async () => {
    const before = { ...hanSettings(OURS), enabledPlugins: {} };
    const { root, file, env } = hanProject(before);
    const r = await run(root, ['install', 'claude-code'], env);
    expect(r.code).toBe(0);
    const after = settingsOf(file);
    expect(after.hooks.SessionStart).toEqual(before.hooks.SessionStart);
    expect(after.hooks.UserPromptSubmit[0]).toEqual(hanDispatch('UserPromptSubmit'));
    expect(after.env).toEqual(before.env);
    expect(r.stdout).toContain(
      'plugin hooks               none found in this project: no hook dispatch entry (install again after adding a plugin)',
    );
    expect(r.stdout).toContain(
      'note: left in place: han hook dispatch SessionStart (Switchboard found no Han plugin with hooks to run instead)',
    );
  });

  it('writes entries that run the plugin hooks: a failing Stop check blocks, a PostToolUse hook gets its tools as matcher', async () => {
    const { root, file, env } = hanProject(hanSettings(OURS));
    writePlugin(root, 'guard', "hooks:\n  must-pass:\n    event: Stop\n    command: 'echo still failing; exit 1'\n", {
      file: 'han-plugin.yml',
    });
    writePlugin(root, 'fmt', "hooks:\n  format:\n    event: 'PostToolUse:Edit|Write'\n    command: 'true'\n", {
      file: 'han-plugin.yml',
    });
    expect((await run(root, ['install', 'claude-code'], env)).code).toBe(0);
    const hooks = settingsOf(file).hooks;
    expect(hooks.PostToolUse).toEqual([dispatchGroup('Edit|Write')]);
    // Claude Code runs the command through a shell with the event on stdin.
    const command = hooks.Stop[1].hooks[0].command;
    expect(command).toBe(`${BIN} hook dispatch`);
    const out = execFileSync('sh', ['-c', command], {
      cwd: root,
      env: { ...process.env, ...env, SWITCHBOARD_HOME: join(root, '.home') },
      input: JSON.stringify({ hook_event_name: 'Stop', session_id: 's-1', cwd: root }),
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toMatchObject({ decision: 'block' });
    expect(JSON.parse(out).reason).toContain('still failing');
  });

  it("puts Han's entries back first in an event changed since install, and says so", async () => {
    const { root, file, env } = hanProject(hanSettings(OURS));
    expect((await run(root, ['install', 'claude-code'], env)).code).toBe(0);
    const edited = settingsOf(file);
    edited.hooks.UserPromptSubmit.push({ hooks: [{ type: 'command', command: 'log-prompt' }] });
    writeFileSync(file, jsonText(edited));
    const r = await run(root, ['uninstall', 'claude-code'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "hooks.UserPromptSubmit changed since install: Han's entries were put back first in it.",
    );
    const hooks = settingsOf(file).hooks;
    expect(hooks.UserPromptSubmit).toEqual([
      hanDispatch('UserPromptSubmit'),
      { hooks: [{ type: 'command', command: 'log-prompt' }] },
    ]);
    expect(hooks.SessionStart).toEqual([hanDispatch('SessionStart')]);
    expect(settingsOf(file).env).toEqual({ CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' });
  });

  it("under Claude Code: the installed dispatch blocks on the failing check, and Han's own `han hook run` stands down", async () => {
    const { root, env } = hanProject({ ...hanSettings(OURS), enabledPlugins: {} });
    writePlugin(
      root,
      'guard',
      "hooks:\n  must-pass:\n    event: Stop\n    command: 'if [ -f fixed ]; then exit 0; fi; touch fixed; echo still failing; exit 1'\n",
      { file: 'han-plugin.yml' },
    );
    // A stand-in for Han's command with Han's contract: HAN_DISABLE_HOOKS=1 exits 0 at once, else the check runs.
    writeFiles(root, {
      'bin/han':
        '#!/bin/sh\necho "${HAN_DISABLE_HOOKS:-unset}" >> "$CLAUDE_PROJECT_DIR/han-calls.txt"\n[ "$HAN_DISABLE_HOOKS" = 1 ] && exit 0\necho "han ran the check itself" >&2\nexit 2\n',
      // Han's entry in the user's settings, which install does not edit (as a plugin's hooks.json would hold it).
      '.home/.claude/settings.json': jsonText({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'han hook run guard must-pass' }] }] },
      }),
    });
    chmodSync(join(root, 'bin/han'), 0o755);
    const installed = await run(root, ['install', 'claude-code'], env);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(
      `note: ${join(root, '.home/.claude/settings.json')} has Han's \`han hook run guard must-pass\`; install edits only ${join(root, '.claude/settings.json')}, and with HAN_DISABLE_HOOKS=1 those exit at once`,
    );
    const api = await startFakeAnthropic({ replies: ['Done.', 'Fixed it.'] });
    try {
      const home = join(root, '.home');
      const r = await claude(root, home, api.url, [], { PATH: `${join(root, 'bin')}:${process.env.PATH}` });
      expect(r.code).toBe(0);
      expect(r.result).toMatchObject({ is_error: false, result: 'Fixed it.' });
      const turns = api.messages().map((m) => promptText(m.body));
      expect(turns).toHaveLength(2);
      expect(turns[1]).toContain('still failing');
      expect(turns[1]).not.toContain('han ran the check itself');
      // Han's command was started on both stops and stood down each time.
      expect(readFileSync(join(root, 'han-calls.txt'), 'utf8')).toBe('1\n1\n');
    } finally {
      await api.close();
    }
  });
});
