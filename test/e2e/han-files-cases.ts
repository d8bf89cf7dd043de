// Han-format plugins as Claude Code installs them, written once and run on two marketplaces: ours
// (test/fixtures/han-format, han-files.test.ts beside this file, `npm test`) and Han's own (test/originals/han.test.ts,
// `npm run test:shared`). The real `claude` binary adds the marketplace and installs three plugins into a throwaway
// HOME: one under its old `jutsu-` name, one for the user, one for the project only.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { discoverPlugins } from '../../src/sources/plugins/discover.ts';
import { BIN, childEnv } from '../helpers/cli.ts';
import { pluginProject, writeFiles } from '../helpers/plugins.ts';
import { CLAUDE, claudeEnv } from './claude-code-hooks-cases.ts';

export interface HanMarketplace {
  /** The marketplace folder to add (made when the file's tests start). */
  folder: () => string;
  /** Its name in marketplace.json. */
  name: string;
  /** The plugin installed under its old name, `jutsu-<old>`, and its version; it has a compile hook with a tip. */
  renamed: { old: string; version: string; tip: string };
  /** The plugin installed for the user, and its Stop check's tool. */
  user: { name: string; tool: string };
  /** The plugin installed for this project only: it has build and test hooks. */
  project: string;
}

/** The project and HOME Claude Code installed the marketplace's plugins into. */
interface Installed {
  root: string;
  home: string;
}

/** Installs the marketplace's plugins before the calling file's tests; the folders are filled in then. */
function installedByClaudeCode(m: HanMarketplace): Installed {
  const installed: Installed = { root: '', home: '' };
  beforeAll(() => {
    installed.root = pluginProject();
    installed.home = join(installed.root, '.home');
    mkdirSync(installed.home, { recursive: true });
    const claude = (...args: string[]) =>
      execFileSync(CLAUDE, args, {
        cwd: installed.root,
        env: claudeEnv(installed.home),
        encoding: 'utf8',
        timeout: 60_000,
      });
    claude('plugin', 'marketplace', 'add', m.folder());
    // A Han user enabled many plugins so, before Han dropped the jutsu- prefix.
    claude('plugin', 'install', `jutsu-${m.renamed.old}@${m.name}`);
    claude('plugin', 'install', `${m.user.name}@${m.name}`);
    claude('plugin', 'install', `${m.project}@${m.name}`, '--scope', 'project');
  }, 120_000);
  return installed;
}

const discover = ({ root, home }: Installed, claudeCode: boolean) =>
  discoverPlugins({ projectDir: root, env: { HOME: home }, paths: [], enabled: [], disabled: [], claudeCode });

/** The compile hook's tool, as Switchboard names it. */
const compileTool = (m: HanMarketplace) => `jutsu_${m.renamed.old}__compile`;

/** Found through Claude Code's own files, named as Han names them; the tip names Switchboard's tool. */
function foundThroughClaudeCode(at: Installed, m: HanMarketplace): void {
  const d = discover(at, true);
  expect(d.notices).toEqual([]);
  const renamed = `jutsu-${m.renamed.old}`;
  expect(d.plugins.map((p) => [p.name, p.scope, p.format])).toEqual([
    [renamed, 'claude-code', 'han'],
    [m.user.name, 'claude-code', 'han'],
    [m.project, 'claude-code', 'han'],
  ]);
  // Installed copies in Claude Code's cache (…/cache/<marketplace>/<plugin>/<version>), not the marketplace's folder.
  expect(d.plugins[0].dir).toBe(join(at.home, '.claude/plugins/cache', m.name, renamed, m.renamed.version));
  // The tip names Han's tool (`jutsu_<old>_compile`); shown here it names Switchboard's.
  const compile = d.plugins[0].hooks[0];
  expect(compile.tool).toBe(compileTool(m));
  expect(compile.spec.tip).toBe(m.renamed.tip);
}

/** A local false is followed, and every entry it cannot use is named with the file and the key. */
function followsLocalFalse(at: Installed, m: HanMarketplace): void {
  const missing = `typescript@${m.name}`;
  writeFiles(at.root, {
    '.claude/settings.local.json': JSON.stringify({
      enabledPlugins: { [`${m.user.name}@${m.name}`]: false, [missing]: true, [m.renamed.old]: true },
    }),
  });
  try {
    const d = discover(at, true);
    expect(d.plugins.map((p) => p.name)).toEqual([`jutsu-${m.renamed.old}`, m.project]);
    const local = join(at.root, '.claude/settings.local.json');
    expect(d.notices).toEqual([
      {
        file: local,
        issues: [
          {
            field: `enabledPlugins.${m.renamed.old}`,
            message: 'expected a "plugin@marketplace" key (e.g. "relay@han"); this entry is ignored',
          },
        ],
      },
      {
        file: local,
        issues: [
          {
            field: `enabledPlugins.${missing}`,
            message: expect.stringContaining(`Claude Code enables ${missing}, but its folder was not found`),
          },
        ],
      },
    ]);
    expect(d.notices[1].issues[0].message).toContain(`Run \`claude plugin install ${missing}\``);
    // `[plugins] claude_code = false` (here: the option off) loads none of them.
    expect(discover(at, false).plugins).toEqual([]);
  } finally {
    writeFileSync(join(at.root, '.claude/settings.local.json'), '{}');
  }
}

/** The hub serves their hooks with no [plugins] paths entry, the tip in the compile tool's description. */
function servedWithoutPaths({ root, home }: Installed, m: HanMarketplace): void {
  const r = spawnSync(process.execPath, [BIN, '--cwd', root, 'tools', 'list', '--json'], {
    env: childEnv(root, { HOME: home }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status).toBe(0);
  const tools = JSON.parse(r.stdout) as { name: string; description: string }[];
  expect(tools.map((t) => t.name)).toEqual(
    expect.arrayContaining([compileTool(m), m.user.tool, `${m.project}__build`, `${m.project}__test`]),
  );
  const compile = tools.find((t) => t.name === compileTool(m));
  expect(compile?.description).toContain(`Tip: ${m.renamed.tip}`);
}

/** Installs the marketplace's plugins before the calling describe's tests, and defines those tests. */
export function hanMarketplaceCases(m: HanMarketplace): void {
  const installed = installedByClaudeCode(m);
  it("are found through Claude Code's own files, named as Han names them", () => {
    foundThroughClaudeCode(installed, m);
  });
  it('follow a local false, and name every entry it cannot use with the file and the key', () => {
    followsLocalFalse(installed, m);
  });
  it('serve their hooks from the hub with no [plugins] paths entry', () => {
    servedWithoutPaths(installed, m);
  });
}
