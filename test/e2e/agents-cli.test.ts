// End-to-end: `switchboard agents run` and `switchboard sessions …` as a user runs them (the built CLI, a real
// process) against the fake Messages API — the live view, reading sessions, cleaning, and a crash mid-turn.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { until } from '../helpers/until.ts';

let api: FakeAnthropic;
let dir: string;

const run = (args: string[]) =>
  runCli(dir, args, { env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' } });

/** `agents run planner --session NAME` as a child process, once the fake model holds its (never answered) request. */
async function longTurn(session: string) {
  api.enqueue({ content: [{ type: 'text', text: 'never' }], delayMs: 60_000 });
  const before = api.messages().length;
  const child = spawn(
    process.execPath,
    [BIN, '--cwd', dir, 'agents', 'run', 'planner', '--session', session, 'Long job'],
    {
      env: childEnv(dir, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  await until(() => api.messages().length > before, { timeoutMs: 30_000, what: 'the turn to reach the API' });
  expect(api.messages().length).toBe(before + 1);
  return { child, stderr: () => stderr };
}

beforeAll(async () => {
  api = await startFakeAnthropic();
  dir = tempProject();
  mkdirSync(join(dir, '.switchboard/agents/planner'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/agents/planner/agent.json'),
    JSON.stringify({ name: 'planner', description: 'Plans work', provider: 'anthropic', model: 'claude-test' }),
  );
});
afterAll(async () => {
  await api.close();
});

describe('switchboard agents / sessions', () => {
  it('agents run shows the turn live on stderr and prints the answer on stdout', async () => {
    api.enqueue(
      {
        content: [
          { type: 'text', text: 'Looking at the board.' },
          { type: 'tool_use', id: 'toolu_1', name: 'task__list', input: {} },
        ],
        usage: { input_tokens: 30, output_tokens: 8 },
      },
      { content: [{ type: 'text', text: 'The board is empty.' }], usage: { input_tokens: 40, output_tokens: 6 } },
    );
    const out = await run([
      'agents',
      'run',
      'planner',
      '--session',
      'plan-1',
      '--builtins',
      'What',
      'is',
      'on',
      'the',
      'board?',
    ]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe('The board is empty.\n');
    expect(out.stderr).toContain('starting session plan-1 (agent planner)');
    expect(out.stderr).toMatch(/tool task__list \{\}/);
    expect(out.stderr).toMatch(/tool result: .*\[\]/);
    expect(out.stderr).toContain('[30 in / 8 out tokens]');
    expect(out.stderr).toContain('completed — 70 in / 14 out tokens — session plan-1');
    expect(api.messages().at(-1)?.body.messages[0].content[0].text).toBe('What is on the board?');
  });

  it('agents run with an existing --session resumes it', async () => {
    api.enqueue('Still empty.');
    const out = await run(['agents', 'run', 'planner', '--session', 'plan-1', '-q', 'And now?']);
    expect(out).toMatchObject({ code: 0, stdout: 'Still empty.\n' });
    // -q: no live view; only the line naming the project, which is not the current directory here.
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^switchboard: acting on project /)]);
    expect(JSON.stringify(api.messages().at(-1)?.body.messages)).toContain('What is on the board?');
  });

  it('agents run resuming with --model and --max-tokens runs that turn with them; --builtins is refused', async () => {
    api.enqueue('First.', 'Checked again.');
    expect((await run(['agents', 'run', 'planner', '--session', 'models', '-q', 'Look.'])).code).toBe(0);
    const resume = ['agents', 'run', 'planner', '--session', 'models', '-q'];
    const out = await run([...resume, '--model', 'claude-other', '--max-tokens', '123', 'Again?']);
    expect(out).toMatchObject({ code: 0, stdout: 'Checked again.\n' });
    expect(api.messages().at(-1)?.body).toMatchObject({ model: 'claude-other', max_tokens: 123 });
    const builtins = await run([...resume, '--builtins', 'x']);
    expect(builtins.code).toBe(2);
    expect(builtins.stderr).toContain('--builtins is fixed when a session starts');
    expect((await run(['sessions', 'clean', 'models'])).code).toBe(0);
  });

  it('sessions list, show and tail read the session', async () => {
    const list = JSON.parse((await run(['sessions', 'list', '--json'])).stdout);
    expect(list.sessions).toEqual([
      expect.objectContaining({ session_name: 'plan-1', agent: 'planner', status: 'completed', turns: 3 }),
    ]);
    const show = await run(['sessions', 'show', 'plan-1']);
    expect(show.stdout).toMatch(/plan-1 — completed/);
    expect(show.stdout).toMatch(/provider\s+anthropic \(claude-test\)/);
    expect(show.stdout).toMatch(/3 model calls, 1 tool calls, 80 in \/ 19 out tokens/);
    expect(show.stdout.trim().endsWith('Still empty.')).toBe(true);
    const tail = await run(['sessions', 'tail', 'plan-1', '-n', '3']);
    expect(tail.stdout.trim().split('\n')).toHaveLength(3);
    expect(tail.stdout).toMatch(/turn completed\n$/);
    const raw = await run(['sessions', 'tail', 'plan-1', '--json']);
    expect(
      raw.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toContain('tool_call');
  });

  it('bad names and a clean without a target are usage errors (exit 2)', async () => {
    const bad = await run(['sessions', 'show', 'no spaces']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Session name can only contain alphanumeric characters, dashes, and underscores');
    const runBad = await run(['agents', 'run', 'planner', '--session', 'x'.repeat(61), 'hi']);
    expect(runBad.code).toBe(2);
    expect(runBad.stderr).toContain('--session: Session name must not exceed 60 characters');
    const clean = await run(['sessions', 'clean']);
    expect(clean.code).toBe(2);
    expect(clean.stderr).toContain('pass --all');
    const missing = await run(['sessions', 'show', 'ghost']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No session 'ghost'");
  });

  it('a crash during a turn leaves a readable transcript; the session reads as interrupted and resumes', async () => {
    const { child } = await longTurn('crash');
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const lines = readFileSync(join(dir, '.switchboard/sessions/crash.jsonl'), 'utf8').trim().split('\n');
    const events = lines.map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'message']);
    const show = await run(['sessions', 'show', 'crash', '--json']);
    expect(JSON.parse(show.stdout).meta.status).toBe('interrupted');
    api.enqueue('Done after the crash.');
    const resumed = await run(['agents', 'run', 'planner', '--session', 'crash', '-q', 'Try again']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'Done after the crash.\n' });
    expect(api.messages().at(-1)?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Long job' },
          { type: 'text', text: 'Try again' },
        ],
      },
    ]);
  });

  it('another process sees the running turn: resume is refused, agent.status waits for the end', async () => {
    // The model answers only once the refusal has been seen, however slowly this machine starts processes.
    let answer!: () => void;
    const gate = new Promise<void>((r) => {
      answer = r;
    });
    api.respond(async () => {
      await gate;
      return { content: [{ type: 'text', text: 'finished elsewhere' }] };
    });
    const before = api.messages().length;
    const runner = run(['agents', 'run', 'planner', '--session', 'shared', '-q', 'work']);
    await until(() => api.messages().length > before, { timeoutMs: 30_000, what: 'the turn to reach the API' });
    const refused = await run(['tools', 'call', 'agent.resume', 'session_name=shared', 'prompt=me too']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Session 'shared' is running a turn; one session runs one turn at a time");
    const waiting = run(['tools', 'call', 'agent.status', 'session_name=shared', 'wait_seconds=20']);
    answer();
    api.respond(undefined);
    const waited = await waiting;
    expect(JSON.parse(waited.stdout)).toMatchObject({ status: 'completed', running: false });
    expect((await runner).stdout).toBe('finished elsewhere\n');
  });

  it('Ctrl-C cancels the running turn: exit 130, the session is cancelled and resumable', async () => {
    const { child, stderr } = await longTurn('intr');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr()).toContain('Cancelled; resume with --session intr.');
    const show = JSON.parse((await run(['sessions', 'show', 'intr', '--json'])).stdout);
    expect(show.meta.status).toBe('cancelled');
  });

  it('sessions clean deletes one session, then all', async () => {
    const one = await run(['sessions', 'clean', 'crash']);
    expect(one.stdout).toBe('Removed 1 session: crash\n');
    const all = await run(['sessions', 'clean', '--all', '--json']);
    expect(JSON.parse(all.stdout)).toMatchObject({ removed: ['intr', 'plan-1', 'shared'], skipped: [] });
    expect((await run(['sessions', 'list'])).stdout).toContain('No sessions yet');
  });

  it('agents run without --session starts a new session every time, two in one second included', async () => {
    api.enqueue('first answer', 'second answer');
    const first = await run(['agents', 'run', 'planner', '-q', 'First', 'question']);
    const second = await run(['agents', 'run', 'planner', '-q', 'Second', 'question']);
    expect([first.stdout, second.stdout]).toEqual(['first answer\n', 'second answer\n']);
    // The second turn is a new conversation: its request holds only its own prompt.
    expect(api.messages().at(-1)?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Second question' }] },
    ]);
    const names = JSON.parse((await run(['sessions', 'list', '--json'])).stdout).sessions.map(
      (s: { session_name: string }) => s.session_name,
    );
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^planner-\d{8}-\d{6}(-\d+)?$/);
  });
});
