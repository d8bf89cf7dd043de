// Plugin discovery: where plugins come from and in which order, enabled/disabled, broken manifests that leave the
// rest loading, deterministic renames, and the MCP servers plugins bring.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverPlugins, userPluginDir } from '../../../src/sources/plugins/discover.ts';
import { pluginProject, writePlugin } from '../../helpers/plugins.ts';

const LINT = 'hooks:\n  lint:\n    command: "true"\n';

function setup() {
  const root = pluginProject();
  const home = join(root, 'home');
  return { root, home, env: { HOME: home } };
}

describe('discoverPlugins', () => {
  it('finds project plugins, then [plugins] paths, then the user scope under HOME, each in name order', () => {
    const { root, home, env } = setup();
    writePlugin(root, 'zeta', LINT);
    writePlugin(root, 'alpha', LINT, { file: 'han-plugin.yml' });
    writePlugin(root, 'extra', LINT, { folder: 'tools/plugins/extra' });
    writePlugin(root, 'single', LINT, { folder: 'vendor/single' });
    writePlugin(home, 'mine', LINT, { folder: '.switchboard/plugins/mine' });
    const d = discoverPlugins({
      projectDir: root,
      env,
      paths: ['tools/plugins', 'vendor/single'],
      enabled: [],
      disabled: [],
    });
    expect(d.plugins.map((p) => [p.name, p.scope])).toEqual([
      ['alpha', 'project'],
      ['zeta', 'project'],
      ['extra', 'config'],
      ['single', 'config'],
      ['mine', 'user'],
    ]);
    expect(d.problems).toEqual([]);
    expect(d.plugins.map((p) => p.format)).toEqual(['han', 'switchboard', 'switchboard', 'switchboard', 'switchboard']);
    expect(d.plugins[0].hooks).toEqual([
      expect.objectContaining({ name: 'lint', capability: 'alpha.lint', tool: 'alpha__lint' }),
    ]);
  });

  it('locates the user scope from SWITCHBOARD_HOME, else HOME', () => {
    expect(userPluginDir({ HOME: '/h' })).toBe('/h/.switchboard/plugins');
    expect(userPluginDir({ HOME: '/h', SWITCHBOARD_HOME: '/s' })).toBe('/s/plugins');
    expect(userPluginDir({})).toBeUndefined();
  });

  it('uses the manifest name over the folder name', () => {
    const { root, env } = setup();
    writePlugin(root, 'folder', `name: jutsu-typescript\n${LINT}`);
    const d = discoverPlugins({ projectDir: root, env, paths: [], enabled: [], disabled: [] });
    expect(d.plugins[0]).toMatchObject({ name: 'jutsu-typescript', domain: 'jutsu_typescript' });
    expect(d.plugins[0].hooks[0].tool).toBe('jutsu_typescript__lint');
  });

  it('reports a broken manifest with its path and field while the other plugins load', () => {
    const { root, env } = setup();
    const bad = writePlugin(root, 'bad', 'hooks:\n  lint:\n    command: 42\n    timeout: soon\n');
    writePlugin(root, 'good', LINT);
    writePlugin(root, 'nohooks', 'name: nohooks\n');
    const d = discoverPlugins({ projectDir: root, env, paths: [], enabled: [], disabled: [] });
    expect(d.plugins.map((p) => p.name)).toEqual(['good']);
    expect(d.problems).toEqual([
      {
        file: join(bad, 'switchboard-plugin.yml'),
        issues: expect.arrayContaining([expect.objectContaining({ field: 'hooks.lint.timeout', line: 4, column: 14 })]),
        domain: 'bad',
      },
      {
        file: expect.stringContaining('nohooks'),
        issues: [expect.objectContaining({ field: 'hooks' })],
        domain: 'nohooks',
      },
    ]);
  });

  it('applies enabled and disabled lists by plugin name', () => {
    const { root, env } = setup();
    for (const n of ['a', 'b', 'c']) writePlugin(root, n, LINT);
    const only = discoverPlugins({ projectDir: root, env, paths: [], enabled: ['a', 'c'], disabled: ['c'] });
    expect(only.plugins.map((p) => p.name)).toEqual(['a']);
    expect(only.skipped.map((s) => [s.plugin, s.reason])).toEqual([
      ['b', 'not listed in [plugins] enabled'],
      ['c', 'listed in [plugins] disabled'],
    ]);
  });

  it('renames a plugin named like a built-in domain or an earlier plugin, and reports it', () => {
    const { root, home, env } = setup();
    writePlugin(root, 'task', LINT);
    writePlugin(root, 'lint-kit', LINT);
    writePlugin(home, 'lint-kit', LINT, { folder: '.switchboard/plugins/lint-kit' });
    writePlugin(root, 'notes', LINT, { folder: 'more/notes' });
    const d = discoverPlugins({ projectDir: root, env, paths: ['more'], enabled: [], disabled: [], taken: ['notes'] });
    expect(d.plugins.map((p) => [p.name, p.domain, p.hooks[0].tool])).toEqual([
      ['lint-kit', 'lint_kit', 'lint_kit__lint'],
      ['task', 'task_plugin', 'task_plugin__lint'],
      ['notes', 'notes_plugin', 'notes_plugin__lint'],
      ['lint-kit', 'lint_kit_2', 'lint_kit_2__lint'],
    ]);
    expect(d.renames).toEqual([
      expect.objectContaining({ plugin: 'task', from: 'task', to: 'task_plugin' }),
      expect.objectContaining({ plugin: 'notes', from: 'notes', to: 'notes_plugin' }),
      expect.objectContaining({ plugin: 'lint-kit', from: 'lint_kit', to: 'lint_kit_2' }),
    ]);
    // Deterministic: the same folders give the same names every time.
    expect(
      discoverPlugins({
        projectDir: root,
        env,
        paths: ['more'],
        enabled: [],
        disabled: [],
        taken: ['notes'],
      }).plugins.map((p) => p.domain),
    ).toEqual(d.plugins.map((p) => p.domain));
  });

  it('renames hooks of one plugin whose tool names collide', () => {
    const { root, env } = setup();
    writePlugin(root, 'p', 'hooks:\n  type-check: { command: a }\n  type_check: { command: b }\n');
    const d = discoverPlugins({ projectDir: root, env, paths: [], enabled: [], disabled: [] });
    expect(d.plugins[0].hooks.map((h) => [h.name, h.tool])).toEqual([
      ['type-check', 'p__type_check'],
      ['type_check', 'p__type_check_2'],
    ]);
    expect(d.renames).toEqual([expect.objectContaining({ from: 'p.type_check', to: 'p.type_check_2' })]);
  });

  it('loads a folder reached twice (a path that is also under the project) only once', () => {
    const { root, env } = setup();
    writePlugin(root, 'one', LINT);
    symlinkSync(join(root, '.switchboard/plugins'), join(root, 'linked'));
    const d = discoverPlugins({ projectDir: root, env, paths: ['linked'], enabled: [], disabled: [] });
    expect(d.plugins.map((p) => p.name)).toEqual(['one']);
    expect(d.skipped).toEqual([
      expect.objectContaining({ plugin: 'one', reason: expect.stringMatching(/already loaded/) }),
    ]);
  });

  it('exposes the MCP servers a plugin brings, with the plugin root expanded and unique names', () => {
    const { root, env } = setup();
    const dir = writePlugin(
      root,
      'hashi-docs',
      `${LINT}mcp_servers:\n  search:\n    command: node\n    args: ["\${CLAUDE_PLUGIN_ROOT}/server.js", "\${HOME}"]\n  remote:\n    url: https://example.com/mcp\n    headers: { Authorization: "Bearer \${TOKEN}" }\n`,
    );
    const d = discoverPlugins({ projectDir: root, env, paths: [], enabled: [], disabled: [] });
    expect(d.plugins[0].mcpServers).toEqual([
      {
        name: 'hashi_docs_search',
        declaredName: 'search',
        plugin: 'hashi-docs',
        spec: { command: 'node', args: [`${dir}/server.js`, '${HOME}'], env: {} },
      },
      {
        name: 'hashi_docs_remote',
        declaredName: 'remote',
        plugin: 'hashi-docs',
        spec: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      },
    ]);
  });
});
