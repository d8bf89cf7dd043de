// Built-in domains: `task` (the shared task board), `system` (health, instances, metrics, config) and `catalog`
// (search the tools), plus the hub's own resources. Returns a stop function for their background timers.
import type { Services } from '../../core/context.ts';
import { registerCatalog } from './catalog/index.ts';
import { registerResources } from './resources.ts';
import { registerSystem } from './system/index.ts';
import { registerTask } from './task/index.ts';

export function registerBuiltins(services: Services): () => void {
  return services.registry.batch(() => {
    const stops = [
      registerTask(services),
      registerSystem(services),
      registerCatalog(services),
      registerResources(services),
    ];
    return () => {
      for (const s of stops) s();
    };
  });
}
