// Which hooks an agent event runs: a han-plugin.yml hook with `event: Stop` (our commit-often plugin,
// test/fixtures/han-format) also runs on Claude Code's SubagentStop, as Han registers it; a Switchboard manifest runs
// on exactly the events it lists. Han's own git-storytelling plugin: test/originals/han.test.ts.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverPlugins } from '../../../src/sources/plugins/discover.ts';
import { matchingHooks } from '../../../src/sources/plugins/dispatch.ts';
import { eventsOf } from '../../../src/sources/plugins/manifest.ts';
import { pluginProject, writePlugin } from '../../helpers/plugins.ts';

const COMMIT_OFTEN = resolve(
  import.meta.dirname,
  '../../fixtures/han-format/marketplace/plugins/patterns/commit-often',
);

function discover(projectDir: string, paths: string[] = []) {
  return discoverPlugins({ projectDir, env: { HOME: projectDir }, paths, enabled: [], disabled: [] });
}

const names = (projectDir: string, paths: string[], hook_event_name: string) =>
  matchingHooks(discover(projectDir, paths), { hook_event_name }, projectDir).map(
    (m) => `${m.plugin.name}:${m.hook.name}`,
  );

describe('events a hook runs on', () => {
  it('runs a han-plugin.yml `event: Stop` hook on SubagentStop too, and on nothing else', () => {
    const root = pluginProject();
    expect(names(root, [COMMIT_OFTEN], 'Stop')).toEqual(['commit-often:pending']);
    expect(names(root, [COMMIT_OFTEN], 'SubagentStop')).toEqual(['commit-often:pending']);
    expect(names(root, [COMMIT_OFTEN], 'PostToolUse')).toEqual([]);
    expect(names(root, [COMMIT_OFTEN], 'SessionStart')).toEqual([]);
  });

  it('runs a switchboard-plugin.yml `event: Stop` hook on Stop only', () => {
    const root = pluginProject();
    writePlugin(root, 'own', 'hooks:\n  check: { command: "true", event: Stop }\n');
    expect(names(root, [], 'Stop')).toEqual(['own:check']);
    expect(names(root, [], 'SubagentStop')).toEqual([]);
  });

  it("adds SubagentStop to a Han hook's list only when Stop is there and SubagentStop is not", () => {
    const stop = { event: 'Stop' as const };
    const sub = { event: 'SubagentStop' as const };
    const post = { event: 'PostToolUse' as const, tools: ['Edit'] };
    expect(eventsOf({ event: [stop, post] }, 'han')).toEqual([stop, post, sub]);
    expect(eventsOf({ event: [stop, sub] }, 'han')).toEqual([stop, sub]);
    expect(eventsOf({ event: [sub] }, 'han')).toEqual([sub]);
    expect(eventsOf({ event: [post] }, 'han')).toEqual([post]);
    expect(eventsOf({ event: [stop] }, 'switchboard')).toEqual([stop]);
    expect(eventsOf({}, 'switchboard')).toEqual([stop, sub]);
    expect(eventsOf({}, 'han')).toEqual([stop, sub]);
  });
});
