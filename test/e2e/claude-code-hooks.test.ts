// The real `claude` binary (Claude Code) with `switchboard hook dispatch` as its Stop hook, against a fake model API
// on 127.0.0.1: a failing plugin check sends the agent back with the output as feedback; a passing one lets it stop.
// The runner and the HAN_FILES case are in claude-code-hooks-cases.ts, shared with test/originals/han.test.ts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { pluginProject, writePlugin } from '../helpers/plugins.ts';
import { claude, dispatchOn, promptText, stopCheckGetsEditedFiles } from './claude-code-hooks-cases.ts';

let api: FakeAnthropic | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A project whose Stop hook is `switchboard hook dispatch`, with one plugin hook running `command`. */
function project(command: string): { root: string; home: string } {
  const root = pluginProject();
  const home = join(root, '.home');
  mkdirSync(home, { recursive: true });
  writePlugin(root, 'checks', `hooks:\n  test:\n    command: '${command}'\n`);
  mkdirSync(join(root, '.claude'), { recursive: true });
  const dispatch = `"${process.execPath}" "${BIN}" hook dispatch`;
  writeFileSync(
    join(root, '.claude/settings.json'),
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: dispatch }] }] } }),
  );
  return { root, home };
}

describe('Claude Code with switchboard hook dispatch as its Stop hook', () => {
  it('is sent back with the failing output, and stops once the check passes', async () => {
    // Fails the first time (like a test the agent then fixes), passes after.
    const { root, home } = project(
      'if [ -f fixed ]; then echo all good; exit 0; fi; touch fixed; echo "sum: 5 !== 6"; exit 1',
    );
    api = await startFakeAnthropic({ replies: ['Done.', 'Fixed the sum.'] });
    const run = await claude(root, home, api.url);
    expect(run.code).toBe(0);
    expect(run.result).toMatchObject({ is_error: false, result: 'Fixed the sum.' });
    const turns = api.messages();
    expect(turns).toHaveLength(2);
    expect(promptText(turns[0].body)).not.toContain('plugin check failed');
    const second = promptText(turns[1].body);
    expect(second).toContain('Stop hook feedback');
    expect(second).toContain('1 plugin check failed. Fix it before finishing:');
    expect(second).toContain('❌ checks__test failed in 1 of 1 directory.');
    expect(second).toContain('sum: 5 !== 6');
  });

  it('stops at once when every check passes', async () => {
    const { root, home } = project('echo all good');
    api = await startFakeAnthropic({ replies: ['Done.'] });
    const run = await claude(root, home, api.url);
    expect(run.code).toBe(0);
    expect(run.result).toMatchObject({ is_error: false, result: 'Done.' });
    expect(api.messages()).toHaveLength(1);
  });
});

/** Our own plugins in Han's format (test/fixtures/han-format); Han's own: test/originals/han.test.ts. */
const HAN_FORMAT = resolve(import.meta.dirname, '../fixtures/han-format/marketplace/plugins');

describe("Han's plugins under Claude Code, through switchboard hook dispatch", () => {
  it('gives a han-plugin.yml Stop check only the files the session edited as ${HAN_FILES}', async () => {
    // commit-often's pending.sh lists the files it was given that git has not committed.
    await stopCheckGetsEditedFiles(join(HAN_FORMAT, 'patterns/commit-often'), 'commit_often__pending');
  });

  it('denies a tool when a PreToolUse hook exits 2, with its stderr as the reason; exit 1 does not', async () => {
    const guarded = async (exitCode: number) => {
      const root = pluginProject();
      const home = join(root, '.home');
      mkdirSync(home, { recursive: true });
      // Han's manifest shape for a PreToolUse guard (core's safe-operations hook): event, tool_filter, a command.
      writePlugin(
        root,
        'guard',
        `hooks:\n  no-shell-writes:\n    event: PreToolUse\n    tool_filter: [Bash]\n    command: 'cat > "$CLAUDE_PROJECT_DIR/event.json"; echo "shell writes are not allowed here" >&2; exit ${exitCode}'\n`,
        { file: 'han-plugin.yml' },
      );
      dispatchOn(root, 'PreToolUse', 'Bash');
      api = await startFakeAnthropic({
        replies: [
          { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hi > proof.txt' } }] },
          'Done.',
        ],
      });
      const run = await claude(root, home, api.url, ['--allowedTools', 'Bash']);
      const turns = api.messages();
      await api.close();
      api = undefined;
      expect(run.code).toBe(0);
      // The hook read the event on stdin, as Claude Code's own hooks do.
      expect(JSON.parse(readFileSync(join(root, 'event.json'), 'utf8'))).toMatchObject({
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'echo hi > proof.txt' },
      });
      return { root, afterTool: promptText(turns[1]?.body) };
    };
    const denied = await guarded(2);
    expect(existsSync(join(denied.root, 'proof.txt'))).toBe(false);
    expect(denied.afterTool).toContain('Bash was denied by guard/no-shell-writes (exit code 2)');
    expect(denied.afterTool).toContain('shell writes are not allowed here');
    const allowed = await guarded(1);
    expect(existsSync(join(allowed.root, 'proof.txt'))).toBe(true);
  });
});
