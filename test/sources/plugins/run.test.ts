// Running plugin hooks through the real pipeline: directories, git-ignore, dir_test, failures first, output caps,
// timeouts that kill the process tree, the if_changed cache, depends_on, verbose logs, path escapes, the watcher.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/core/pipeline.ts';
import type { PluginsSource } from '../../../src/sources/plugins/index.ts';
import { ADMIN, type TestHub, testHub } from '../../helpers/hub.ts';
import { pluginProject, writeFiles, writePlugin } from '../../helpers/plugins.ts';
import { alive, gone, pidFrom } from '../../helpers/proc.ts';
import { until } from '../../helpers/until.ts';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

/** A project with packages a (passing) and b (failing), an ignored one, one under node_modules, and a plugin. */
function project(manifest: string, extra: Record<string, string> = {}): string {
  const root = pluginProject();
  writeFiles(root, {
    '.gitignore': 'packages/ignored/\n',
    'packages/a/package.json': '{}',
    'packages/a/src/index.js': 'export const a = 1;\n',
    'packages/b/package.json': '{}',
    'packages/b/fail': '',
    'packages/ignored/package.json': '{}',
    'node_modules/dep/package.json': '{}',
    ...extra,
  });
  writePlugin(root, 'checks', manifest);
  return root;
}

const CHECK = `if [ -f fail ]; then echo "failing in \${PWD##*/}"; echo "details for \${PWD##*/}" >&2; exit 1; fi; echo "passing in \${PWD##*/}"`;

async function start(root: string): Promise<TestHub> {
  hub = await testHub({ cwd: root });
  await hub.ready();
  return hub;
}

const text = (out: Outcome) => (out.ok && out.raw ? String(out.raw.content[0].text) : JSON.stringify(out));
const isError = (out: Outcome) => out.ok && out.raw?.isError === true;
const data = (out: Outcome) => (out.ok ? (out.value as any) : undefined);

describe('hook tools in the catalog', () => {
  it('registers one tool per hook with title, annotations and the {directory, verbose, cache} input; mcp:false is hidden', async () => {
    const h = await start(
      project(
        `name: jutsu-typescript\nhooks:\n  lint: { command: "true" }\n  hidden: { command: "true", mcp: false }\n`,
      ),
    );
    const entry = h.services.registry.get('jutsu_typescript__lint')!;
    expect(entry.capability.name).toBe('jutsu_typescript.lint');
    expect(entry.tool).toMatchObject({
      name: 'jutsu_typescript__lint',
      title: 'Lint TypeScript',
      annotations: {
        title: 'Lint TypeScript',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      inputSchema: {
        type: 'object',
        properties: {
          directory: { type: 'string' },
          verbose: { type: 'boolean', default: false },
          cache: { type: 'boolean', default: true },
        },
      },
    });
    expect(h.services.registry.get('jutsu_typescript__hidden')).toBeUndefined();
    expect((h.sources.get('plugins') as PluginsSource).discovery().plugins[0].hooks.map((x) => x.name)).toEqual([
      'hidden',
      'lint',
    ]);
    const caps = await h.value('system.capabilities');
    expect(caps.features.find((f: any) => f.name === 'plugins')).toMatchObject({
      status: 'Available',
      tools: ['jutsu_typescript__lint'],
    });
  });

  it('rejects unknown input fields naming them', async () => {
    const h = await start(project(`hooks:\n  test: { command: "true" }\n`));
    const out = await h.call('checks__test', { dir: 'x' });
    expect(out).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: expect.stringMatching(/dir/) } });
  });
});

describe('running a hook', () => {
  it('runs in every marked directory, skipping git-ignored and node_modules, failing directories first', async () => {
    const h = await start(project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`));
    const out = await h.call('checks__test', {});
    expect(isError(out)).toBe(true);
    expect(data(out).directories.map((d: any) => [d.directory, d.ok, d.exitCode])).toEqual([
      ['packages/b', false, 1],
      ['packages/a', true, 0],
    ]);
    const t = text(out);
    expect(t).toMatch(/^❌ checks__test failed in 1 of 2 directories\./);
    expect(t).toContain('failing in b');
    expect(t).toContain('details for b');
    expect(t.indexOf('packages/b')).toBeLessThan(t.indexOf('packages/a'));
    expect(t).not.toContain('ignored');
    // Every directory's outcome is in the store, for task metrics.
    const runs = await h.services.store.hooks.runs({ since: '2000-01-01T00:00:00.000Z' });
    expect(runs.map((r) => [r.plugin, r.hook, r.directory, r.ok]).sort()).toEqual([
      ['checks', 'test', 'packages/a', true],
      ['checks', 'test', 'packages/b', false],
    ]);
  });

  it('passes when every directory passes, and limits the run to `directory`', async () => {
    const h = await start(project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`));
    const out = await h.call('checks__test', { directory: 'packages/a' });
    expect(isError(out)).toBe(false);
    expect(text(out)).toMatch(/^✅ checks__test passed in 1 directory\./);
    expect(data(out)).toMatchObject({ ok: true, directories: [{ directory: 'packages/a', ok: true }] });
  });

  it('applies nested .gitignore files, and the ones above `directory` when the walk starts below the root', async () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`, {
      'packages/.gitignore': 'b/\n',
      'packages/c/package.json': '{}',
      'packages/c/.gitignore': 'deep/\n',
      'packages/c/deep/package.json': '{}',
      'packages/ignored/inner/package.json': '{}',
    });
    const h = await start(root);
    const dirs = async (input: object) =>
      data(await h.call('checks__test', input)).directories.map((d: any) => d.directory);
    expect(await dirs({})).toEqual(['packages/a', 'packages/c']);
    expect(await dirs({ directory: 'packages/c' })).toEqual(['packages/c']);
    // The root .gitignore ignores packages/ignored; starting the walk inside it does not escape the rule's parent.
    expect(await dirs({ directory: 'packages' })).toEqual(['packages/a', 'packages/c']);
  });

  it('runs in the project root without dirs_with, and filters by dir_test', async () => {
    const root = project(
      `hooks:\n  where: { command: 'echo "in \${PWD##*/}"' }\n  tested: { command: 'echo ok', dirs_with: [package.json], dir_test: 'test ! -f fail' }\n`,
    );
    const h = await start(root);
    expect(data(await h.call('checks__where', {})).directories.map((d: any) => d.directory)).toEqual(['.']);
    expect(data(await h.call('checks__tested', {})).directories.map((d: any) => d.directory)).toEqual(['packages/a']);
  });

  it('reads dirs_with as alternatives in a Han manifest, as required together in a Switchboard one, globs included', async () => {
    const root = project(`hooks:\n  both: { command: "true", dirs_with: [package.json, "*.config.js"] }\n`, {
      'packages/a/eslint.config.js': '',
      'packages/b/.eslintrc.json': '{}',
    });
    writePlugin(root, 'han', `hooks:\n  either: { command: "true", dirs_with: [eslint.config.js, .eslintrc.json] }\n`, {
      file: 'han-plugin.yml',
    });
    const h = await start(root);
    const dirs = async (tool: string) =>
      data(await h.call(tool, {}))
        .directories.map((d: any) => d.directory)
        .sort();
    expect(await dirs('checks__both')).toEqual(['packages/a']);
    expect(await dirs('han__either')).toEqual(['packages/a', 'packages/b']);
    expect(h.services.registry.get('han__either')?.tool.description).toContain(
      'Runs in directories containing: eslint.config.js or .eslintrc.json.',
    );
    expect(h.services.registry.get('checks__both')?.tool.description).toContain(
      'Runs in directories containing: package.json and *.config.js.',
    );
  });

  it('answers clearly when no directory matches instead of succeeding silently', async () => {
    const h = await start(project(`hooks:\n  cargo: { command: "cargo test", dirs_with: [Cargo.toml] }\n`));
    const out = await h.call('checks__cargo', {});
    expect(isError(out)).toBe(true);
    expect(text(out)).toMatch(/Nothing ran: no directory under '\.' contains Cargo\.toml/);
  });

  it('refuses a directory outside the project: ../, absolute, a symlink pointing out, or missing', async () => {
    const outside = pluginProject();
    const root = project(`hooks:\n  test: { command: "true" }\n`);
    symlinkSync(outside, join(root, 'escape'));
    const h = await start(root);
    for (const directory of ['..', '../..', 'packages/../..', 'escape']) {
      const out = await h.call('checks__test', { directory });
      expect(out).toMatchObject({
        ok: false,
        error: { code: 'INVALID_INPUT', message: expect.stringMatching(/outside the project root/) },
      });
    }
    for (const directory of ['/etc', 'nope']) {
      const out = await h.call('checks__test', { directory });
      expect(out).toMatchObject({
        ok: false,
        error: { code: 'INVALID_INPUT', message: expect.stringMatching(/does not exist/) },
      });
    }
  });

  it('never pastes input into the command: a directory with shell syntax is only a path', async () => {
    const root = project(`hooks:\n  test: { command: 'echo "ran in \${PWD##*/}"' }\n`);
    const weird = 'x; touch PWNED';
    mkdirSync(join(root, weird));
    const h = await start(root);
    const out = await h.call('checks__test', { directory: weird });
    expect(text(out)).toContain('✅');
    expect(() => readFileSync(join(root, 'PWNED'))).toThrow();
  });

  it('never lets a file name be read as an option: ${HAN_FILES} names a file that begins with - as ./-…', async () => {
    // It fails on purpose after printing, so that its output is in the answer.
    const root = project(`hooks:\n  test: { command: 'cat \${HAN_FILES}; exit 3', if_changed: ['*.txt'] }\n`, {
      '-n.txt': 'the file itself\n',
    });
    const h = await start(root);
    const out = await h.call('checks__test', {});
    // `cat -n.txt` would be cat's own -n option (and an invalid '.'); `cat ./-n.txt` prints the file.
    expect(text(out)).toContain('the file itself');
    expect(text(out)).not.toMatch(/invalid option/);
  });

  it('keeps head and tail of long output within about 25,000 characters, with a note', async () => {
    const h = await start(
      project(
        `hooks:\n  loud: { command: 'echo FIRST-LINE; i=0; while [ $i -lt 4000 ]; do echo "line $i of filler text"; i=$((i+1)); done; echo LAST-LINE; exit 1' }\n`,
      ),
    );
    const t = text(await h.call('checks__loud', {}));
    expect(t.length).toBeLessThan(28_000);
    expect(t).toContain('FIRST-LINE');
    expect(t).toContain('LAST-LINE');
    expect(t).toMatch(/characters cut from the middle/);
  });

  it('streams output lines as log notifications when verbose', async () => {
    const h = await start(project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`));
    const logs: unknown[] = [];
    const progress: string[] = [];
    const call = (verbose: boolean) =>
      h.pipeline.call({
        principal: ADMIN,
        name: 'checks__test',
        input: { verbose },
        transport: 'cli',
        log: async (_level, d) => void logs.push(d),
        progress: async (_p, _t, m) => void progress.push(String(m)),
      });
    await call(false);
    expect(logs).toEqual([]);
    await call(true);
    expect(logs).toEqual(
      expect.arrayContaining(['[packages/a] passing in a', '[packages/b] failing in b', '[packages/b] details for b']),
    );
    expect(progress).toEqual(
      expect.arrayContaining(['checks__test: packages/b failed', 'checks__test: packages/a passed']),
    );
  });
});

describe('timeouts', () => {
  it('timeout kills the whole process tree and says so', async () => {
    const pidFile = join(tmpdir(), `sb-hook-${process.pid}-${Date.now()}`);
    const h = await start(
      project(`hooks:\n  slow: { command: 'sleep 30 & echo $! > ${pidFile}; wait', timeout: 1000 }\n`),
    );
    const running = h.call('checks__slow', {});
    const grandchild = await pidFrom(pidFile);
    expect(alive(grandchild)).toBe(true);
    const out = await running;
    expect(isError(out)).toBe(true);
    expect(text(out)).toMatch(/Killed after 1000 ms \(timeout\): the whole process tree was stopped/);
    expect(data(out).directories[0]).toMatchObject({ timedOut: true, exitCode: 124 });
    expect(await gone(grandchild)).toBe(true);
  });

  it('idle_timeout kills a hook that stops writing output', async () => {
    const pidFile = join(tmpdir(), `sb-idle-${process.pid}-${Date.now()}`);
    const h = await start(
      project(
        `hooks:\n  quiet: { command: 'echo started; sleep 30 & echo $! > ${pidFile}; wait', idle_timeout: 400, timeout: 20000 }\n`,
      ),
    );
    const started = Date.now();
    const out = await h.call('checks__quiet', {});
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text(out)).toMatch(/Killed after 400 ms without output \(idle_timeout\)/);
    expect(data(out).directories[0]).toMatchObject({ idleTimedOut: true });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(await gone(grandchild)).toBe(true);
  });
});

describe('the if_changed cache', () => {
  const manifest = `hooks:\n  count: { command: 'echo run >> "$SWITCHBOARD_PROJECT_DIR/count.log"; test ! -f broken', dirs_with: [package.json], if_changed: ["src/**/*.js"] }\n`;
  const runsOf = (root: string) => {
    try {
      return readFileSync(join(root, 'count.log'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };

  it('skips an unchanged directory after a success, runs again after a change or with cache=false', async () => {
    const root = project(manifest);
    const h = await start(root);
    const a = { directory: 'packages/a' };
    expect(text(await h.call('checks__count', a))).toMatch(/passed/);
    expect(runsOf(root)).toBe(1);
    const hit = await h.call('checks__count', a);
    expect(text(hit)).toContain('No changes since the last successful run. To force a re-run, use cache=false.');
    expect(data(hit).directories[0]).toMatchObject({ cached: true, ok: true });
    expect(runsOf(root)).toBe(1);
    writeFileSync(join(root, 'packages/a/src/index.js'), 'export const a = 2;\n');
    await h.call('checks__count', a);
    expect(runsOf(root)).toBe(2);
    await h.call('checks__count', { ...a, cache: false });
    expect(runsOf(root)).toBe(3);
    // A new matching file is a change too.
    writeFileSync(join(root, 'packages/a/src/more.js'), 'export {};\n');
    await h.call('checks__count', a);
    expect(runsOf(root)).toBe(4);
    const runs = await h.services.store.hooks.runs({ since: '2000-01-01T00:00:00.000Z' });
    expect(runs.map((r) => r.cached)).toEqual([false, true, false, false, false]);
  });

  it('never caches a failure', async () => {
    const root = project(manifest, { 'packages/a/broken': '' });
    const h = await start(root);
    await h.call('checks__count', { directory: 'packages/a' });
    const again = await h.call('checks__count', { directory: 'packages/a' });
    expect(isError(again)).toBe(true);
    expect(runsOf(root)).toBe(2);
  });
});

describe('depends_on', () => {
  it('runs the dependency first and does not run the hook when it fails', async () => {
    const root = project(
      `hooks:\n  build: { command: 'echo built >> "$SWITCHBOARD_PROJECT_DIR/order.log"; test ! -f "$SWITCHBOARD_PROJECT_DIR/nobuild"' }\n  test:\n    command: 'echo tested >> "$SWITCHBOARD_PROJECT_DIR/order.log"'\n    depends_on: [{ plugin: checks, hook: build }]\n`,
    );
    const h = await start(root);
    expect(isError(await h.call('checks__test', {}))).toBe(false);
    expect(readFileSync(join(root, 'order.log'), 'utf8')).toBe('built\ntested\n');
    writeFileSync(join(root, 'nobuild'), '');
    const out = await h.call('checks__test', {});
    expect(isError(out)).toBe(true);
    expect(text(out)).toMatch(/did not run: its dependency checks\/build failed/);
    expect(readFileSync(join(root, 'order.log'), 'utf8')).toBe('built\ntested\nbuilt\n');
  });

  it('fails clearly for a missing dependency, skips an optional one, and stops a cycle', async () => {
    const h = await start(
      project(
        `hooks:\n  a: { command: "true", depends_on: [{ plugin: nowhere, hook: x }] }\n  b: { command: "true", depends_on: [{ plugin: nowhere, hook: x, optional: true }] }\n  c: { command: "true", depends_on: [{ plugin: checks, hook: d }] }\n  d: { command: "true", depends_on: [{ plugin: checks, hook: c }] }\n`,
      ),
    );
    expect(text(await h.call('checks__a', {}))).toMatch(/depends on nowhere\/x, which is not installed or not enabled/);
    expect(isError(await h.call('checks__b', {}))).toBe(false);
    expect(text(await h.call('checks__c', {}))).toMatch(/Dependency cycle: checks\/c → checks\/d → checks\/c/);
  });
});

describe('discovery at run time', () => {
  it('re-reads a manifest when it changes and updates the catalog', async () => {
    const root = project(`hooks:\n  lint: { command: "true" }\n`);
    const h = await start(root);
    const changes: string[] = [];
    h.services.registry.onChange((kind) => changes.push(kind));
    const events: any[] = [];
    h.services.bus.subscribe((e) => {
      if (e.type === 'plugins.discovered') events.push(e);
    });
    writePlugin(root, 'checks', `hooks:\n  lint: { command: "true" }\n  test: { command: "true" }\n`);
    writePlugin(root, 'late', `hooks:\n  build: { command: "true" }\n`);
    await until(() => h.services.registry.get('checks__test') && h.services.registry.get('late__build'), {
      timeoutMs: 5_000,
      what: 'the new hooks',
    });
    expect(h.services.registry.get('checks__test')).toBeDefined();
    expect(h.services.registry.get('late__build')).toBeDefined();
    expect(changes).toContain('tools');
    writePlugin(root, 'checks', `hooks: 7\n`);
    await until(() => !h.services.registry.get('checks__lint'), { timeoutMs: 5_000, what: 'the broken plugin to go' });
    expect(h.services.registry.get('checks__lint')).toBeUndefined();
    expect(h.services.registry.get('late__build')).toBeDefined();
    const health = await h.services.health.run();
    expect(health.services.plugins).toMatchObject({ status: 'degraded', detail: expect.stringContaining('hooks') });
    expect(events.at(-1)).toMatchObject({
      plugins: [{ name: 'late', hooks: ['late__build'] }],
      problems: [{ file: expect.stringContaining('checks'), issues: [{ field: 'hooks' }] }],
    });
  });

  it('sees the plugins folder when it is created after the hub started', async () => {
    const h = await start(pluginProject());
    const dir = join(h.dir, '.switchboard', 'plugins', 'late');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'switchboard-plugin.yml'), 'hooks:\n  lint:\n    command: "true"\n');
    await until(() => h.services.registry.get('late__lint'), { timeoutMs: 5_000, what: 'the late plugin' });
    expect(h.services.registry.get('late__lint')).toBeDefined();
  });

  it('applies a live [plugins] configuration change at once, and refuses an invalid one naming the key', async () => {
    const root = project(`hooks:\n  lint: { command: "true" }\n`);
    writePlugin(root, 'other', `hooks:\n  build: { command: "true" }\n`);
    const h = await start(root);
    expect(h.services.registry.get('other__build')).toBeDefined();
    await h.value('system.config', { action: 'patch', patch: { plugins: { disabled: ['other'] } } });
    expect(h.services.registry.get('other__build')).toBeUndefined();
    expect(h.services.registry.get('checks__lint')).toBeDefined();
    const bad = await h.call('system.config', { action: 'patch', patch: { plugins: { disabled: 'other' } } });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('plugins.disabled') },
    });
  });

  it('prunes hook run records older than [plugins] retention_days when it starts', async () => {
    const root = project(`hooks:\n  lint: { command: "true" }\n`);
    writeFiles(root, { '.switchboard/config.toml': '[plugins]\nretention_days = 7\n' });
    const first = await start(root);
    const run = (at: string) => ({
      plugin: 'checks',
      hook: 'lint',
      directory: '.',
      ok: true,
      cached: false,
      exitCode: 0,
      durationMs: 1,
      at,
    });
    await first.services.store.hooks.record(run(new Date(Date.now() - 8 * 86_400_000).toISOString()));
    const recent = await first.services.store.hooks.record(run(new Date(Date.now() - 6 * 86_400_000).toISOString()));
    await first.close();
    hub = undefined;
    const second = await start(root);
    expect(await second.services.store.hooks.runs({ since: '2000-01-01T00:00:00.000Z' })).toEqual([recent]);
  });

  it('loads plugins from the user scope of the hub environment', async () => {
    const root = project(`hooks:\n  lint: { command: "true" }\n`);
    writePlugin(join(root, '.home'), 'mine', `hooks:\n  check: { command: "true" }\n`, { folder: 'plugins/mine' });
    const h = await start(root);
    expect(h.services.registry.get('mine__check')?.capability.source).toBe('plugin:mine');
  });
});
