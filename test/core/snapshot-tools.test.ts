// The startup snapshot converts the built-in tools' JSON Schemas while it is built (src/snapshot-tools.ts): a tool
// whose schema is made anew per hub, or one left out of that list, would be converted at every start instead.
import { describe, expect, it } from 'vitest';
import { toolsToWarm } from '../../src/snapshot-tools.ts';
import { testHub } from '../helpers/hub.ts';
import { pluginProject, writePlugin } from '../helpers/plugins.ts';

describe('the tools the startup snapshot converts', () => {
  it('cover the schema of every built-in tool a hub registers, plugin hooks included', async () => {
    const warmed = new Set<unknown>();
    for (const tool of await toolsToWarm()) {
      warmed.add(tool.input);
      if (tool.output) warmed.add(tool.output);
    }
    const dir = pluginProject();
    writePlugin(dir, 'checks', 'hooks:\n  lint:\n    command: "true"\n    mcp: true\n');
    const hub = await testHub({ cwd: dir });
    try {
      await hub.ready();
      const entries = [...hub.services.registry.entries()];
      const names = entries.map((e) => e.capability.name);
      // Every kind of built-in tool is there: built-ins, catalog, agents, scripts, upstream, hooks and a plugin hook.
      for (const name of ['task.create', 'system.health', 'catalog.search', 'agent.start', 'script.runs'])
        expect(names).toContain(name);
      for (const name of ['system.servers', 'hook.pre_tool', 'checks.lint']) expect(names).toContain(name);
      const converted = (schema: unknown) => schema === undefined || warmed.has(schema);
      const missed = entries
        .filter((e) => !converted(e.capability.input) || !converted(e.capability.output))
        .map((e) => e.capability.name);
      expect(missed).toEqual([]);
    } finally {
      await hub.close();
    }
  });
});
