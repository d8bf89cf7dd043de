// Han's override files (han.yml, han-config.yml) applied as Han applies them, with plugins and override files of our
// own in Han's format (test/fixtures/han-format): the tally plugin, and a monorepo whose han.yml turns it off in one
// package and whose legacy han-config.yml replaces its build command in another; unusable keys named; idle_timeout
// in seconds; the precedence of the han.yml chain over han-config.yml. The override cases are in han-override-cases.ts;
// Han's own files go through them in test/originals/han.test.ts.
import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HanSettings, parseHanYml, parseLegacyHanConfig } from '../../../src/sources/plugins/han-settings.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { pluginProject, writeFiles } from '../../helpers/plugins.ts';
import { type HanMonorepo, hanOverrideCases, text } from './han-override-cases.ts';

const HAN_FORMAT = resolve(import.meta.dirname, '../../fixtures/han-format');
const TALLY = join(HAN_FORMAT, 'marketplace/plugins/tools/tally');

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

/**
 * A monorepo in small: packages/app with its han.yml (tally build and test off there) and packages/cli with a
 * legacy han-config.yml (tally build's command replaced), both tally projects, each marked by one of the plugin's
 * two lock files (a han-plugin.yml's dirs_with needs any one of them).
 */
function monorepo(): string {
  const root = pluginProject();
  cpSync(join(HAN_FORMAT, 'overrides'), root, { recursive: true });
  writeFiles(root, {
    'packages/app/tally.lock': '',
    'packages/app/src/app.ts': 'export {};\n',
    'packages/cli/tally.lockb': '',
    'packages/cli/lib/main.ts': 'export {};\n',
    '.switchboard/config.toml': `[plugins]\npaths = ["${TALLY}"]\n`,
  });
  return root;
}

async function start(root: string): Promise<TestHub> {
  // A HOME without a ~/.claude, and a PATH without tally: the plugin's scripts then take their "not installed" path.
  hub = await testHub({ cwd: root, env: { HOME: join(root, '.home'), PATH: '/usr/bin:/bin' } });
  await hub.ready();
  return hub;
}

const OURS: HanMonorepo = {
  root: monorepo,
  start,
  plugin: 'tally',
  disabledIn: 'packages/app',
  // packages/cli/han-config.yml says `tally: build: command: tally bundle --minify`.
  replaced: { in: 'packages/cli', command: 'tally bundle --minify' },
};

describe("Han's per-directory overrides", () => {
  hanOverrideCases(OURS);
});

describe("Han's idle_timeout", () => {
  it('reads a han.yml idle_timeout as seconds, as Han does', async () => {
    const root = monorepo();
    writeFiles(root, {
      'packages/cli/han.yml':
        'plugins:\n  tally:\n    hooks:\n      build: { command: "echo started; sleep 30", idle_timeout: 1 }\n',
    });
    const h = await start(root);
    const started = Date.now();
    const out = await h.call('tally__build', { cache: false });
    expect(text(out)).toMatch(/Killed after 1000 ms without output \(idle_timeout\)/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('HanSettings precedence', () => {
  it('lets each han.yml replace a hook override whole, the nearest winning, over the legacy han-config.yml', () => {
    const root = pluginProject();
    const home = join(root, '.home');
    writeFiles(root, {
      '.home/.claude/han.yml': 'plugins:\n  bun:\n    hooks:\n      test: { enabled: false, command: user }\n',
      '.claude/han.yml': 'plugins:\n  bun:\n    hooks:\n      lint: { command: project }\n',
      '.claude/han.local.yml': 'hooks: { checkpoints: false }\n',
      'han.yml': 'hooks: { cache: false }\n',
      'pkg/han.yml': 'plugins:\n  bun:\n    hooks:\n      test: { command: directory }\n',
      'legacy/han-config.yml': 'bun:\n  test: { idle_timeout: 7, if_changed: ["*.ts"] }\n',
    });
    const han = new HanSettings(root, { HOME: home });
    expect(han.resolve('bun', 'test', join(root, 'pkg'))).toEqual({
      override: { command: 'directory' },
      from: { command: join(root, 'pkg/han.yml') },
    });
    expect(han.resolve('bun', 'test', join(root, 'legacy')).override).toEqual({
      enabled: false,
      command: 'user',
      idle_timeout: 7,
      if_changed: ['*.ts'],
    });
    expect(han.resolve('bun', 'lint', root).override).toEqual({ command: 'project' });
    expect(han.switches()).toEqual({ checkpoints: false, cache: false });
    expect(han.takeIssues()).toEqual([]);
  });

  it("reads override files written in Han's layouts as they are", () => {
    expect(parseHanYml('{}').issues).toEqual([]);
    const overrides = join(HAN_FORMAT, 'overrides');
    const app = parseHanYml(readFileSync(join(overrides, 'packages/app/han.yml'), 'utf8'));
    expect(app).toEqual({
      plugins: {
        tally: { build: { enabled: false }, test: { enabled: false } },
        schemagen: { compile: { command: 'npx --no-install schemagen --check --strict' } },
      },
      switches: {},
      issues: [],
    });
    const legacy = parseLegacyHanConfig(readFileSync(join(overrides, 'packages/cli/han-config.yml'), 'utf8'));
    expect(legacy).toEqual({
      plugins: { tally: { build: { command: 'tally bundle --minify', if_changed: ['bin/**'] } } },
      switches: {},
      issues: [],
    });
    expect(parseHanYml(readFileSync(join(overrides, '.claude/han.yml'), 'utf8'))).toEqual({
      plugins: {},
      switches: { cache: false },
      issues: [],
    });
  });
});
