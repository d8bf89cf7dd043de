// Han users' plugins as Claude Code installed them: the real `claude` binary adds a marketplace in Han's format (our
// own, test/fixtures/han-format) and installs plugins into a throwaway HOME; Switchboard then serves their hooks
// without any [plugins] paths entry, with Han's tool names in tips rewritten to its own. Han's own marketplace:
// test/originals/han.test.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverPlugins } from '../../src/sources/plugins/discover.ts';
import { BIN, childEnv, ROOT } from '../helpers/cli.ts';
import { pluginProject, writeFiles } from '../helpers/plugins.ts';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const MARKETPLACE = resolve(import.meta.dirname, '../fixtures/han-format/marketplace');

/** Claude Code's environment for a throwaway HOME: no network beyond what a local marketplace needs. */
const claudeEnv = (home: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: home,
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
});

const claude = (home: string, cwd: string, ...args: string[]) =>
  execFileSync(CLAUDE, args, { cwd, env: claudeEnv(home), encoding: 'utf8', timeout: 60_000 });

let home: string;
let root: string;

beforeAll(() => {
  root = pluginProject();
  home = join(root, '.home');
  mkdirSync(home, { recursive: true });
  claude(home, root, 'plugin', 'marketplace', 'add', MARKETPLACE);
  // schemagen under its old name (a Han user enabled many plugins so, before Han dropped the jutsu- prefix); tally
  // for this project only.
  claude(home, root, 'plugin', 'install', 'jutsu-schemagen@han-format');
  claude(home, root, 'plugin', 'install', 'commit-often@han-format');
  claude(home, root, 'plugin', 'install', 'tally@han-format', '--scope', 'project');
}, 120_000);

describe("Claude Code's enabled plugins", () => {
  it("are found through Claude Code's own files, named as Han names them", () => {
    const d = discoverPlugins({
      projectDir: root,
      env: { HOME: home },
      paths: [],
      enabled: [],
      disabled: [],
      claudeCode: true,
    });
    expect(d.notices).toEqual([]);
    expect(d.plugins.map((p) => [p.name, p.scope, p.format])).toEqual([
      ['jutsu-schemagen', 'claude-code', 'han'],
      ['commit-often', 'claude-code', 'han'],
      ['tally', 'claude-code', 'han'],
    ]);
    // Installed copies in Claude Code's cache (…/cache/han-format/jutsu-schemagen/0.4.2), not the marketplace's folder.
    expect(d.plugins[0].dir).toBe(join(home, '.claude/plugins/cache/han-format/jutsu-schemagen/0.4.2'));
    // The tip names Han's tool (`jutsu_schemagen_compile`); shown here it names Switchboard's.
    const compile = d.plugins[0].hooks[0];
    expect(compile.tool).toBe('jutsu_schemagen__compile');
    expect(compile.spec.tip).toBe(
      'Call `jutsu_schemagen__compile` after editing a schema, then commit the generated files.',
    );
  });

  it('follow a local false, and name every entry it cannot use with the file and the key', () => {
    writeFiles(root, {
      '.claude/settings.local.json': JSON.stringify({
        enabledPlugins: { 'commit-often@han-format': false, 'typescript@han-format': true, schemagen: true },
      }),
    });
    try {
      const d = discoverPlugins({
        projectDir: root,
        env: { HOME: home },
        paths: [],
        enabled: [],
        disabled: [],
        claudeCode: true,
      });
      expect(d.plugins.map((p) => p.name)).toEqual(['jutsu-schemagen', 'tally']);
      const local = join(root, '.claude/settings.local.json');
      expect(d.notices).toEqual([
        {
          file: local,
          issues: [
            {
              field: 'enabledPlugins.schemagen',
              message: 'expected a "plugin@marketplace" key (e.g. "relay@han"); this entry is ignored',
            },
          ],
        },
        {
          file: local,
          issues: [
            {
              field: 'enabledPlugins.typescript@han-format',
              message: expect.stringContaining(
                'Claude Code enables typescript@han-format, but its folder was not found',
              ),
            },
          ],
        },
      ]);
      expect(d.notices[1].issues[0].message).toContain('Run `claude plugin install typescript@han-format`');
      // `[plugins] claude_code = false` (here: the option off) loads none of them.
      expect(
        discoverPlugins({
          projectDir: root,
          env: { HOME: home },
          paths: [],
          enabled: [],
          disabled: [],
          claudeCode: false,
        }).plugins,
      ).toEqual([]);
    } finally {
      writeFileSync(join(root, '.claude/settings.local.json'), '{}');
    }
  });

  it('serve their hooks from the hub with no [plugins] paths entry', () => {
    const r = spawnSync(process.execPath, [BIN, '--cwd', root, 'tools', 'list', '--json'], {
      env: childEnv(root, { HOME: home }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(0);
    const names = (JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['jutsu_schemagen__compile', 'commit_often__pending', 'tally__build', 'tally__test']),
    );
    const compile = (JSON.parse(r.stdout) as { name: string; description: string }[]).find(
      (t) => t.name === 'jutsu_schemagen__compile',
    );
    expect(compile?.description).toContain(
      'Tip: Call `jutsu_schemagen__compile` after editing a schema, then commit the generated files.',
    );
  });
});
