// Scripts and cassettes in mekara's formats (our own, test/fixtures/mekara-format): compiled Python scripts run
// through the script tools with the real Python runner, a run survives a restart, `.mekara/scripts` yields to
// Switchboard's folder with a named warning, and mekara-format cassettes replay (or are refused naming the entry and
// field). The cassette cases are in mekara-cassette-cases.ts; mekara's own NL scripts and cassettes are tested in
// test/originals/mekara.test.ts. Also: recording with MEKARA_VCR_CASSETTE, and runs continued without python3.
// Over 400 lines: every case uses the one fixture project and its helpers above, which a split would copy.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createLogger } from '../../../src/observe/logger.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { until } from '../../helpers/until.ts';
import { replayCassetteFile } from '../../helpers/vcr.ts';
import { projectScripts, type ToolAnswer, tool, writeFiles } from './helpers.ts';
import { mekaraCassetteCases } from './mekara-cassette-cases.ts';

const FORMAT = join(import.meta.dirname, '../../fixtures/mekara-format');
const PROJECT = join(FORMAT, 'project');
const env = { ...process.env, SWITCHBOARD_HOME: join(tmpdir(), 'switchboard-mekara-nohome') };
/** Where lottery:round has lottery:cash-out write its payout (its working_dir is /tmp). */
const PAYOUT = '/tmp/lottery-payout.txt';

const dirs: string[] = [];
const hubs: TestHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh project holding the `.mekara/scripts` fixture; lottery:round writes to /tmp, so the workspace allows it. */
function mekaraProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-mekara-'));
  dirs.push(dir);
  cpSync(PROJECT, dir, { recursive: true });
  writeFiles(dir, { '.switchboard/config.toml': '[workspace]\nextra_dirs = ["/tmp"]\n' });
  return dir;
}

async function open(dir: string, extra: Partial<Parameters<typeof testHub>[0]> = {}): Promise<TestHub> {
  const hub = await testHub({ cwd: dir, ...extra });
  hubs.push(hub);
  return hub;
}

function ok(answer: ToolAnswer): ToolAnswer {
  if (!answer.ok) throw new Error(`${answer.code}: ${answer.text}`);
  return answer;
}

/** The winning number `od` printed in lottery:draw's first step (random, 32 bits). */
function winningOf(answer: ToolAnswer): number {
  const m = /`od -An -N4 -tu4 \/dev\/urandom`\n\n\s*<output>\n\s*(\d+)\n/.exec(answer.text);
  if (!m) throw new Error(`no od output in:\n${answer.text}`);
  return Number(m[1]);
}

/** Python runner processes that are children of this test process. */
function ownRunners(): string[] {
  return execFileSync('ps', ['-eo', 'ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.trim().startsWith(`${process.pid} `) && l.includes('switchboard_runner.py'));
}

/**
 * The runners once exactly `count` are left: a runner answers `closed` and then exits, so one that was just closed
 * may still be running for a moment on a loaded machine. Fails naming the ones left after 5 s.
 */
async function runnersLeft(count: number): Promise<string[]> {
  let seen: string[] = [];
  return until(
    () => {
      seen = ownRunners();
      return seen.length === count && seen;
    },
    { timeoutMs: 5_000, what: () => `${count} Python runner(s) left; running: ${JSON.stringify(seen)}` },
  );
}

describe('compiled Python scripts in .mekara/scripts', () => {
  it('are listed as compiled Python scripts of the mekara level; __init__.py files are not scripts', async () => {
    const hub = await open(mekaraProject());
    const { scripts, warnings } = await hub.value('script.list');
    for (const name of ['lottery:draw', 'lottery:round', 'lottery:cash-out', 'worktree-add', 'worktree-remove'])
      expect(scripts).toContainEqual(
        expect.objectContaining({ name, level: 'mekara', kind: 'compiled', compiled_language: 'python' }),
      );
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'lottery:prize', level: 'mekara', kind: 'nl' }));
    expect(scripts).toContainEqual(
      expect.objectContaining({
        name: 'lottery:draw',
        description: "Hold one lottery draw: a random winning number, the user's ticket, and the verdict.",
      }),
    );
    expect(scripts.map((s: { name: string }) => s.name).filter((n: string) => n.includes('__init__'))).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('runs lottery:draw to the end: shell step, LLM step, function step with its printed output', async () => {
    const hub = await open(mekaraProject());
    const first = ok(await tool(hub, 'script.start', { name: 'lottery:draw' }));
    expect(first.state).toBe('llm');
    expect(first.text).toContain('### Pending LLM step: `lottery:draw[1]`');
    expect(first.text).toContain('Ask the user which ticket number they hold.');
    expect(first.text).toContain("- `ticket`: the user's ticket number, as an integer");
    const winning = winningOf(first);
    const second = ok(await tool(hub, 'script.continue_compiled_script', { outputs: { ticket: winning } }));
    expect(second.text).toContain('- `lottery:draw[2]`: ✓ `_announce(…)`');
    expect(second.text).toContain('Your ticket wins!');
    expect(second.text).toContain('tell the user the jackpot is theirs');
    const done = ok(await tool(hub, 'script.continue_compiled_script', { outputs: {} }));
    expect(done.state).toBe('finished');
    expect(await runnersLeft(0)).toEqual([]);
  });

  it('runs lottery:cash-out with its argument, keeping Python floats as floats', async () => {
    const dir = mekaraProject();
    const hub = await open(dir);
    const done = ok(await tool(hub, 'script.start', { name: 'lottery:cash-out', arguments: '3' }));
    expect(done.state).toBe('finished');
    // 3 tripled is the float 9.0: written "9.0" as Python prints it, not "9".
    expect(readFileSync(join(dir, 'lottery-payout.txt'), 'utf8')).toBe('9.0\n');
    expect(done.text).toContain('`echo 9.0 > lottery-payout.txt`');
  });

  it('runs lottery:round to the end: nested compiled, NL and a working_dir, then restarts mid-run', async () => {
    const dir = mekaraProject();
    const first = await open(dir);
    const started = ok(await tool(first, 'script.start', { name: 'lottery:round' }));
    expect(started.text).toContain('### Pending LLM step: `lottery:round[0] > lottery:draw[1]`');
    const winning = winningOf(started);
    const lost = ok(await tool(first, 'script.continue_compiled_script', { outputs: { ticket: winning + 3 } }));
    expect(lost.text).toContain('No luck this draw.');
    expect(lost.text).toContain('commiserate with the user');
    const gap = ok(await tool(first, 'script.continue_compiled_script', { outputs: {} }));
    expect(gap.text).toContain('### Pending LLM step: `lottery:round[1]`');
    const nl = ok(await tool(first, 'script.continue_compiled_script', { outputs: { gap: 3 } }));
    expect(nl.state).toBe('nl');
    expect(nl.text).toContain('### Pending NL script: `lottery:round[4] > lottery:prize`');
    expect(nl.text).toContain('`_payout(…)`');
    expect(readFileSync(PAYOUT, 'utf8')).toBe('9.0\n');
    expect(nl.text).toContain(`\`cat ${PAYOUT}\`\n\n  <output>\n  9.0\n  </output>`);
    expect((await runnersLeft(1)).length).toBe(1); // lottery:round waits; its children have finished.
    await first.close();
    expect(await runnersLeft(0)).toEqual([]);

    // A new hub rebuilds the run from the journal: Python generators replayed, no step run again.
    rmSync(PAYOUT);
    const second = await open(dir);
    const status = ok(await tool(second, 'script.status'));
    expect(status).toMatchObject({ state: 'nl', runId: started.runId });
    expect(status.text).toContain('Stack: `lottery:round[4] > lottery:prize`');
    const last = ok(await tool(second, 'script.finish_nl_script'));
    expect(last.text).toContain('### Pending LLM step: `lottery:round[5]`');
    expect(last.text).toContain('Tell the user they receive as many of the chosen prize as the payout says');
    expect(ok(await tool(second, 'script.continue_compiled_script', { outputs: {} })).state).toBe('finished');
    expect(existsSync(PAYOUT)).toBe(false);
  });

  it('hands an exception of the script to the agent, and a value JSON cannot hold is named', async () => {
    const dir = mekaraProject();
    projectScripts(dir, {
      'nl/py-fails.md': '# Fails\n\nDo it by hand.\n',
      'compiled/py_fails.py': [
        'from mekara.scripting.runtime import auto',
        'def _stamp():',
        '    print("between steps on stdout")',
        '    return {1, 2}',
        'def execute(request):',
        '    print("the script prints to stdout too")',
        '    r = yield auto("echo fine", context="a shell step")',
        '    yield auto(_stamp, context="returns a set")',
        '',
      ].join('\n'),
    });
    const hub = await open(dir);
    const answer = ok(await tool(hub, 'script.start', { name: 'py-fails' }));
    expect(answer.state).toBe('fallback');
    expect(answer.text).toContain('`echo fine`');
    expect(answer.text).toContain(
      'TypeError: the value _stamp() returned is a set, which cannot be recorded: use str, int, float, bool, None, lists and dicts with string keys',
    );
    expect(answer.text).toContain('between steps on stdout');
    expect(answer.text).toContain('Do it by hand.');
  });

  it('refuses a .py file without execute(request), naming the file and what it must define', async () => {
    const dir = mekaraProject();
    projectScripts(dir, { 'nl/empty.md': '# Empty\n', 'compiled/empty.py': 'x = 1\n' });
    const hub = await open(dir);
    const answer = await tool(hub, 'script.start', { name: 'empty' });
    expect(answer).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(answer.text).toContain('Compiled script .switchboard/scripts/compiled/empty.py failed to load');
    expect(answer.text).toContain('def execute(request: str):');
  });

  it('says clearly that python3 is missing when a Python script starts', async () => {
    const hub = await open(mekaraProject(), { env: { PATH: '/nonexistent-bin' } });
    const answer = await tool(hub, 'script.start', { name: 'lottery:draw' });
    expect(answer).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(answer.text).toContain('.mekara/scripts/compiled/lottery/draw.py is a Python script');
    expect(answer.text).toContain('needs `python3` (3.10 or later) on the PATH of Switchboard');
    expect(answer.text).toContain('PATH=/nonexistent-bin');
  });
});

describe('recording with MEKARA_VCR_CASSETTE', () => {
  /** The keys mekara's cassette reader takes per event (it refuses any other), by event and by result type. */
  const MEKARA_KEYS: Record<string, string[]> = {
    mcp_tool_input: ['type', 'tool', 'input'],
    mcp_tool_output: ['type', 'tool', 'output'],
    auto_step: ['type', 'working_dir', 'inputs', 'result'],
    inputs: ['action_type', 'action', 'context', 'kwargs'],
    shell: ['type', 'success', 'exit_code', 'output'],
    call: ['type', 'success', 'value', 'error', 'output'],
    exception: ['type', 'success', 'exception', 'step_description', 'output'],
  };
  const INPUT_KEYS: Record<string, string[]> = {
    start: ['name', 'arguments', 'working_dir'],
    continue_compiled_script: ['outputs'],
    finish_nl_script: [],
    status: [],
  };

  /** lottery:round driven to the end by a hub recording into `rec.yaml` in mekara's format. */
  async function recordRound(dir: string) {
    const hub = await open(dir, { env: { ...env, MEKARA_VCR_CASSETTE: 'rec.yaml' } });
    const started = ok(await tool(hub, 'script.start', { name: 'lottery:round' }));
    const winning = winningOf(started);
    ok(await tool(hub, 'script.continue_compiled_script', { outputs: { ticket: winning + 3 } }));
    ok(await tool(hub, 'script.status'));
    ok(await tool(hub, 'script.continue_compiled_script', { outputs: {} }));
    ok(await tool(hub, 'script.continue_compiled_script', { outputs: { gap: 3 } }));
    ok(await tool(hub, 'script.finish_nl_script'));
    expect(ok(await tool(hub, 'script.continue_compiled_script', { outputs: {} })).state).toBe('finished');
    await hub.close();
    return join(dir, 'rec.yaml');
  }

  it("writes mekara's event shapes, tool names and floats, and replays word for word", async () => {
    const dir = mekaraProject();
    const file = await recordRound(dir);
    const text = readFileSync(file, 'utf8');
    const data = parse(text);
    expect(data.initial_state).toEqual({ working_dir: dir, recorded_by: 'switchboard' });
    const tools = data.events.filter((e: any) => e.type === 'mcp_tool_input').map((e: any) => e.tool);
    expect(tools).toEqual([
      'start',
      'continue_compiled_script',
      'status',
      'continue_compiled_script',
      'continue_compiled_script',
      'finish_nl_script',
      'continue_compiled_script',
    ]);
    for (const e of data.events) {
      for (const key of Object.keys(e)) expect(MEKARA_KEYS[e.type]).toContain(key);
      if (e.type === 'mcp_tool_input') expect(Object.keys(e.input).sort()).toEqual([...INPUT_KEYS[e.tool]].sort());
      if (e.type !== 'auto_step') continue;
      for (const key of Object.keys(e.inputs)) expect(MEKARA_KEYS.inputs).toContain(key);
      expect(Object.keys(e.result).sort()).toEqual([...MEKARA_KEYS[e.result.type]].sort());
      expect(typeof e.inputs.context).toBe('string');
      // mekara records no kwargs for a command step.
      expect('kwargs' in e.inputs).toBe(e.inputs.action_type === 'call');
    }
    expect(data.events[0].input).toEqual({ name: 'lottery:round', arguments: '', working_dir: null });
    // The tripled stake is the float 9.0, written as Python writes it; no `$float` marker of Switchboard's.
    expect(text).toMatch(/value: 9\.0\n/);
    expect(text).not.toContain('$float');
    await expect(replayCassetteFile(file, dir, env)).resolves.toMatchObject({ calls: 7 });
  });

  it("compares the recorded answers exactly when replayed (they are Switchboard's words)", async () => {
    const dir = mekaraProject();
    const file = await recordRound(dir);
    const data = parse(readFileSync(file, 'utf8'));
    const status = data.events.findIndex((e: any) => e.type === 'mcp_tool_output' && e.tool === 'status');
    data.events[status].output += ' (edited)';
    writeFileSync(file, stringify(data, { lineWidth: 0 }));
    await expect(replayCassetteFile(file, dir, env)).rejects.toThrow(
      new RegExp(`VCR replay mismatch at event ${status + 1}\\.`),
    );
  });
});

describe('a run of a Python script continued where python3 is missing', () => {
  const SRC = join(import.meta.dirname, '../../../src/index.ts');
  const noPython = { env: { PATH: '/nonexistent-bin' } };

  it('says Python is missing (not that the script changed), keeps the run, and continues it once Python is back', async () => {
    const dir = mekaraProject();
    const first = await open(dir);
    const started = ok(await tool(first, 'script.start', { name: 'lottery:draw' }));
    await first.close();

    const second = await open(dir, noPython);
    const status = await tool(second, 'script.status');
    expect(status).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(status.text).toContain(`Script run '${started.runId}' cannot be continued now`);
    expect(status.text).toContain('.mekara/scripts/compiled/lottery/draw.py is a Python script');
    expect(status.text).toContain('needs `python3` (3.10 or later) on the PATH of Switchboard, but there is none');
    expect(status.text).toContain('PATH=/nonexistent-bin');
    expect(status.text).toContain('the run is kept');
    expect(status.text).not.toContain('changed');
    expect((await second.services.store.scriptRuns.get(started.runId as string))?.status).toBe('running');
    await second.close();

    const third = await open(dir);
    const back = ok(await tool(third, 'script.status'));
    expect(back).toMatchObject({ state: 'llm', runId: started.runId });
    expect(back.text).toContain('Stack: `lottery:draw[1]`');
  });

  it('says so too when the Python script is nested under a JS one (the call falls back, the replay does not)', async () => {
    const dir = mekaraProject();
    projectScripts(dir, {
      'nl/outer.md': '# Outer\n',
      'compiled/outer.mjs': `import { callScript, llm } from ${JSON.stringify(SRC)};\nexport default function* () { yield callScript('lottery:draw'); yield llm('done?'); }\n`,
    });
    const first = await open(dir);
    const started = ok(await tool(first, 'script.start', { name: 'outer' }));
    expect(started.text).toContain('`outer[0] > lottery:draw[1]`');
    await first.close();

    const second = await open(dir, noPython);
    const status = await tool(second, 'script.status');
    expect(status).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(status.text).toContain('lottery/draw.py is a Python script');
    expect(status.text).toContain('but there is none (PATH=/nonexistent-bin)');
    expect((await second.services.store.scriptRuns.get(started.runId as string))?.status).toBe('running');
  });
});

describe('.mekara/scripts next to .switchboard/scripts', () => {
  it("lets Switchboard's own folder win a name clash and names both files in script__list and the log", async () => {
    const dir = mekaraProject();
    projectScripts(dir, { 'nl/lottery/draw.md': '# Own draw\n\nPick a number yourself.\n' });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const hub = await open(dir, { logger: createLogger('warn', sink) });
    const { scripts, warnings } = await hub.value('script.list');
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'lottery:draw', level: 'project', kind: 'nl' }));
    const expected =
      ".mekara/scripts/nl/lottery/draw.md is not used: .switchboard/scripts/nl/lottery/draw.md has the same script name and Switchboard's own folder wins. Rename or delete one of them.";
    expect(warnings).toEqual([expected]);
    expect(lines.join('')).toContain(JSON.stringify(expected).slice(1, -1));
    const started = ok(await tool(hub, 'script.start', { name: 'lottery:draw' }));
    expect(started.text).toContain('Pick a number yourself.');
  });
});

describe('~/.mekara/scripts, the user-level mekara folder', () => {
  /** A temporary HOME holding the fixture's scripts where `mekara install` puts them, and a project beside it. */
  function withUserMekara(): { dir: string; home: string } {
    const home = mkdtempSync(join(tmpdir(), 'switchboard-mekara-home-'));
    dirs.push(home);
    cpSync(join(PROJECT, '.mekara'), join(home, '.mekara'), { recursive: true });
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-mekara-'));
    dirs.push(dir);
    return { dir, home };
  }

  it('lists its scripts at the user-mekara level and runs its compiled Python scripts', async () => {
    const { dir, home } = withUserMekara();
    const hub = await open(dir, { env: { HOME: home } });
    const { scripts, warnings } = await hub.value('script.list');
    expect(scripts).toContainEqual(
      expect.objectContaining({
        name: 'lottery:draw',
        level: 'user-mekara',
        kind: 'compiled',
        compiled_language: 'python',
      }),
    );
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'lottery:prize', level: 'user-mekara' }));
    expect(warnings).toEqual([]);
    const first = ok(await tool(hub, 'script.start', { name: 'lottery:draw' }));
    expect(first.text).toContain('### Pending LLM step: `lottery:draw[1]`');
    winningOf(first);
  });

  it("yields to the project's .switchboard and .mekara folders and to ~/.switchboard, naming each clash with a Switchboard folder", async () => {
    const { dir, home } = withUserMekara();
    projectScripts(dir, { 'nl/lottery/draw.md': '# Own draw\n\nPick a number yourself.\n' });
    writeFiles(join(dir, '.mekara', 'scripts'), { 'nl/lottery/round.md': '# Project mekara round\n\nPlay here.\n' });
    // The user's Switchboard folder (SWITCHBOARD_HOME, below the project in testHub) beats the user's mekara one.
    writeFiles(join(dir, '.home', 'scripts'), { 'compiled/worktree_add.mjs': 'export default function* () {}\n' });
    const hub = await open(dir, { env: { HOME: home } });
    const { scripts, warnings } = await hub.value('script.list');
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'lottery:draw', level: 'project', kind: 'nl' }));
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'lottery:round', level: 'mekara', kind: 'nl' }));
    expect(scripts).toContainEqual(
      expect.objectContaining({
        name: 'worktree-add',
        level: 'user-mekara',
        compiled_level: 'user',
        compiled_language: 'javascript',
      }),
    );
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'lottery:cash-out', level: 'user-mekara' }));
    // The project's .mekara hiding ~/.mekara is mekara's own precedence: no warning for lottery:round.
    expect(warnings).toEqual([
      "~/.mekara/scripts/nl/lottery/draw.md is not used: .switchboard/scripts/nl/lottery/draw.md has the same script name and Switchboard's own folder wins. Rename or delete one of them.",
      "~/.mekara/scripts/compiled/worktree_add.py is not used: .home/scripts/compiled/worktree_add.mjs has the same script name and Switchboard's own folder wins. Rename or delete one of them.",
    ]);
    const started = ok(await tool(hub, 'script.start', { name: 'lottery:draw' }));
    expect(started.text).toContain('Pick a number yourself.');
  });
});

describe('mekara-format cassettes', () => {
  mekaraCassetteCases({
    file: join(FORMAT, 'cassettes', 'round.yaml'),
    project: () => PROJECT,
    env,
    written: PAYOUT,
    step: { recorded: 'od -An -N2 -tu2 /dev/urandom', actual: 'od -An -N4 -tu4 /dev/urandom' },
    stacks: { stack: 'lottery:round[0] > lottery:draw[1]', moved: 'lottery:round[0] > lottery:draw[2]' },
    finished: () => '## All Steps Completed',
    float: { call: '_payout', kwarg: 'stake' },
    writeBundled: { file: join(FORMAT, 'cassettes', 'write-bundled.yaml') },
  });
});
