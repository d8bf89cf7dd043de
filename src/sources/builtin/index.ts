// Built-in domains: `task` (the shared task board), `system` (health, instances, metrics, config), `catalog` (search
// the tools) and `test` (a breaker exercised on demand), plus the hub's own resources. Returns a stop function for
// their background timers.
import type { Services } from '../../core/context.ts';
import { registerCatalog } from './catalog/index.ts';
import { registerResources } from './resources.ts';
import { registerSystem } from './system/index.ts';
import { registerTask } from './task/index.ts';
import { testCircuit } from './test/circuit.ts';

export function registerBuiltins(services: Services): () => void {
  return services.registry.batch(() => {
    const stops = [
      registerTask(services),
      registerSystem(services),
      registerCatalog(services),
      registerResources(services),
    ];
    services.registry.add(testCircuit);
    return () => {
      for (const s of stops) s();
    };
  });
}
