// Han's override files (han.yml, han-config.yml) applied as Han applies them, with Han's own files from its repository
// (test/fixtures/han): its bun plugin unchanged, and the overrides Han's own monorepo uses for it.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/core/pipeline.ts';
import { HanSettings, parseHanYml, parseLegacyHanConfig } from '../../../src/sources/plugins/han-settings.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { pluginProject, writeFiles } from '../../helpers/plugins.ts';

const HAN = resolve(import.meta.dirname, '../../fixtures/han');
const BUN = join(HAN, 'marketplace/plugins/tools/bun');

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

/**
 * Han's own monorepo in small: packages/browse-client with its han.yml (bun build and test disabled there) and
 * packages/han with its legacy han-config.yml (bun build's command replaced), both Bun projects (bun.lock).
 */
function hanMonorepo(): string {
  const root = pluginProject();
  cpSync(join(HAN, 'overrides'), root, { recursive: true });
  writeFiles(root, {
    'packages/browse-client/bun.lock': '',
    'packages/browse-client/src/app.ts': 'export {};\n',
    'packages/han/bun.lock': '',
    'packages/han/lib/main.ts': 'export {};\n',
    '.switchboard/config.toml': `[plugins]\npaths = ["${BUN}"]\n`,
  });
  return root;
}

const text = (out: Outcome) => (out.ok && out.raw ? String(out.raw.content[0].text) : JSON.stringify(out));
const dirs = (out: Outcome) => (out.ok ? (out.value as any).directories : undefined);

async function start(root: string): Promise<TestHub> {
  // A HOME without a ~/.claude, and a PATH without bun: Han's scripts then take their "not installed" branches.
  hub = await testHub({ cwd: root, env: { HOME: join(root, '.home'), PATH: '/usr/bin:/bin' } });
  await hub.ready();
  return hub;
}

describe("Han's per-directory overrides", () => {
  it('skips the directory whose han.yml disables the hook, and runs the command a han-config.yml sets', async () => {
    const h = await start(hanMonorepo());
    const build = await h.call('bun__build', { cache: false });
    expect(dirs(build)).toEqual([
      expect.objectContaining({ directory: 'packages/han', ok: false }),
      expect.objectContaining({
        directory: 'packages/browse-client',
        ok: true,
        skipped: 'disabled by packages/browse-client/han.yml (plugins.bun.hooks.build.enabled: false)',
      }),
    ]);
    // packages/han/han-config.yml says `bun: build: command: bun scripts/build-bundle.js`; bun is not on PATH.
    expect(text(build)).toContain('[Command from packages/han/han-config.yml: bun scripts/build-bundle.js]');
    expect(text(build)).toContain('⏭️ packages/browse-client: not run, disabled by packages/browse-client/han.yml');

    // bun test has no override in packages/han: Han's own test.sh runs there (and skips: no bun).
    const test = await h.call('bun__test', { cache: false });
    expect(dirs(test)).toEqual([
      expect.objectContaining({ directory: 'packages/browse-client', skipped: expect.stringMatching(/^disabled by/) }),
      expect.objectContaining({ directory: 'packages/han', ok: true, exitCode: 0 }),
    ]);
  });

  it('names the file, the key and what to do for every key it cannot use', async () => {
    const root = hanMonorepo();
    writeFileSync(
      join(root, 'packages/han/han.yml'),
      [
        'memory: { enabled: false }',
        'plugins:',
        '  bun:',
        '    test: { enabled: false }', // the layout of Han's JSON schema, which Han itself does not read
        '    hooks:',
        '      build: { enabled: nope, idle_timeout: 5, before_all: make gen, retries: 3 }',
      ].join('\n'),
    );
    const h = await start(root);
    const out = await h.call('bun__build', { cache: false });
    const file = join(root, 'packages/han/han.yml');
    expect(text(out)).toContain(`⚠️ ${file}: memory: configures Han itself; Switchboard has no such setting`);
    expect(text(out)).toContain(
      'plugins.bun.test: hook overrides belong under plugins.bun.hooks.test (Han reads them only there); move it',
    );
    expect(text(out)).toContain('plugins.bun.hooks.build.enabled: wrong type: enabled must be true or false');
    expect(text(out)).toContain("plugins.bun.hooks.build.before_all: Han's before_all is not supported");
    expect(text(out)).toContain(
      "plugins.bun.hooks.build.retries: unknown key 'retries' is ignored; a hook override takes enabled, command, if_changed, idle_timeout",
    );
    // packages/han/han.yml now exists, so (as in Han) its han-config.yml is no longer read: build.sh runs as shipped.
    expect(text(out)).not.toContain('build-bundle.js');
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

  it("reads Han's own files as they are", () => {
    expect(parseHanYml('{}').issues).toEqual([]);
    const browse = parseHanYml(readFileSync(join(HAN, 'overrides/packages/browse-client/han.yml'), 'utf8'));
    expect(browse).toEqual({
      plugins: { bun: { build: { enabled: false }, test: { enabled: false } } },
      switches: {},
      issues: [],
    });
    const legacy = parseLegacyHanConfig(readFileSync(join(HAN, 'overrides/packages/han/han-config.yml'), 'utf8'));
    expect(legacy.plugins).toEqual({ bun: { build: { command: 'bun scripts/build-bundle.js' } } });
  });
});
