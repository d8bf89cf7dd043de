// End-to-end: mekara's real compiled Python scripts (test/fixtures/mekara, unchanged) driven to the end over
// stdio with the official SDK client, a stdio Switchboard killed mid-run and continued by the next one, and the
// error a machine without python3 gets.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio } from '../helpers/cli.ts';
import { gone } from '../helpers/proc.ts';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('\n');
const state = (r: unknown) => (r as ToolResult).structuredContent?.state;

const MEKARA = join(import.meta.dirname, '../fixtures/mekara/project');

/**
 * `<root>/main`: a git repository holding mekara's scripts, laid out as mekara's worktree scripts expect (worktrees
 * beside it, which scripts may work in: `[workspace] extra_dirs`).
 */
function mekaraRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-e2e-mekara-'));
  const dir = join(root, 'main');
  mkdirSync(dir);
  cpSync(MEKARA, dir, { recursive: true });
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard', 'config.toml'), `[workspace]\nextra_dirs = [${JSON.stringify(root)}]\n`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'mekara scripts');
  return dir;
}

const start = (client: Client, name: string, args = '') =>
  client.callTool({ name: 'script__start', arguments: { name, arguments: args } });
const cont = (client: Client, outputs: Record<string, unknown>) =>
  client.callTool({ name: 'script__continue_compiled_script', arguments: { outputs } });

/** Answer until the script ends: a failed command is resolved (the script goes on), an LLM step is done. */
async function driveToEnd(client: Client, answer: unknown): Promise<{ last: unknown; failed: string[] }> {
  const failed: string[] = [];
  for (let i = 0; i < 10; i++) {
    if (state(answer) === 'shell_failure') {
      failed.push(/The command `([^`]+)` exited/.exec(text(answer))?.[1] ?? '?');
      answer = await cont(client, { success: true });
    } else if (state(answer) === 'llm') answer = await cont(client, {});
    else break;
  }
  return { last: answer, failed };
}

function secretOf(result: unknown): number {
  const m = /`shuf -i 1-100 -n 1`\n\n\s*<output>\n\s*(\d+)\n/.exec(text(result));
  if (!m) throw new Error(`no shuf output in:\n${text(result)}`);
  return Number(m[1]);
}

describe('mekara scripts over stdio', () => {
  let client: Client;
  const dir = mekaraRepo();

  beforeAll(async () => {
    ({ client } = await connectStdio(dir, 'e2e-mekara'));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists them as compiled Python scripts', async () => {
    const list = await client.callTool({ name: 'script__list', arguments: {} });
    const scripts = (list.structuredContent as { scripts: Record<string, unknown>[] }).scripts;
    expect(scripts).toContainEqual(
      expect.objectContaining({ name: 'test:random', level: 'mekara', kind: 'compiled', compiled_language: 'python' }),
    );
  });

  it('runs test:random to the end', async () => {
    const first = await start(client, 'test:random');
    expect(first.isError).toBeFalsy();
    expect(state(first)).toBe('llm');
    expect(text(first)).toContain('### Pending LLM step: `test:random[1]`');
    const second = await cont(client, { guess: secretOf(first) });
    expect(text(second)).toContain('You got it right!');
    const done = await cont(client, {});
    expect(state(done)).toBe('finished');
  });

  it('runs test:double-or-nothing to the end, asking for the number it was not given', async () => {
    const first = await start(client, 'test:double-or-nothing');
    expect(text(first)).toContain("Get a number from the user if one wasn't already provided.");
    const done = await cont(client, { number: '4' });
    expect(state(done)).toBe('finished');
    const written = readFileSync(join(dir, 'resulting-number.txt'), 'utf8').trim();
    expect(['8.0', '0']).toContain(written);
  });

  it('runs setup-worktree then teardown-worktree to the end: a real git worktree made and removed', async () => {
    const branches = () => execFileSync('git', ['branch', '--list', 'mekara/feat'], { cwd: dir, encoding: 'utf8' });
    const setup = await start(client, 'setup-worktree', 'feat');
    expect(text(setup)).toContain('- `setup-worktree[0]`: ✓ `git worktree add -b mekara/feat ../feat`');
    // poetry and pnpm may be missing here: each failure is handed to the agent, which lets the script go on.
    const made = await driveToEnd(client, setup);
    expect(state(made.last)).toBe('finished');
    expect(existsSync(join(dir, '..', 'feat', '.mekara', 'scripts'))).toBe(true);
    expect(branches()).toContain('mekara/feat');
    // .claude/settings.local.json does not exist in this project: the copy always fails.
    expect(made.failed).toContain('cp .claude/settings.local.json ../feat/.claude/settings.local.json');

    // teardown-worktree (Auto and ShellResult imported, a `yield from` helper) run in the new worktree.
    const teardown = await client.callTool({
      name: 'script__start',
      arguments: { name: 'teardown-worktree', working_dir: '../feat' },
    });
    expect(text(teardown)).toContain('- `teardown-worktree[0]`: ✓ `git branch --show-current`');
    const removed = await driveToEnd(client, teardown);
    expect(state(removed.last)).toBe('finished');
    // There is no origin: both remote steps fail and are resolved by the agent.
    expect(removed.failed).toEqual(['git ls-remote origin mekara/feat', 'git push origin --delete mekara/feat']);
    expect(existsSync(join(dir, '..', 'feat'))).toBe(false);
    expect(branches()).toBe('');
  });
});

describe('a stdio Switchboard killed in the middle of a mekara script', () => {
  it('is continued by the next one: the Python generator is replayed with the recorded results', async () => {
    const dir = mekaraRepo();
    const first = await connectStdio(dir, 'e2e-mekara-crash');
    const started = await start(first.client, 'test:random');
    const secret = secretOf(started);
    const pid = first.transport.pid as number;
    process.kill(pid, 'SIGKILL');
    expect(await gone(pid)).toBe(true);
    await first.client.close().catch(() => {});

    const second = await connectStdio(dir, 'e2e-mekara-crash');
    try {
      const status = await second.client.callTool({ name: 'script__status', arguments: {} });
      expect(status.structuredContent).toMatchObject({
        state: 'llm',
        run_id: (started.structuredContent as { run_id: string }).run_id,
      });
      expect(text(status)).toContain('Stack: `test:random[1]`');
      // The replayed script got the recorded number, not a new one.
      const next = await cont(second.client, { guess: secret });
      expect(text(next)).toContain('You got it right!');
      expect(state(await cont(second.client, {}))).toBe('finished');
    } finally {
      await second.client.close();
    }
  });
});

describe('a machine without python3', () => {
  it('gets a clear error when a Python script starts, and NL scripts still run', async () => {
    const dir = mekaraRepo();
    const emptyBin = mkdtempSync(join(tmpdir(), 'switchboard-nopython-'));
    const { client } = await connectStdio(dir, 'e2e-mekara-nopython', { PATH: emptyBin });
    try {
      const failed = await start(client, 'test:random');
      expect(failed.isError).toBe(true);
      expect(text(failed)).toContain(
        "The compiled script .mekara/scripts/compiled/test/random.py is a Python script (mekara's format) and needs `python3` (3.10 or later) on the PATH of Switchboard, but there is none",
      );
      expect(text(failed)).toContain(`PATH=${emptyBin}`);
      const nl = await start(client, 'test:imagine-object');
      expect(state(nl)).toBe('nl');
    } finally {
      await client.close();
    }
  });
});
