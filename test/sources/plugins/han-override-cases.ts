// Han's per-directory overrides (han.yml, legacy han-config.yml) applied by the hub, written once and run on two
// monorepos: ours with the tally plugin (han-settings.test.ts beside this file, `npm test`) and Han's own with its bun
// plugin (test/originals/han.test.ts, `npm run test:shared`). Each has a package whose han.yml turns build and test
// off, and a package whose han-config.yml replaces build's command.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { Outcome } from '../../../src/core/pipeline.ts';
import type { TestHub } from '../../helpers/hub.ts';

export interface HanMonorepo {
  /** A fresh copy of the monorepo, its plugin configured. */
  root: () => string;
  /** A hub on that folder whose PATH lacks the plugin's tool (its scripts then pass, saying it is not installed). */
  start: (root: string) => Promise<TestHub>;
  plugin: string;
  /** The package whose han.yml disables build and test. */
  disabledIn: string;
  /** The package whose han-config.yml replaces build's command, and that command. */
  replaced: { in: string; command: string };
}

export const text = (out: Outcome) => (out.ok && out.raw ? String(out.raw.content[0].text) : JSON.stringify(out));
const dirs = (out: Outcome) => (out.ok ? (out.value as any).directories : undefined);

/** Skips the directory whose han.yml disables the hook, and runs the command a han-config.yml sets. */
async function appliesOverrides(m: HanMonorepo): Promise<void> {
  const h = await m.start(m.root());
  const build = await h.call(`${m.plugin}__build`, { cache: false });
  // The failing directory first, though it may sort after the skipped one.
  expect(dirs(build)).toEqual([
    expect.objectContaining({ directory: m.replaced.in, ok: false }),
    expect.objectContaining({
      directory: m.disabledIn,
      ok: true,
      skipped: `disabled by ${m.disabledIn}/han.yml (plugins.${m.plugin}.hooks.build.enabled: false)`,
    }),
  ]);
  // The replaced command's program is not on PATH.
  expect(text(build)).toContain(`[Command from ${m.replaced.in}/han-config.yml: ${m.replaced.command}]`);
  expect(text(build)).toContain(`⏭️ ${m.disabledIn}: not run, disabled by ${m.disabledIn}/han.yml`);

  // test has no override in the other package: the plugin's own test.sh runs there (and passes: no tool).
  const test = await h.call(`${m.plugin}__test`, { cache: false });
  expect(dirs(test)).toEqual([
    expect.objectContaining({ directory: m.disabledIn, skipped: expect.stringMatching(/^disabled by/) }),
    expect.objectContaining({ directory: m.replaced.in, ok: true, exitCode: 0 }),
  ]);
}

/** A han.yml written beside the han-config.yml: every key it cannot use named with the file and what to do. */
async function namesUnusableKeys(m: HanMonorepo): Promise<void> {
  const root = m.root();
  const p = m.plugin;
  const file = join(root, m.replaced.in, 'han.yml');
  writeFileSync(
    file,
    [
      'memory: { enabled: false }',
      'plugins:',
      `  ${p}:`,
      '    test: { enabled: false }', // the layout of Han's JSON schema, which Han itself does not read
      '    hooks:',
      '      build: { enabled: nope, idle_timeout: 5, before_all: make gen, retries: 3 }',
    ].join('\n'),
  );
  const h = await m.start(root);
  const out = await h.call(`${p}__build`, { cache: false });
  expect(text(out)).toContain(`⚠️ ${file}: memory: configures Han itself; Switchboard has no such setting`);
  expect(text(out)).toContain(
    `plugins.${p}.test: hook overrides belong under plugins.${p}.hooks.test (Han reads them only there); move it`,
  );
  expect(text(out)).toContain(`plugins.${p}.hooks.build.enabled: wrong type: enabled must be true or false`);
  expect(text(out)).toContain(`plugins.${p}.hooks.build.before_all: Han's before_all is not supported`);
  expect(text(out)).toContain(
    `plugins.${p}.hooks.build.retries: unknown key 'retries' is ignored; a hook override takes enabled, command, if_changed, idle_timeout`,
  );
  // idle_timeout (whole seconds) is a key it can use: no issue names it.
  expect(text(out)).not.toContain(`plugins.${p}.hooks.build.idle_timeout`);
  // That package's han.yml now exists, so (as in Han) its han-config.yml is no longer read: build.sh runs as shipped
  // (and passes where the tool is not installed, where the replaced command would fail).
  expect(text(out)).not.toContain(m.replaced.command);
  expect(dirs(out)).toContainEqual(expect.objectContaining({ directory: m.replaced.in, ok: true, exitCode: 0 }));
}

/** Defines the override tests on one monorepo, in the calling describe. */
export function hanOverrideCases(m: HanMonorepo): void {
  it('skips the directory whose han.yml disables the hook, and runs the command a han-config.yml sets', async () => {
    await appliesOverrides(m);
  });
  it('names the file, the key and what to do for every key it cannot use', async () => {
    await namesUnusableKeys(m);
  });
}
