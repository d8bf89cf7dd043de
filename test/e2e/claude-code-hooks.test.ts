// The real `claude` binary (Claude Code) with `switchboard hook dispatch` as its Stop hook, against a fake model API
// on 127.0.0.1: a failing plugin check sends the agent back with the output as feedback; a passing one lets it stop.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

import { pluginProject, writePlugin } from '../helpers/plugins.ts';

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
): Promise<{ code: number | null; result: any; stderr: string }> {
  const child = spawn(CLAUDE, ['-p', 'finish the work', '--output-format', 'json'], {
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
