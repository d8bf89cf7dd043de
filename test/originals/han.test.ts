// Han's own files (../shared/originals/han, see its NOTICE): the han.yml / han-config.yml overrides Han's monorepo
// uses for its bun plugin, applied by the hub as Han applies them and read as they are; its git-storytelling
// `event: Stop` hook matched on SubagentStop too; its marketplace.json and plugins installed by the real `claude`
// binary and served without a [plugins] paths entry; git-storytelling's Stop check under Claude Code getting only
// the files the session edited; and `install claude-code` in a project enabling Han's plugins, replacing the
// `han hook dispatch` entries Han writes with `hook dispatch`, uninstall putting them back. The cases shared with
// our own files in Han's format are written once in test/sources/plugins/han-override-cases.ts,
// test/e2e/han-files-cases.ts, test/e2e/claude-code-hooks-cases.ts and test/e2e/install-han-cases.ts; those files
// and test/sources/plugins/dispatch-events.test.ts run them on ours.
//
// Han's hook scripts are its code and are not in ../shared: a test that runs a Han plugin copies the plugin into a
// temporary folder and writes a script of our own at the path its manifest names (hanMarketplace).
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverPlugins } from '../../src/sources/plugins/discover.ts';
import { matchingHooks } from '../../src/sources/plugins/dispatch.ts';
import { parseHanYml, parseLegacyHanConfig } from '../../src/sources/plugins/han-settings.ts';
import { stopCheckGetsEditedFiles } from '../e2e/claude-code-hooks-cases.ts';
import { type HanMarketplace, hanMarketplaceCases } from '../e2e/han-files-cases.ts';
import { installOverHanCases } from '../e2e/install-han-cases.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { pluginProject, writeFiles } from '../helpers/plugins.ts';
import { type HanMonorepo, hanOverrideCases } from '../sources/plugins/han-override-cases.ts';

const HAN = original('han');

/** Our commit check in Han's format (its contract: the files to check as arguments, exit 2 listing the uncommitted). */
const PENDING_SH = resolve(
  import.meta.dirname,
  '../fixtures/han-format/marketplace/plugins/patterns/commit-often/scripts/pending.sh',
);

/**
 * Our own stand-ins for the scripts Han's bun plugin names (`scripts/build.sh`, `scripts/test.sh`, run with bash from
 * the plugin's folder): each runs bun in the directory, and passes, saying so, where bun is not installed.
 */
const BUN_SCRIPTS: Record<string, string> = {
  'scripts/build.sh':
    '#!/bin/bash\n# Ours, not Han\'s: bun\'s build script in the current directory.\ncommand -v bun >/dev/null || { echo "bun missing: build not run"; exit 0; }\nexec bun run build\n',
  'scripts/test.sh':
    '#!/bin/bash\n# Ours, not Han\'s: bun\'s tests in the current directory.\ncommand -v bun >/dev/null || { echo "bun missing: tests not run"; exit 0; }\nexec bun test\n',
};

/**
 * A copy of Han's marketplace folder (marketplace.json and three plugins' manifests) in a temporary folder, with our
 * own scripts where the manifests name Han's: bun's build.sh and test.sh, git-storytelling's check-commits.sh (our
 * pending.sh). relay's plugin.json names an LSP server script, which Switchboard never starts: none is written.
 */
function hanMarketplace(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'han-marketplace-')), 'marketplace');
  cpSync(join(HAN, 'marketplace'), dir, { recursive: true });
  writeFiles(join(dir, 'plugins/tools/bun'), BUN_SCRIPTS);
  mkdirSync(join(dir, 'plugins/patterns/git-storytelling/scripts'), { recursive: true });
  copyFileSync(PENDING_SH, join(dir, 'plugins/patterns/git-storytelling/scripts/check-commits.sh'));
  return dir;
}

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe("Han's per-directory overrides, from Han's own monorepo", () => {
  /**
   * Han's own monorepo in small: packages/browse-client with its han.yml (bun build and test disabled there) and
   * packages/han with its legacy han-config.yml (bun build's command replaced), both Bun projects (bun.lock).
   */
  function hanMonorepo(): string {
    const root = pluginProject();
    cpSync(join(HAN, 'overrides'), root, { recursive: true });
    const bun = join(hanMarketplace(), 'plugins/tools/bun');
    writeFiles(root, {
      'packages/browse-client/bun.lock': '',
      'packages/browse-client/src/app.ts': 'export {};\n',
      'packages/han/bun.lock': '',
      'packages/han/lib/main.ts': 'export {};\n',
      '.switchboard/config.toml': `[plugins]\npaths = ["${bun}"]\n`,
    });
    return root;
  }

  async function start(root: string): Promise<TestHub> {
    // A HOME without a ~/.claude, and a PATH without bun: the scripts then take their "not installed" branches.
    hub = await testHub({ cwd: root, env: { HOME: join(root, '.home'), PATH: '/usr/bin:/bin' } });
    await hub.ready();
    return hub;
  }

  const HANS: HanMonorepo = {
    root: hanMonorepo,
    start,
    plugin: 'bun',
    disabledIn: 'packages/browse-client',
    // packages/han/han-config.yml says `bun: build: command: bun scripts/build-bundle.js`.
    replaced: { in: 'packages/han', command: 'bun scripts/build-bundle.js' },
  };

  hanOverrideCases(HANS);

  it("reads Han's own files as they are", () => {
    expect(parseHanYml(readFileSync(join(HAN, 'overrides/.claude/han.yml'), 'utf8'))).toEqual({
      plugins: {},
      switches: {},
      issues: [],
    });
    const browse = parseHanYml(readFileSync(join(HAN, 'overrides/packages/browse-client/han.yml'), 'utf8'));
    expect(browse).toEqual({
      plugins: { bun: { build: { enabled: false }, test: { enabled: false } } },
      switches: {},
      issues: [],
    });
    const legacy = parseLegacyHanConfig(readFileSync(join(HAN, 'overrides/packages/han/han-config.yml'), 'utf8'));
    expect(legacy.plugins).toEqual({ bun: { build: { command: 'bun scripts/build-bundle.js' } } });
    expect(legacy.issues).toEqual([]);
  });
});

describe('events a hook runs on', () => {
  it("runs Han's git-storytelling `event: Stop` hook on SubagentStop too, and on nothing else", () => {
    const root = pluginProject();
    const plugin = join(HAN, 'marketplace/plugins/patterns/git-storytelling');
    const names = (hook_event_name: string) =>
      matchingHooks(
        discoverPlugins({ projectDir: root, env: { HOME: root }, paths: [plugin], enabled: [], disabled: [] }),
        { hook_event_name },
        root,
      ).map((m) => `${m.plugin.name}:${m.hook.name}`);
    expect(names('Stop')).toEqual(['git-storytelling:check-commits']);
    expect(names('SubagentStop')).toEqual(['git-storytelling:check-commits']);
    expect(names('PostToolUse')).toEqual([]);
    expect(names('SessionStart')).toEqual([]);
  });
});

describe("Han's marketplace installed by Claude Code", () => {
  const hans: HanMarketplace = {
    folder: hanMarketplace,
    name: 'han',
    // Han's relay plugin under its old name, as Han's own installer used to enable it; bun for this project only.
    renamed: {
      old: 'relay',
      version: '1.3.0',
      tip: 'Use the `jutsu_relay__compile` MCP tool before marking complete.',
    },
    user: { name: 'git-storytelling', tool: 'git_storytelling__check_commits' },
    project: 'bun',
  };
  hanMarketplaceCases(hans);
});

describe("Han's git-storytelling under Claude Code, through switchboard hook dispatch", () => {
  it('gets only the files the session edited as ${HAN_FILES}', async () => {
    // Han's manifest runs `bash "${CLAUDE_PLUGIN_ROOT}/scripts/check-commits.sh" ${HAN_FILES}`: our script there.
    const plugin = join(hanMarketplace(), 'plugins/patterns/git-storytelling');
    await stopCheckGetsEditedFiles(plugin, 'git_storytelling__check_commits');
  });
});

describe("install claude-code in a project that enables Han's plugins from Han's marketplace", () => {
  // Han's relay, bun and git-storytelling enabled as `<plugin>@han`, as Han's own repository enables them.
  installOverHanCases({ marketplace: hanMarketplace, name: 'han', plugins: ['relay', 'bun', 'git-storytelling'] });
});
