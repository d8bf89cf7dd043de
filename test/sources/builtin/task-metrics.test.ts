// Task outcome metrics: what task.create and task.complete record, and task.metrics arithmetic — counts, success
// rate, mean confidence, calibration against outcomes and against plugin hook runs recorded while tasks were open.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/sources/builtin/task/calibration.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';

let hub: TestHub;
beforeEach(async () => {
  hub = await testHub();
  await hub.value('system.register', { instanceId: 'w1', roles: ['agent'] });
});
afterEach(async () => {
  await hub.close();
});

// task.metrics places hook runs in a task's window by the times the store stamps: a few real ms between two steps
// keep those times apart (a slower machine only widens the gap).
const tick = () => new Promise((r) => setTimeout(r, 5));

async function open(input: Record<string, unknown>): Promise<string> {
  const task = await hub.value('task.create', { text: 'work', ...input });
  await hub.value('task.assign', { id: task.id, instanceId: 'w1' });
  await tick();
  return task.id;
}

async function hookRun(ok: boolean, directory = 'packages/a') {
  await hub.services.store.hooks.record({
    plugin: 'jutsu-typescript',
    hook: 'test',
    directory,
    ok,
    cached: false,
    exitCode: ok ? 0 : 1,
    durationMs: 10,
    at: new Date().toISOString(),
  });
  await tick();
}

describe('task.create and task.complete', () => {
  it('records the estimated complexity and the self-assessment on the task', async () => {
    const id = await open({ type: 'implementation', estimatedComplexity: 'moderate' });
    const done = await hub.value('task.complete', {
      id,
      outcome: 'partial',
      confidence: 0.7,
      filesModified: ['src/a.ts'],
      testsAdded: 2,
      notes: 'one edge case left',
    });
    expect(done).toMatchObject({
      status: 'completed',
      type: 'implementation',
      estimatedComplexity: 'moderate',
      assessment: {
        outcome: 'partial',
        confidence: 0.7,
        filesModified: ['src/a.ts'],
        testsAdded: 2,
        notes: 'one edge case left',
      },
    });
  });

  it('completes without an assessment as before', async () => {
    const id = await open({});
    expect(await hub.value('task.complete', { id, result: 'ok' })).toMatchObject({ assessment: null, result: 'ok' });
  });

  it('refuses a bad complexity, an out-of-range confidence, and an assessment without outcome, naming the field', async () => {
    const bad = await hub.call('task.create', { text: 'x', estimatedComplexity: 'huge' });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringMatching(/estimatedComplexity/) },
    });
    const id = await open({});
    for (const [input, field] of [
      [{ outcome: 'success', confidence: 1.5 }, 'confidence'],
      [{ outcome: 'done' }, 'outcome'],
      [{ confidence: 0.5 }, 'outcome'],
      [{ outcome: 'success', testsAdded: -1 }, 'testsAdded'],
    ] as const) {
      const out = await hub.call('task.complete', { id, ...input });
      expect(out).toMatchObject({
        ok: false,
        error: { code: 'INVALID_INPUT', message: expect.stringContaining(field) },
      });
    }
    expect(await hub.value('task.get', { id })).toMatchObject({ status: 'assigned', assessment: null });
  });
});

describe('task.metrics', () => {
  /** Five finished tasks with known numbers, and one still open. */
  async function scenario() {
    const t1 = await open({ type: 'implementation', estimatedComplexity: 'simple' });
    await hookRun(false);
    await hub.value('task.complete', { id: t1, outcome: 'success', confidence: 0.9 });
    await tick();
    const t2 = await open({ type: 'fix', estimatedComplexity: 'complex' });
    await hookRun(false);
    await hookRun(true);
    await hub.value('task.complete', { id: t2, outcome: 'partial', confidence: 0.8 });
    await tick();
    const t3 = await open({ type: 'fix' });
    await hub.value('task.complete', { id: t3, outcome: 'failure', confidence: 0.6 });
    const t4 = await open({ type: 'research' });
    await hub.value('task.fail', { id: t4, reason: 'blocked' });
    const t5 = await open({ type: 'research' });
    await hub.value('task.complete', { id: t5 });
    await open({ type: 'fix' });
    return { t1, t2, t3, t4, t5 };
  }

  it('counts outcomes, success rate, mean confidence and calibration', async () => {
    const { t1 } = await scenario();
    const m = await hub.value('task.metrics', {});
    expect(m).toMatchObject({
      period: 'week',
      total: 5,
      success: 1,
      partial: 1,
      failure: 2,
      unassessed: 1,
      successRate: 0.25,
      meanConfidence: 0.7667,
    });
    expect(m.calibration).toMatchObject({ tasks: 3, meanAbsoluteError: 0.3333, brierScore: 0.1533, bias: 0.2667 });
    expect(m.calibration.bands).toEqual([
      { range: '0.0-0.2', tasks: 0, meanConfidence: null, meanOutcome: null },
      { range: '0.2-0.4', tasks: 0, meanConfidence: null, meanOutcome: null },
      { range: '0.4-0.6', tasks: 0, meanConfidence: null, meanOutcome: null },
      { range: '0.6-0.8', tasks: 1, meanConfidence: 0.6, meanOutcome: 0 },
      { range: '0.8-1.0', tasks: 2, meanConfidence: 0.85, meanOutcome: 0.75 },
    ]);
    // t1 said success at 0.9 while its last hook run failed; t2's hooks ended passing (|0.8 − 1| = 0.2).
    expect(m.calibration.hooks).toEqual({ tasks: 2, passRate: 0.5, meanAbsoluteError: 0.55, contradicted: [t1] });
    expect(m.byType).toEqual({
      fix: { total: 2, success: 0, partial: 1, failure: 1, unassessed: 0, successRate: 0 },
      implementation: { total: 1, success: 1, partial: 0, failure: 0, unassessed: 0, successRate: 1 },
      research: { total: 2, success: 0, partial: 0, failure: 1, unassessed: 1, successRate: 0 },
    });
    expect(m.byComplexity).toMatchObject({ simple: { total: 1 }, complex: { total: 1 }, '(none)': { total: 3 } });
  });

  it('filters by type and by outcome', async () => {
    await scenario();
    expect(await hub.value('task.metrics', { type: 'fix' })).toMatchObject({ total: 2, partial: 1, failure: 1 });
    const failures = await hub.value('task.metrics', { outcome: 'failure', period: 'day' });
    expect(failures).toMatchObject({ period: 'day', total: 2, failure: 2, successRate: 0 });
    expect(await hub.value('task.metrics', { type: 'nothing-like-this' })).toMatchObject({
      total: 0,
      successRate: null,
    });
  });

  it('refuses an unknown period naming the field', async () => {
    const out = await hub.call('task.metrics', { period: 'year' });
    expect(out).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('period') },
    });
  });
});

describe('computeMetrics', () => {
  it('answers nulls, not NaN, when there is nothing to measure', () => {
    const m = computeMetrics([], []);
    expect(m).toMatchObject({ total: 0, successRate: null, meanConfidence: null });
    expect(m.calibration).toMatchObject({ tasks: 0, meanAbsoluteError: null, brierScore: null, bias: null });
    expect(m.calibration.hooks).toEqual({ tasks: 0, passRate: null, meanAbsoluteError: null, contradicted: [] });
  });
});
