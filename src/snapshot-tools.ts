// The built-in tools whose JSON Schemas the startup snapshot converts while it is built (src/snapshot.ts), so that a
// start converts only users' handler modules. Tools a hub makes per project (agents, scripts, hooks, upstream's
// system.servers) are built here with stand-ins for what their handlers use: never called, only their schemas matter.
// So those schemas are module constants: the registry keeps one conversion per schema object (src/core/registry.ts),
// and a schema a hub made anew would be converted again at every start. test/core/snapshot-tools.test.ts checks that
// every built-in tool a hub registers is covered.
import type { Capability } from './core/capability.ts';
import { CATALOG_CAPABILITIES } from './sources/builtin/catalog/index.ts';
import { SYSTEM_CAPABILITIES } from './sources/builtin/system/index.ts';
import { TASK_CAPABILITIES } from './sources/builtin/task/index.ts';
import { testCircuit } from './sources/builtin/test/circuit.ts';

export async function toolsToWarm(): Promise<Capability[]> {
  const { agentCapabilities } = await import('./sources/agents/index.ts');
  const { scriptCapabilities } = await import('./sources/scripts/index.ts');
  const { systemServers } = await import('./sources/upstream/servers-tool.ts');
  const { HookInputSchema } = await import('./sources/plugins/capability.ts');
  const { hookTools } = await import('./sources/hooks/index.ts');
  const runtime = { config: () => ({ sync_timeout_ms: 1 }) } as unknown as Parameters<typeof agentCapabilities>[0];
  return [
    ...TASK_CAPABILITIES,
    ...SYSTEM_CAPABILITIES,
    ...CATALOG_CAPABILITIES,
    testCircuit,
    ...agentCapabilities(runtime),
    ...scriptCapabilities({} as Parameters<typeof scriptCapabilities>[0]),
    systemServers({} as Parameters<typeof systemServers>[0]) as unknown as Capability,
    // A plugin hook's tool: one input schema for every hook (the tools themselves come from the project's plugins).
    { name: 'plugin.warm_up', description: 'warm-up', input: HookInputSchema } as unknown as Capability,
    ...hookTools({} as Parameters<typeof hookTools>[0]),
  ] as Capability[];
}
