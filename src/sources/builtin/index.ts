// Built-in domains: `task` (the shared task board) and `system` (health, instances, metrics, config),
// plus the hub's own resources. Returns a stop function for their background timers.
import type { Services } from '../../core/context.ts';
import { registerResources } from './resources.ts';
import { registerSystem } from './system/index.ts';
import { registerTask } from './task/index.ts';

export function registerBuiltins(services: Services): () => void {
  return services.registry.batch(() => {
    const stops = [registerTask(services), registerSystem(services), registerResources(services)];
    return () => {
      for (const s of stops) s();
    };
  });
}
