// Han's own files (../shared/originals/han, see its NOTICE): the han.yml / han-config.yml overrides Han's monorepo
// uses for its bun plugin, applied by the hub as Han applies them and read as they are; its git-storytelling
// `event: Stop` hook matched on SubagentStop too; its marketplace.json and plugins installed by the real `claude`
// binary and served without a [plugins] paths entry; and git-storytelling's Stop check under Claude Code getting only
// the files the session edited. The same behaviours on our own files in Han's format:
// test/sources/plugins/han-settings.test.ts, test/sources/plugins/dispatch-events.test.ts, test/e2e/han-files.test.ts
// and test/e2e/claude-code-hooks.test.ts.
//
// Han's hook scripts are its code and are not in ../shared: a test that runs a Han plugin copies the plugin into a
// temporary folder and writes a script of our own at the path its manifest names (hanMarketplace).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/core/pipeline.ts';
import { discoverPlugins } from '../../src/sources/plugins/discover.ts';
import { matchingHooks } from '../../src/sources/plugins/dispatch.ts';
import { parseHanYml, parseLegacyHanConfig } from '../../src/sources/plugins/han-settings.ts';
import { BIN, childEnv, ROOT } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { pluginProject, writeFiles } from '../helpers/plugins.ts';

const HAN = original('han');
const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe');

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
let api: FakeAnthropic | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await api?.close();
  api = undefined;
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

  const text = (out: Outcome) => (out.ok && out.raw ? String(out.raw.content[0].text) : JSON.stringify(out));
  const dirs = (out: Outcome) => (out.ok ? (out.value as any).directories : undefined);

  async function start(root: string): Promise<TestHub> {
    // A HOME without a ~/.claude, and a PATH without bun: the scripts then take their "not installed" branches.
    hub = await testHub({ cwd: root, env: { HOME: join(root, '.home'), PATH: '/usr/bin:/bin' } });
    await hub.ready();
    return hub;
  }

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

    // bun test has no override in packages/han: the manifest's command (our test.sh) runs there, and passes: no bun.
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
    // packages/han/han.yml now exists, so (as in Han) its han-config.yml is no longer read: the manifest's command
    // runs (and passes without bun, where the replaced one fails).
    expect(text(out)).not.toContain('build-bundle.js');
    expect(dirs(out)).toContainEqual(expect.objectContaining({ directory: 'packages/han', ok: true, exitCode: 0 }));
  });

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

/** Claude Code's environment for a throwaway HOME: no network beyond what a local marketplace needs. */
const claudeEnv = (home: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: home,
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
});

describe("Han's marketplace installed by Claude Code", () => {
  let home: string;
  let root: string;

  beforeAll(() => {
    root = pluginProject();
    home = join(root, '.home');
    mkdirSync(home, { recursive: true });
    const claude = (...args: string[]) =>
      execFileSync(CLAUDE, args, { cwd: root, env: claudeEnv(home), encoding: 'utf8', timeout: 60_000 });
    claude('plugin', 'marketplace', 'add', hanMarketplace());
    // Han's relay plugin under its old name, as Han's own installer used to enable it; bun for this project only.
    claude('plugin', 'install', 'jutsu-relay@han');
    claude('plugin', 'install', 'git-storytelling@han');
    claude('plugin', 'install', 'bun@han', '--scope', 'project');
  }, 120_000);

  const discover = (claudeCode: boolean) =>
    discoverPlugins({ projectDir: root, env: { HOME: home }, paths: [], enabled: [], disabled: [], claudeCode });

  it("are found through Claude Code's own files, named as Han names them", () => {
    const d = discover(true);
    expect(d.notices).toEqual([]);
    expect(d.plugins.map((p) => [p.name, p.scope, p.format])).toEqual([
      ['jutsu-relay', 'claude-code', 'han'],
      ['git-storytelling', 'claude-code', 'han'],
      ['bun', 'claude-code', 'han'],
    ]);
    // Installed copies in Claude Code's cache (…/cache/han/jutsu-relay/1.3.0), not the marketplace's folder.
    expect(d.plugins[0].dir).toBe(join(home, '.claude/plugins/cache/han/jutsu-relay/1.3.0'));
    // Han's tip names Han's tool (`jutsu_relay_compile`); shown here it names Switchboard's.
    const compile = d.plugins[0].hooks[0];
    expect(compile.tool).toBe('jutsu_relay__compile');
    expect(compile.spec.tip).toBe('Use the `jutsu_relay__compile` MCP tool before marking complete.');
  });

  it('follow a local false, and name every entry it cannot use with the file and the key', () => {
    writeFiles(root, {
      '.claude/settings.local.json': JSON.stringify({
        enabledPlugins: { 'git-storytelling@han': false, 'typescript@han': true, relay: true },
      }),
    });
    try {
      const d = discover(true);
      expect(d.plugins.map((p) => p.name)).toEqual(['jutsu-relay', 'bun']);
      const local = join(root, '.claude/settings.local.json');
      expect(d.notices).toEqual([
        {
          file: local,
          issues: [
            {
              field: 'enabledPlugins.relay',
              message: 'expected a "plugin@marketplace" key (e.g. "relay@han"); this entry is ignored',
            },
          ],
        },
        {
          file: local,
          issues: [
            {
              field: 'enabledPlugins.typescript@han',
              message: expect.stringContaining('Claude Code enables typescript@han, but its folder was not found'),
            },
          ],
        },
      ]);
      expect(d.notices[1].issues[0].message).toContain('Run `claude plugin install typescript@han`');
      // `[plugins] claude_code = false` (here: the option off) loads none of them.
      expect(discover(false).plugins).toEqual([]);
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
    const tools = JSON.parse(r.stdout) as { name: string; description: string }[];
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['jutsu_relay__compile', 'git_storytelling__check_commits', 'bun__build', 'bun__test']),
    );
    const compile = tools.find((t) => t.name === 'jutsu_relay__compile');
    expect(compile?.description).toContain('Tip: Use the `jutsu_relay__compile` MCP tool before marking complete.');
  });
});

/** Every message text of a request, joined: what the model was shown. */
function promptText(body: any): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(body?.messages);
  return parts.join('\n');
}

/** `claude -p` in the project against the fake API (acceptEdits); resolves with its exit code. */
function runClaude(root: string, home: string, url: string): Promise<number | null> {
  const child = spawn(
    CLAUDE,
    ['-p', 'finish the work', '--output-format', 'json', '--permission-mode', 'acceptEdits'],
    {
      cwd: root,
      env: {
        ...claudeEnv(home),
        ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
        ANTHROPIC_BASE_URL: url,
        SWITCHBOARD_HOME: join(home, '.switchboard'),
        SWITCHBOARD_LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    },
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((ok) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      ok(code);
    }),
  );
}

describe("Han's git-storytelling under Claude Code, through switchboard hook dispatch", () => {
  it('gets only the files the session edited as ${HAN_FILES}', async () => {
    const root = pluginProject();
    const home = join(root, '.home');
    mkdirSync(home, { recursive: true });
    // Han's manifest runs `bash "${CLAUDE_PLUGIN_ROOT}/scripts/check-commits.sh" ${HAN_FILES}`: our script there.
    const plugin = join(hanMarketplace(), 'plugins/patterns/git-storytelling');
    const dispatch = `"${process.execPath}" "${BIN}" hook dispatch`;
    writeFiles(root, {
      'story.txt': 'once upon a time\n',
      'other.txt': 'left alone\n',
      '.gitignore': '.home/\n.switchboard/\n.claude/\n',
      '.switchboard/config.toml': `[plugins]\npaths = ["${plugin}"]\n`,
      '.claude/settings.json': JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: dispatch }] }] },
      }),
    });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
    // Uncommitted before the session began: not the session's business, and Han would not name it.
    writeFileSync(join(root, 'other.txt'), 'changed by someone else\n');
    api = await startFakeAnthropic({
      replies: [
        { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(root, 'story.txt') } }] },
        {
          content: [
            {
              type: 'tool_use',
              name: 'Edit',
              input: { file_path: join(root, 'story.txt'), old_string: 'once', new_string: 'twice' },
            },
          ],
        },
        'Done.',
      ],
      fallback: 'Done.',
    });
    expect(await runClaude(root, home, api.url)).toBe(0);
    expect(readFileSync(join(root, 'story.txt'), 'utf8')).toBe('twice upon a time\n');
    const feedback = api
      .messages()
      .map((m) => promptText(m.body))
      .find((t) => t.includes('Stop hook feedback'));
    expect(feedback).toContain('git_storytelling__check_commits');
    expect(feedback).toContain('Edited in this session and not committed yet:');
    expect(feedback).toContain('  * story.txt');
    expect(feedback).not.toContain('other.txt');
  });
});
