// The built-in `task` domain: a shared task board every agent on the hub can read and work through.
// One file per capability; this module registers them all under source 'builtin', feature 'task'.
import type { Capability } from '../../../core/capability.ts';
import type { Services } from '../../../core/context.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { taskAssign } from './assign.ts';
import { taskAttach } from './attach.ts';
import { taskAttachments } from './attachments.ts';
import { taskBatchCreate } from './batch-create.ts';
import { taskClaim } from './claim.ts';
import { taskComplete } from './complete.ts';
import { taskCreate } from './create.ts';
import { taskDelete } from './delete.ts';
import { taskFail } from './fail.ts';
import { taskGet } from './get.ts';
import { taskList } from './list.ts';
import { taskMetrics } from './metrics.ts';
import { taskStart } from './start.ts';
import { taskUnassign } from './unassign.ts';
import { taskUpdate } from './update.ts';

/** Every `task.*` capability, in lifecycle order. */
export const TASK_CAPABILITIES: Capability[] = [
  taskCreate,
  taskBatchCreate,
  taskGet,
  taskList,
  taskUpdate,
  taskAssign,
  taskClaim,
  taskUnassign,
  taskStart,
  taskComplete,
  taskFail,
  taskDelete,
  taskAttach,
  taskAttachments,
  taskMetrics,
] as Capability[];

/**
 * Add the `task.*` capabilities to the registry (one change event). The returned stop function removes them
 * again; the domain has no timers — returning released tasks after an instance expires is the system sweep's job.
 *
 * @example
 * const stop = registerTask(services);
 * stop(); // task.* is gone from the catalog
 */
export function registerTask(services: Services): () => void {
  const { registry } = services;
  registry.batch(() => {
    for (const cap of TASK_CAPABILITIES) {
      const added = registry.add({ ...cap, source: 'builtin', feature: 'task' });
      // A built-in that cannot register is a programming error, not a runtime condition to degrade around.
      if (!added.ok) throw new SwitchboardError('INTERNAL', added.message);
    }
  });
  return () => {
    registry.batch(() => {
      for (const cap of TASK_CAPABILITIES) registry.remove(cap.name);
    });
  };
}
