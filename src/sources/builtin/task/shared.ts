// Shared pieces of the `task` domain: the wire schema of a task, the lifecycle (which action is legal from
// which status) and the one helper every transition goes through, so errors and events read the same everywhere.
import { z } from 'zod';
import type { Services } from '../../../core/context.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import {
  type Instance,
  TASK_COMPLEXITIES,
  TASK_OUTCOMES,
  TASK_STATUSES,
  type Task,
  type TaskPatch,
  type TaskStatus,
} from '../../../store/contract.ts';

/** A task id as task.create returns it. */
export const TaskIdSchema = z
  .string()
  .min(1)
  .max(64)
  .describe("Task id as returned by task.create, e.g. 't-01jd3m8x2k4f9qzr'.");

export const TaskStatusSchema = z
  .enum(TASK_STATUSES)
  .describe('pending → assigned → in_progress → completed | failed. completed and failed are final.');

/** The task as every task.* capability returns it: the store's Task, field for field. */
export const TaskSchema = z.object({
  id: z.string(),
  text: z.string(),
  priority: z.number().int().describe('0..100, higher first in task.list.'),
  status: TaskStatusSchema,
  type: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  estimatedComplexity: z.enum(TASK_COMPLEXITIES).nullable().describe('As given to task.create; null if none.'),
  assessment: z
    .object({
      outcome: z.enum(TASK_OUTCOMES),
      confidence: z.number().nullable(),
      filesModified: z.array(z.string()),
      testsAdded: z.number().int().nullable(),
      notes: z.string().nullable(),
    })
    .nullable()
    .describe("The completing agent's self-assessment from task.complete; null until then."),
  assignedTo: z
    .string()
    .nullable()
    .describe('Instance the task was assigned to; kept after it finishes, cleared if it goes back to pending.'),
  createdBy: z
    .string()
    .nullable()
    .describe('Principal that created the task (null for tasks from before this was kept).'),
  completedBy: z.string().nullable().describe('Principal that completed or failed it; null while open.'),
  result: z.unknown().describe('What task.complete recorded; null otherwise.'),
  error: z.string().nullable().describe('The reason given to task.fail; null otherwise.'),
  createdAt: z.string().describe('ISO time.'),
  updatedAt: z.string().describe('ISO time of the last change.'),
  completedAt: z.string().nullable().describe('ISO time it became completed or failed.'),
  version: z.number().int().describe('Increments on every change.'),
});

/** Free-form metadata a caller keeps with a task. */
export const MetadataSchema = z.record(z.string(), z.unknown());

export type TaskAction = 'update' | 'assign' | 'unassign' | 'start' | 'complete' | 'fail';

/** The lifecycle: the statuses each action is legal from. It is also the compare-and-set guard of the write. */
export const LIFECYCLE: Readonly<Record<TaskAction, readonly TaskStatus[]>> = {
  update: ['pending', 'assigned', 'in_progress'],
  assign: ['pending'],
  unassign: ['assigned', 'in_progress'],
  start: ['assigned'],
  complete: ['assigned', 'in_progress'],
  fail: ['pending', 'assigned', 'in_progress'],
};

const PAST: Record<TaskAction, string> = {
  update: 'updated',
  assign: 'assigned',
  unassign: 'unassigned',
  start: 'started',
  complete: 'completed',
  fail: 'failed',
};

/**
 * Capabilities that may be called on a task in `status`, as names a model can call next.
 *
 * @example
 * allowedActions('assigned') // ['task.complete', 'task.fail', 'task.start', 'task.update']
 */
export function allowedActions(status: TaskStatus): string[] {
  return (Object.keys(LIFECYCLE) as TaskAction[])
    .filter((action) => LIFECYCLE[action].includes(status))
    .map((action) => `task.${action}`)
    .sort();
}

/**
 * The CONFLICT for an action that is illegal in the task's current status: says the status, the attempted
 * action and what is allowed instead, so a model can recover without another lookup.
 *
 * @example
 * throw illegalTransition(task, 'complete');
 * // "Task 't-1' is pending; it cannot be completed (task.complete needs assigned or in_progress). Allowed from pending: task.assign, task.fail, task.update."
 */
export function illegalTransition(task: Task, action: TaskAction): SwitchboardError {
  const allowed = allowedActions(task.status);
  const next = allowed.length
    ? `Allowed from ${task.status}: ${allowed.join(', ')}.`
    : `${task.status} is final: no action is allowed; create a new task with task.create instead.`;
  return new SwitchboardError(
    'CONFLICT',
    `Task '${task.id}' is ${task.status}; it cannot be ${PAST[action]} (task.${action} needs ${LIFECYCLE[action].join(' or ')}). ${next}`,
    { status: task.status, allowed },
  );
}

/**
 * The NOT_FOUND for an unknown task id.
 *
 * @example
 * throw taskNotFound('t-x'); // "Task 't-x' does not exist. …"
 */
export function taskNotFound(id: string): SwitchboardError {
  return new SwitchboardError('NOT_FOUND', `Task '${id}' does not exist. Find task ids with task.list.`, { id });
}

/**
 * The instance if it is registered and its lease has not run out (the sweep may not have removed it yet), else the
 * NOT_FOUND that says how an instance registers.
 *
 * @example
 * await liveInstance(ctx.services, 'w1'); // throws NOT_FOUND "Instance 'w1' is not registered. …"
 */
export async function liveInstance(services: Services, instanceId: string): Promise<Instance> {
  const instance = await services.store.instances.get(instanceId);
  if (instance && instance.expiresAt >= Date.now()) return instance;
  throw new SwitchboardError(
    'NOT_FOUND',
    `Instance '${instanceId}' is not registered${instance ? ' any more (its lease expired)' : ''}. An instance registers with system.register and stays alive with system.heartbeat.`,
    { instanceId },
  );
}

/**
 * Publish `task.changed` so subscribers (event streams, other hubs) see every change as it happens.
 *
 * @example
 * announce(services, task, 'create');
 */
export function announce(services: Services, task: Task, action: TaskAction | 'create' | 'claim' | 'delete'): void {
  services.bus.publish({ type: 'task.changed', id: task.id, status: task.status, action, at: task.updatedAt });
}

/**
 * Apply `patch` only if `action` is legal from the task's status at the moment of the write (compare-and-set),
 * then announce it. Two agents racing for one task: exactly one wins, the other gets the CONFLICT.
 *
 * @example
 * const task = await transition(ctx.services, id, 'start', { status: 'in_progress' });
 */
export async function transition(
  services: Services,
  id: string,
  action: TaskAction,
  patch: TaskPatch,
  from: readonly TaskStatus[] = LIFECYCLE[action],
): Promise<Task> {
  const result = await services.store.tasks.update(id, patch, { from });
  if (!result.ok) throw result.reason === 'not_found' ? taskNotFound(id) : illegalTransition(result.task, action);
  announce(services, result.task, action);
  return result.task;
}
