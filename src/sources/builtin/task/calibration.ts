// Task outcome arithmetic for task.metrics: counts, success rate, mean confidence and calibration — how stated
// confidence compares with the outcome and with the plugin hook results recorded while each task was open.
import type { HookRun, Task, TaskOutcome } from '../../../store/contract.ts';

/** How much of the asked-for work an outcome delivers: the number confidence is compared with. */
export const OUTCOME_SCORE: Readonly<Record<TaskOutcome, number>> = { success: 1, partial: 0.5, failure: 0 };

/** Confidence bands for the reliability table (the last one includes 1). */
const BANDS = [0, 0.2, 0.4, 0.6, 0.8, 1] as const;

export interface OutcomeCounts {
  total: number;
  success: number;
  partial: number;
  failure: number;
  /** Completed without a self-assessment: counted in total, not in success rate or calibration. */
  unassessed: number;
}

export interface Band {
  range: string;
  tasks: number;
  meanConfidence: number | null;
  /** Mean outcome score (success 1, partial 0.5, failure 0) of the tasks in the band. */
  meanOutcome: number | null;
}

export interface HookCalibration {
  /** Tasks with confidence and at least one hook run while they were open. */
  tasks: number;
  /** Share of those tasks whose hooks all passed at their last run inside the task's window. */
  passRate: number | null;
  /** Mean |confidence − share of hooks passing at their last run|. */
  meanAbsoluteError: number | null;
  /** Tasks reported as success whose last hook run in the window failed: stated success the checks contradict. */
  contradicted: string[];
}

export interface Calibration {
  /** Tasks with an outcome and a confidence. */
  tasks: number;
  /** Mean |confidence − outcome score|: 0 is perfect, 1 is always certain and always wrong. */
  meanAbsoluteError: number | null;
  /** Mean (confidence − outcome score)²: the Brier score. */
  brierScore: number | null;
  /** Mean (confidence − outcome score): above 0 over-confident, below 0 under-confident. */
  bias: number | null;
  bands: Band[];
  hooks: HookCalibration;
}

export interface TaskMetrics extends OutcomeCounts {
  /** success / (success + partial + failure); null when nothing is assessed. */
  successRate: number | null;
  meanConfidence: number | null;
  byType: Record<string, OutcomeCounts & { successRate: number | null }>;
  byComplexity: Record<string, OutcomeCounts & { successRate: number | null }>;
  calibration: Calibration;
}

/** The outcome a finished task counts as: its assessment, or failure for task.fail; null when not assessed. */
export function outcomeOf(task: Task): TaskOutcome | null {
  if (task.assessment) return task.assessment.outcome;
  return task.status === 'failed' ? 'failure' : null;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
const mean = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length) : null);

function counts(tasks: Task[]): OutcomeCounts & { successRate: number | null } {
  const c = { total: tasks.length, success: 0, partial: 0, failure: 0, unassessed: 0 };
  for (const t of tasks) {
    const o = outcomeOf(t);
    if (o) c[o]++;
    else c.unassessed++;
  }
  const assessed = c.success + c.partial + c.failure;
  return { ...c, successRate: assessed ? round(c.success / assessed) : null };
}

function groupBy(
  tasks: Task[],
  key: (t: Task) => string,
): Record<string, OutcomeCounts & { successRate: number | null }> {
  const groups = new Map<string, Task[]>();
  for (const t of tasks) groups.set(key(t), [...(groups.get(key(t)) ?? []), t]);
  return Object.fromEntries(
    [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, counts(v)]),
  );
}

/**
 * The last run of each hook and directory inside a task's window [createdAt, completedAt]: the state the checks
 * were in when the agent said it was done. `runs` must be oldest first.
 */
export function lastRunsDuring(task: Task, runs: readonly HookRun[]): HookRun[] {
  const end = task.completedAt ?? task.updatedAt;
  const last = new Map<string, HookRun>();
  for (const r of runs) {
    if (r.at < task.createdAt || r.at > end) continue;
    last.set(`${r.plugin}\u0000${r.hook}\u0000${r.directory}`, r);
  }
  return [...last.values()];
}

/**
 * Compute the metrics of finished tasks, given the hook runs of the same period (oldest first).
 *
 * @example
 * const m = computeMetrics(await store.tasks.finished({ since }), await store.hooks.runs({ since }));
 * m.calibration.meanAbsoluteError // 0.15
 */
export function computeMetrics(tasks: readonly Task[], runs: readonly HookRun[]): TaskMetrics {
  const list = [...tasks];
  const all = counts(list);
  const confident = list.filter((t) => t.assessment && t.assessment.confidence !== null);
  const confidences = confident.map((t) => t.assessment!.confidence!);
  const errors = confident.map((t) => t.assessment!.confidence! - OUTCOME_SCORE[t.assessment!.outcome]);

  const bands: Band[] = [];
  for (let i = 0; i < BANDS.length - 1; i++) {
    const lo = BANDS[i];
    const hi = BANDS[i + 1];
    const last = i === BANDS.length - 2;
    const inBand = confident.filter((t) => {
      const c = t.assessment!.confidence!;
      return c >= lo && (last ? c <= hi : c < hi);
    });
    bands.push({
      range: `${lo.toFixed(1)}-${hi.toFixed(1)}`,
      tasks: inBand.length,
      meanConfidence: mean(inBand.map((t) => t.assessment!.confidence!)),
      meanOutcome: mean(inBand.map((t) => OUTCOME_SCORE[t.assessment!.outcome])),
    });
  }

  const hookErrors: number[] = [];
  let allPassed = 0;
  const contradicted: string[] = [];
  for (const t of confident) {
    const last = lastRunsDuring(t, runs);
    if (last.length === 0) continue;
    const passing = last.filter((r) => r.ok).length / last.length;
    hookErrors.push(Math.abs(t.assessment!.confidence! - passing));
    if (passing === 1) allPassed++;
    else if (t.assessment!.outcome === 'success') contradicted.push(t.id);
  }

  return {
    total: all.total,
    success: all.success,
    partial: all.partial,
    failure: all.failure,
    unassessed: all.unassessed,
    successRate: all.successRate,
    meanConfidence: mean(confidences),
    byType: groupBy(list, (t) => t.type ?? '(none)'),
    byComplexity: groupBy(list, (t) => t.estimatedComplexity ?? '(none)'),
    calibration: {
      tasks: confident.length,
      meanAbsoluteError: mean(errors.map(Math.abs)),
      brierScore: mean(errors.map((e) => e * e)),
      bias: mean(errors),
      bands,
      hooks: {
        tasks: hookErrors.length,
        passRate: hookErrors.length ? round(allPassed / hookErrors.length) : null,
        meanAbsoluteError: mean(hookErrors),
        contradicted,
      },
    },
  };
}
