// End-to-end: compiled Python scripts in mekara's format (our own, test/fixtures/mekara-format) driven to the end
// over stdio with the official SDK client, a real git worktree made and removed by two of them, a stdio Switchboard
// killed mid-run and continued by the next one, and the error a machine without python3 gets.
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

const MEKARA = join(import.meta.dirname, '../fixtures/mekara-format/project');

/**
 * `<root>/main`: a git repository holding the mekara-format scripts; worktree-add puts worktrees beside it, which
 * scripts may work in (`[workspace] extra_dirs`).
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

/** The winning number `od` printed in lottery:draw's first step (random, 32 bits). */
function winningOf(result: unknown): number {
  const m = /`od -An -N4 -tu4 \/dev\/urandom`\n\n\s*<output>\n\s*(\d+)\n/.exec(text(result));
  if (!m) throw new Error(`no od output in:\n${text(result)}`);
  return Number(m[1]);
}

describe('mekara-format scripts over stdio', () => {
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
      expect.objectContaining({ name: 'lottery:draw', level: 'mekara', kind: 'compiled', compiled_language: 'python' }),
    );
  });

  it('runs lottery:draw to the end', async () => {
    const first = await start(client, 'lottery:draw');
    expect(first.isError).toBeFalsy();
    expect(state(first)).toBe('llm');
    expect(text(first)).toContain('### Pending LLM step: `lottery:draw[1]`');
    const second = await cont(client, { ticket: winningOf(first) });
    expect(text(second)).toContain('Your ticket wins!');
    const done = await cont(client, {});
    expect(state(done)).toBe('finished');
  });

  it('runs lottery:cash-out to the end, asking for the stake it was not given', async () => {
    const first = await start(client, 'lottery:cash-out');
    expect(text(first)).toContain('Ask the user how much they want to stake, unless the arguments already say.');
    const done = await cont(client, { stake: '4' });
    expect(state(done)).toBe('finished');
    expect(readFileSync(join(dir, 'lottery-payout.txt'), 'utf8')).toBe('12.0\n');
  });

  it('runs worktree-add then worktree-remove to the end: a real git worktree made and removed', async () => {
    const branches = () => execFileSync('git', ['branch', '--list', 'wt/feat'], { cwd: dir, encoding: 'utf8' });
    const setup = await start(client, 'worktree-add', 'feat');
    expect(text(setup)).toContain('- `worktree-add[0]`: ✓ `git worktree add -b wt/feat ../feat`');
    const made = await driveToEnd(client, setup);
    expect(state(made.last)).toBe('finished');
    expect(existsSync(join(dir, '..', 'feat', '.mekara', 'scripts'))).toBe(true);
    expect(branches()).toContain('wt/feat');
    // There is no .env.local in this project: the copy fails, and the agent lets the script go on.
    expect(made.failed).toEqual(['cp .env.local ../feat/.env.local']);

    // worktree-remove (Auto and ShellResult imported, a `yield from` helper) run in the new worktree.
    const teardown = await client.callTool({
      name: 'script__start',
      arguments: { name: 'worktree-remove', working_dir: '../feat' },
    });
    expect(text(teardown)).toContain('- `worktree-remove[0]`: ✓ `git rev-parse --abbrev-ref HEAD`');
    const removed = await driveToEnd(client, teardown);
    expect(state(removed.last)).toBe('finished');
    // There is no origin: both remote steps fail and are resolved by the agent (the helper saw git's error output).
    expect(removed.failed).toEqual(['git ls-remote --heads origin wt/feat', 'git push origin --delete wt/feat']);
    expect(existsSync(join(dir, '..', 'feat'))).toBe(false);
    expect(branches()).toBe('');
  });
});

describe('a stdio Switchboard killed in the middle of a mekara-format script', () => {
  it('is continued by run_id in the next one: the Python generator is replayed with the recorded results', async () => {
    const dir = mekaraRepo();
    const first = await connectStdio(dir, 'e2e-mekara-crash');
    const started = await start(first.client, 'lottery:draw');
    const winning = winningOf(started);
    const pid = first.transport.pid as number;
    process.kill(pid, 'SIGKILL');
    expect(await gone(pid)).toBe(true);
    await first.client.close().catch(() => {});

    const runId = (started.structuredContent as { run_id: string }).run_id;
    const second = await connectStdio(dir, 'e2e-mekara-crash');
    try {
      // A fresh start in the new process is a new stack (the issue: it used to land on top of the left run).
      const fresh = await start(second.client, 'lottery:prize');
      expect(state(fresh)).toBe('nl');
      expect(text(fresh)).not.toContain('lottery:draw');
      expect(state(await second.client.callTool({ name: 'script__finish_nl_script', arguments: {} }))).toBe('finished');
      const status = await second.client.callTool({ name: 'script__status', arguments: { run_id: runId } });
      expect(status.structuredContent).toMatchObject({ state: 'llm', run_id: runId });
      expect(text(status)).toContain('Stack: `lottery:draw[1]`');
      // The replayed script got the recorded 32-bit number, not a new one.
      const next = await cont(second.client, { ticket: winning });
      expect(text(next)).toContain('Your ticket wins!');
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
      const failed = await start(client, 'lottery:draw');
      expect(failed.isError).toBe(true);
      expect(text(failed)).toContain(
        "The compiled script .mekara/scripts/compiled/lottery/draw.py is a Python script (mekara's format) and needs `python3` (3.10 or later) on the PATH of Switchboard, but there is none",
      );
      expect(text(failed)).toContain(`PATH=${emptyBin}`);
      const nl = await start(client, 'lottery:prize');
      expect(state(nl)).toBe('nl');
    } finally {
      await client.close();
    }
  });
});
