// Restart safety: a run is journalled in the Store, so a new hub on the same project rebuilds it by replaying
// the journal (no finished step runs again), reports a run whose script changed, and re-runs an interrupted step.
// A new stdio hub starts its own stack: a run an ended one left is listed, continued by run_id, and cleaned later.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneUnfinished } from '../../../src/sources/scripts/left-runs.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { nl, projectScripts, tool } from './helpers.ts';

const SRC = join(import.meta.dirname, '../../../src/index.ts');
const imports = `import { auto, llm, callScript } from ${JSON.stringify(SRC)};\n`;

let dir: string;
const hubs: TestHub[] = [];
const open = async () => {
  const hub = await testHub({ cwd: dir });
  hubs.push(hub);
  return hub;
};
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-restart-'));
  projectScripts(dir, {
    'nl/counted.md': nl('counted'),
    'compiled/counted.mjs': `${imports}
    function stamp({ file }) { return file; }
    export default function* () {
      yield auto('echo first >> ran.log');
      const s = yield auto(stamp, { file: 'ran.log' });
      yield callScript('inner');
      const a = yield llm('first question', { expects: { answer: 'a word' } });
      yield auto('echo second-' + a.outputs.answer + ' >> ran.log');
      yield llm('second question');
    }`,
    'nl/inner.md': nl('inner'),
    'compiled/inner.mjs': `${imports}export default function* () { yield auto('echo inner >> ran.log'); }`,
  });
});
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('restart in the middle of a run', () => {
  it('continues from the journal without running finished steps again', async () => {
    const first = await open();
    const started = await tool(first, 'script.start', { name: 'counted' });
    expect(started.state).toBe('llm');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner']);
    await first.close();

    const second = await open();
    const status = await tool(second, 'script.status');
    expect(status).toMatchObject({ ok: true, state: 'llm', runId: started.runId });
    expect(status.text).toContain('Stack: `counted[3]`');
    expect(status.text).toContain('first question');
    // Replaying ran nothing.
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner']);
    const next = await tool(second, 'script.continue_compiled_script', { outputs: { answer: 'blue' } });
    expect(next.text).toContain('`echo second-blue >> ran.log`');
    expect(next.text).toContain('second question');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner', 'second-blue']);
    // The journal keeps growing where it left off: a third hub rebuilds the newer state.
    await second.close();
    const third = await open();
    expect((await tool(third, 'script.status')).text).toContain('Stack: `counted[5]`');
    const done = await tool(third, 'script.continue_compiled_script', { outputs: {} });
    expect(done.state).toBe('finished');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner', 'second-blue']);
  });

  it('rebuilds a run once when several calls arrive together after a restart', async () => {
    const first = await open();
    const started = await tool(first, 'script.start', { name: 'counted' });
    await first.close();
    const second = await open();
    const entries = (await second.services.store.scriptRuns.get(started.runId as string))?.entries;
    const [a, b] = await Promise.all([tool(second, 'script.status'), tool(second, 'script.status')]);
    expect([a.state, b.state]).toEqual(['llm', 'llm']);
    const next = await tool(second, 'script.continue_compiled_script', { outputs: { answer: 'once' } });
    expect(next.state).toBe('llm');
    // One live run journals the call: its input, one auto step, its output.
    expect((await second.services.store.scriptRuns.get(started.runId as string))?.entries).toBe(
      (entries as number) + 3,
    );
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner', 'second-once']);
  });

  it('says so when the script changed and its replay diverges, and lets the client start afresh', async () => {
    const first = await open();
    await tool(first, 'script.start', { name: 'counted' });
    await first.close();
    const file = join(dir, '.switchboard/scripts/compiled/counted.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('echo first >> ran.log', 'echo changed >> ran.log'));

    const second = await open();
    const status = await tool(second, 'script.status');
    expect(status).toMatchObject({ ok: false, code: 'CONFLICT' });
    expect(status.text).toContain("The run's replay diverged from its journal at entry 2");
    expect(status.text).toContain('auto_step shell "echo first >> ran.log"');
    expect(status.text).toContain('auto_step shell "echo changed >> ran.log"');
    expect(status.text).toContain('start it again');
    // The diverged run is closed; nothing ran during the replay.
    expect((await tool(second, 'script.status')).state).toBe('idle');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner']);
  });

  it('shows an auto step the hub stopped in as interrupted and runs it again on continue', async () => {
    const first = await open();
    // What a hub killed during the first step leaves behind: the call's input, no result, no output.
    await first.services.store.scriptRuns.create({
      id: 'run-crashed',
      clientKey: 'cli:test',
      principal: 'test',
      name: 'counted',
    });
    await first.services.store.scriptRuns.append('run-crashed', [
      { type: 'mcp_tool_input', tool: 'script__start', input: { name: 'counted' } },
    ]);
    await first.close();

    const second = await open();
    const status = await tool(second, 'script.status');
    expect(status).toMatchObject({ state: 'interrupted', nextTool: 'script__continue_compiled_script' });
    expect(status.text).toContain('Switchboard stopped while this auto step ran: `echo first >> ran.log`');
    const resumed = await tool(second, 'script.continue_compiled_script', { outputs: {} });
    expect(resumed.state).toBe('llm');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner']);
  });

  it('keeps the runs of two live stdio hubs apart; a new stdio hub starts its own stack and continues a left run only by run_id', async () => {
    const stdio = { id: 'stdio', roles: ['*'] };
    const over = (hub: TestHub, name: string, input: Record<string, unknown> = {}) =>
      hub.pipeline.call({ principal: stdio, name, input, transport: 'stdio' });
    const state = (out: Awaited<ReturnType<TestHub['pipeline']['call']>>) =>
      out.ok ? (out.value as { state: string }).state : out.error.code;
    const textOf = (out: Awaited<ReturnType<TestHub['pipeline']['call']>>) =>
      out.ok ? String(out.raw?.content[0]?.text) : out.error.message;
    const a = await open();
    const b = await open();
    const started = await over(a, 'script.start', { name: 'counted' });
    expect(state(started)).toBe('llm');
    const runId = (started.ok && (started.value as { run_id: string }).run_id) as string;
    // Another agent's Switchboard on the same project sees the run as held by a live process.
    const held = await over(b, 'script.status');
    expect(state(held)).toBe('idle');
    expect(textOf(held)).toContain(`\`${runId}\`: \`counted\``);
    expect(textOf(held)).toContain('held by another Switchboard process that is still running');
    await a.close();

    // A new stdio process is a new client: its start opens a new stack instead of nesting on the left run.
    const c = await open();
    const left = await over(c, 'script.status');
    expect(state(left)).toBe('idle');
    expect(textOf(left)).toContain(`\`${runId}\`: \`counted\``);
    expect(textOf(left)).toContain('left by a Switchboard process that has ended');
    const fresh = await over(c, 'script.start', { name: 'inner' });
    expect(state(fresh)).toBe('finished');
    expect(textOf(fresh)).not.toContain('counted');
    // Resumed on request, by its run_id, without running a finished step again.
    expect(state(await over(c, 'script.status', { run_id: runId }))).toBe('llm');
    expect(state(await over(c, 'script.continue_compiled_script', { outputs: { answer: 'c' } }))).toBe('llm');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner', 'inner', 'second-c']);
  });

  it("deletes unfinished runs whose client is gone after unfinished_retention_days, keeping a live hub's", async () => {
    const stdio = { id: 'stdio', roles: ['*'] };
    const a = await open();
    const b = await open();
    const over = (hub: TestHub, name: string, input: Record<string, unknown> = {}) =>
      hub.pipeline.call({ principal: stdio, name, input, transport: 'stdio' });
    const runOf = async (hub: TestHub) => {
      const out = await over(hub, 'script.start', { name: 'counted' });
      return (out.ok && (out.value as { run_id: string }).run_id) as string;
    };
    const leftRun = await runOf(a);
    const liveRun = await runOf(b);
    await a.close();
    const store = b.services.store;
    const prune = (before: number, inUse = (_id: string) => false) =>
      pruneUnfinished(store, new Date(before).toISOString(), inUse);
    // Nothing is old enough yet.
    expect(await prune(Date.now() - 86_400_000)).toBe(0);
    // Both were last touched before `before`: a run in use here is kept, and so is a live stdio hub's.
    expect(await prune(Date.now() + 1000, (id) => id === leftRun)).toBe(0);
    expect(await prune(Date.now() + 1000)).toBe(1);
    expect(await store.scriptRuns.get(leftRun)).toBeUndefined();
    expect(await store.scriptRuns.journal(leftRun)).toEqual([]);
    expect(await store.scriptRuns.get(liveRun)).toMatchObject({ status: 'running' });
  });

  it('lists unfinished runs to a client without one, which can adopt a run by its run_id', async () => {
    const first = await open();
    const started = await tool(first, 'script.start', { name: 'counted' });
    await first.close();
    const second = await open();
    const internal = (name: string, input: Record<string, unknown> = {}) =>
      second.pipeline.call({ principal: { id: 'test', roles: ['*'] }, name, input, transport: 'internal' });
    const idle = await internal('script.status');
    const text = idle.ok ? String(idle.raw?.content[0]?.text) : '';
    expect(text).toContain('No script is running for this client');
    expect(text).toContain(`\`${started.runId}\`: \`counted\``);
    const adopted = await internal('script.status', { run_id: started.runId });
    expect(adopted.ok && (adopted.value as { state: string }).state).toBe('llm');
    // Now bound to this client: no run_id needed any more.
    const again = await internal('script.continue_compiled_script', { outputs: { answer: 'x' } });
    expect(again.ok && (again.value as { state: string }).state).toBe('llm');
    expect(lines(join(dir, 'ran.log'))).toEqual(['first', 'inner', 'second-x']);
  });
});
