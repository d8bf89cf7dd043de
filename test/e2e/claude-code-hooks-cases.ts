// The real `claude` binary (Claude Code) against a fake model API, with `switchboard hook dispatch` as its hook, and
// the HAN_FILES case written once for two Han-format Stop checks: our commit-often (claude-code-hooks.test.ts beside
// this file, `npm test`) and Han's git-storytelling (test/originals/han.test.ts, `npm run test:shared`).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { pluginProject, writeFiles } from '../helpers/plugins.ts';

export const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe');

/** Claude Code's environment for a throwaway HOME: no network beyond what a local marketplace needs. */
export const claudeEnv = (home: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: home,
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
});

/** Every message text of a request, joined: what the model was shown. */
export function promptText(body: any): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(body?.messages);
  return parts.join('\n');
}

/** Run `claude -p` in the project against the fake API; resolves with its exit code and JSON result. */
export function claude(
  root: string,
  home: string,
  url: string,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; result: any; stderr: string }> {
  const child = spawn(CLAUDE, ['-p', 'finish the work', '--output-format', 'json', ...extraArgs], {
    cwd: root,
    env: {
      ...claudeEnv(home),
      ...extraEnv,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
      ANTHROPIC_BASE_URL: url,
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

/** Claude Code settings whose `event` hooks run `switchboard hook dispatch` (with a tool matcher for tool events). */
export function dispatchOn(root: string, event: string, matcher?: string): void {
  const dispatch = `"${process.execPath}" "${BIN}" hook dispatch`;
  writeFiles(root, {
    '.claude/settings.json': JSON.stringify({
      hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: dispatch }] }] },
    }),
  });
}

/**
 * A Han-format plugin (`plugin`, its folder) whose Stop check runs on ${HAN_FILES} gets only the files the session
 * edited: its check (`tool`) lists story.txt, edited and not committed, and not other.txt, changed before the
 * session began. The check's script lists the files it was given that git has not committed.
 */
export async function stopCheckGetsEditedFiles(plugin: string, tool: string): Promise<void> {
  const root = pluginProject();
  const home = join(root, '.home');
  mkdirSync(home, { recursive: true });
  writeFiles(root, {
    'story.txt': 'once upon a time\n',
    'other.txt': 'left alone\n',
    '.gitignore': '.home/\n.switchboard/\n.claude/\n',
    '.switchboard/config.toml': `[plugins]\npaths = ["${plugin}"]\n`,
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
  // Uncommitted before the session began: not the session's business, and Han would not name it.
  writeFileSync(join(root, 'other.txt'), 'changed by someone else\n');
  dispatchOn(root, 'Stop');
  const api = await startFakeAnthropic({
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
  try {
    const run = await claude(root, home, api.url, ['--permission-mode', 'acceptEdits']);
    expect(run.code).toBe(0);
    expect(readFileSync(join(root, 'story.txt'), 'utf8')).toBe('twice upon a time\n');
    const feedback = api
      .messages()
      .map((m) => promptText(m.body))
      .find((t) => t.includes('Stop hook feedback'));
    expect(feedback).toContain(tool);
    expect(feedback).toContain('Edited in this session and not committed yet:');
    expect(feedback).toContain('  * story.txt');
    expect(feedback).not.toContain('other.txt');
  } finally {
    await api.close();
  }
}
