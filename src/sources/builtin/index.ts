// Built-in domains: `task` (the shared task board), `system` (health, instances, metrics, config), `catalog` (search
// the tools) and, when `[system] test_tools` asks for it, `test` (a breaker exercised on demand), plus the hub's own
// resources. Returns a stop function for their background timers and listeners.
import type { Capability } from '../../core/capability.ts';
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
      registerTestTools(services),
    ];
    return () => {
      for (const s of stops) s();
    };
  });
}

/**
 * test.circuit fails on purpose, so a catalog offers it only when `[system] test_tools` is on; a live change of the
 * setting adds or removes it. Returns a function that stops following the configuration.
 */
function registerTestTools(services: Services): () => void {
  const { registry, config, logger } = services;
  const apply = () => {
    const entry = registry.get(testCircuit.name);
    const ours = entry?.capability.source === 'builtin';
    if (!config.get().system.test_tools) {
      if (ours) registry.remove(testCircuit.name);
      return;
    }
    if (ours) return;
    const added = registry.add({ ...testCircuit, source: 'builtin' } as Capability);
    if (!added.ok) logger.error(`[system] test_tools is on, but ${testCircuit.name} cannot be added: ${added.message}`);
  };
  apply();
  return config.onChange(apply);
}
