// task.complete: finish an assigned or in-progress task successfully, optionally with a result and a self-assessment.
// completed is final; the assessment (outcome, confidence, files, tests, notes) feeds task.metrics calibration.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { TASK_OUTCOMES, type Task, type TaskAssessment } from '../../../store/contract.ts';
import { illegalTransition, LIFECYCLE, TaskIdSchema, TaskSchema, taskNotFound, transition } from './shared.ts';

/** A pending task completed by someone other than its creator: the lifecycle's refusal, plus who may skip it. */
function pendingNotYours(task: Task, principal: string): SwitchboardError {
  const base = illegalTransition(task, 'complete');
  const who = task.createdBy
    ? `Only its creator ('${task.createdBy}') may complete it unassigned; you are '${principal}'.`
    : 'It has no recorded creator, so it must be assigned first.';
  return new SwitchboardError('CONFLICT', `${base.message} ${who}`, base.details);
}

/** `task.complete` — assigned | in_progress → completed. */
export const taskComplete = defineCapability({
  name: 'task.complete',
  title: 'Complete task',
  description:
    'Mark an assigned or in_progress task as completed, optionally recording a result (any JSON: a summary string, file paths, a PR url) and an honest self-assessment: outcome (success, partial, failure), confidence 0..1 that the outcome is what you say, filesModified, testsAdded and notes. task.metrics compares stated confidence with outcomes and with the plugin hook results (lint, tests) recorded while the task was open. Completed is final. A pending task must be assigned first (task.assign or task.claim), except by the principal that created it, which may complete its own unassigned task directly (recorded as completedBy, with no assignee). If the work could not be done at all, use task.fail instead.',
  input: z
    .strictObject({
      id: TaskIdSchema,
      result: z.unknown().optional().describe('What came out of the task, any JSON value; stored on the task.'),
      outcome: z
        .enum(TASK_OUTCOMES)
        .optional()
        .describe('success: done as asked; partial: some of it done; failure: tried and it does not work.'),
      confidence: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('0..1, how sure you are the outcome is right (0.9 = you would bet on it). Needs outcome.'),
      filesModified: z
        .array(z.string().min(1).max(1000))
        .max(10_000)
        .optional()
        .describe('Paths of the files changed, relative to the project.'),
      testsAdded: z.number().int().min(0).max(1_000_000).optional().describe('How many tests were added.'),
      notes: z.string().max(4000).optional().describe('Anything a reviewer should know (up to 4000 characters).'),
    })
    .refine(
      (v) =>
        v.outcome !== undefined ||
        (v.confidence === undefined &&
          v.filesModified === undefined &&
          v.testsAdded === undefined &&
          v.notes === undefined),
      {
        message:
          'outcome is required when confidence, filesModified, testsAdded or notes is given (success, partial or failure).',
        path: ['outcome'],
        when: (payload) => payload.issues.length === 0,
      },
    ),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: async ({ id, result, outcome, confidence, filesModified, testsAdded, notes }, ctx) => {
    const principal = ctx.principal.id;
    const task = await ctx.services.store.tasks.get(id);
    if (!task) throw taskNotFound(id);
    // Its creator may skip register → assign (outcome metrics for an agent's own work); anyone else may not.
    const byCreator = task.status === 'pending' && task.createdBy === principal;
    if (task.status === 'pending' && !byCreator) throw pendingNotYours(task, principal);
    const assessment: TaskAssessment | undefined = outcome
      ? {
          outcome,
          confidence: confidence ?? null,
          filesModified: filesModified ?? [],
          testsAdded: testsAdded ?? null,
          notes: notes ?? null,
        }
      : undefined;
    return transition(
      ctx.services,
      id,
      'complete',
      {
        status: 'completed',
        result,
        completedAt: new Date().toISOString(),
        completedBy: principal,
        ...(assessment ? { assessment } : {}),
      },
      // The pending → completed step only for the creator; the compare-and-set still refuses a finished task.
      byCreator ? ['pending', ...LIFECYCLE.complete] : LIFECYCLE.complete,
    );
  },
});
