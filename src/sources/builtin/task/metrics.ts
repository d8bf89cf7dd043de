// task.metrics: how tasks turned out over a day, week or month — counts, success rate, mean confidence, and how
// well agents' stated confidence matches their outcomes and the plugin hook results seen while they worked.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { TASK_OUTCOMES } from '../../../store/contract.ts';
import { computeMetrics, outcomeOf } from './calibration.ts';

const PERIOD_MS = { day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;

const Counts = z.object({
  total: z.number().int(),
  success: z.number().int(),
  partial: z.number().int(),
  failure: z.number().int(),
  unassessed: z.number().int(),
  successRate: z.number().nullable(),
});

/** `task.metrics` — outcome metrics of the tasks finished in the period. */
export const taskMetrics = defineCapability({
  name: 'task.metrics',
  title: 'Task outcome metrics',
  description:
    'Outcome metrics of the tasks finished (completed or failed) in the last day, week (default) or month: counts per outcome, success rate, mean stated confidence, and calibration — mean absolute error, Brier score and bias between stated confidence and outcome (success 1, partial 0.5, failure 0), a reliability table by confidence band, and how confidence compares with the plugin hook results (lint, tests) recorded while each task was open, listing tasks reported as success whose hooks were failing. Filter by type and outcome. Failed tasks count as outcome failure.',
  input: z.strictObject({
    period: z.enum(['day', 'week', 'month']).default('week').describe('Rolling window back from now; default week.'),
    type: z.string().min(1).max(64).optional().describe('Only tasks of this type (e.g. implementation, fix).'),
    outcome: z.enum(TASK_OUTCOMES).optional().describe('Only tasks with this outcome.'),
  }),
  output: Counts.extend({
    period: z.enum(['day', 'week', 'month']),
    since: z.string(),
    until: z.string(),
    meanConfidence: z.number().nullable(),
    byType: z.record(z.string(), Counts),
    byComplexity: z.record(z.string(), Counts),
    calibration: z.object({
      tasks: z.number().int(),
      meanAbsoluteError: z.number().nullable(),
      brierScore: z.number().nullable(),
      bias: z.number().nullable(),
      bands: z.array(
        z.object({
          range: z.string(),
          tasks: z.number().int(),
          meanConfidence: z.number().nullable(),
          meanOutcome: z.number().nullable(),
        }),
      ),
      hooks: z.object({
        tasks: z.number().int(),
        passRate: z.number().nullable(),
        meanAbsoluteError: z.number().nullable(),
        contradicted: z.array(z.string()),
      }),
    }),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ period, type, outcome }, ctx) => {
    const { store } = ctx.services;
    const now = Date.now();
    const since = new Date(now - PERIOD_MS[period]).toISOString();
    const until = new Date(now).toISOString();
    let tasks = await store.tasks.finished({ since, type });
    if (outcome) tasks = tasks.filter((t) => outcomeOf(t) === outcome);
    // Hook runs that may fall inside the window of any of these tasks: from the oldest task's creation on.
    const from = [since, ...tasks.map((t) => t.createdAt)].sort()[0];
    const runs = tasks.length ? await store.hooks.runs({ since: from }) : [];
    return { period, since, until, ...computeMetrics(tasks, runs) };
  },
});
