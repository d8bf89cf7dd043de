// The real `claude` binary (Claude Code) with `switchboard hook dispatch` as its Stop hook, against a fake model API
// on 127.0.0.1: a failing plugin check sends the agent back with the output as feedback; a passing one lets it stop.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';

/** Every message text of a request, joined: what the model was shown. */
function promptText(body: any): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(body?.messages);
  return parts.join('\n');
}

import { pluginProject, writeFiles, writePlugin } from '../helpers/plugins.ts';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe');

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

/** Run `claude -p` in the project against the fake API; resolves with its exit code and JSON result. */
function claude(
  root: string,
  home: string,
  url: string,
  extraArgs: string[] = [],
): Promise<{ code: number | null; result: any; stderr: string }> {
  const child = spawn(CLAUDE, ['-p', 'finish the work', '--output-format', 'json', ...extraArgs], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
      ANTHROPIC_BASE_URL: url,
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      SWITCHBOARD_HOME: join(home, '.switchboard'),
      SWITCHBOARD_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      let result: any;
      try {
        result = JSON.parse(stdout);
      } catch {
        result = stdout;
      }
      resolve({ code, result, stderr });
    }),
  );
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

/** Claude Code settings whose `event` hooks run `switchboard hook dispatch` (with a tool matcher for tool events). */
function dispatchOn(root: string, event: string, matcher?: string): void {
  const dispatch = `"${process.execPath}" "${BIN}" hook dispatch`;
  writeFiles(root, {
    '.claude/settings.json': JSON.stringify({
      hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: dispatch }] }] },
    }),
  });
}

/** Our own plugins in Han's format (test/fixtures/han-format); Han's own: test/originals/han.test.ts. */
const HAN_FORMAT = resolve(import.meta.dirname, '../fixtures/han-format/marketplace/plugins');

describe("Han's plugins under Claude Code, through switchboard hook dispatch", () => {
  it('gives a han-plugin.yml Stop check only the files the session edited as ${HAN_FILES}', async () => {
    const root = pluginProject();
    const home = join(root, '.home');
    mkdirSync(home, { recursive: true });
    writeFiles(root, {
      'story.txt': 'once upon a time\n',
      'other.txt': 'left alone\n',
      '.gitignore': '.home/\n.switchboard/\n.claude/\n',
      '.switchboard/config.toml': `[plugins]\npaths = ["${join(HAN_FORMAT, 'patterns/commit-often')}"]\n`,
    });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
    // Uncommitted before the session began: not the session's business, and Han would not name it.
    writeFileSync(join(root, 'other.txt'), 'changed by someone else\n');
    dispatchOn(root, 'Stop');
    api = await startFakeAnthropic({
      replies: [
        { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(root, 'story.txt') } }] },
        {
          content: [
            {
              type: 'tool_use',
              name: 'Edit',
              input: { file_path: join(root, 'story.txt'), old_string: 'once', new_string: 'twice' },
            },
          ],
        },
        'Done.',
      ],
      fallback: 'Done.',
    });
    const run = await claude(root, home, api.url, ['--permission-mode', 'acceptEdits']);
    expect(run.code).toBe(0);
    expect(readFileSync(join(root, 'story.txt'), 'utf8')).toBe('twice upon a time\n');
    const feedback = api
      .messages()
      .map((m) => promptText(m.body))
      .find((t) => t.includes('Stop hook feedback'));
    // commit-often's pending.sh lists the files it was given that git has not committed.
    expect(feedback).toContain('Edited in this session and not committed yet:');
    expect(feedback).toContain('  * story.txt');
    expect(feedback).not.toContain('other.txt');
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
