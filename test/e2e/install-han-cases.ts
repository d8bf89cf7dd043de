// `switchboard install claude-code` in a project Han set up, written once and run on two marketplaces: ours
// (test/fixtures/han-format, install-han.test.ts beside this file) and Han's own (test/originals/han.test.ts). The
// project's `.claude/settings.json` is ours, in the shape Han's `han plugin install` writes (its ensureDispatchHooks:
// `han hook dispatch UserPromptSubmit|SessionStart` with a timeout, `JSON.stringify(…, null, 2)` and a newline), with
// the plugins enabled from a `directory` marketplace as Han's own repository enables them.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.ts';
import { pluginProject } from '../helpers/plugins.ts';

export interface HanProject {
  /** The marketplace folder the settings name (made when the test runs). */
  marketplace: () => string;
  /** Its name in marketplace.json. */
  name: string;
  /** Plugins of it the settings enable. */
  plugins: string[];
}

const SCRIPT_PERMISSIONS = [
  'mcp__switchboard__script__start',
  'mcp__switchboard__script__continue_compiled_script',
  'mcp__switchboard__script__finish_nl_script',
  'mcp__switchboard__script__status',
  'mcp__switchboard__script__list',
];

/** Han's entry, as its ensureDispatchHooks writes it. */
export const hanDispatch = (event: string) => ({
  hooks: [{ type: 'command', command: `han hook dispatch ${event}`, timeout: 30000 }],
});

/** The entry install writes for an event the plugin hooks run on. */
export const dispatchGroup = (matcher?: string) => ({
  ...(matcher === undefined ? {} : { matcher }),
  hooks: [{ type: 'command', command: `${BIN} hook dispatch`, timeout: 600 }],
});

/** Settings as Han writes them (two-space JSON and a newline), with the user's own Stop hook and env beside Han's. */
export function hanSettings(m: HanProject, hooks: Record<string, unknown> = {}) {
  return {
    env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' },
    hooks: {
      UserPromptSubmit: [hanDispatch('UserPromptSubmit')],
      SessionStart: [hanDispatch('SessionStart')],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send "agent stopped"' }] }],
      ...hooks,
    },
    enabledPlugins: Object.fromEntries(m.plugins.map((p) => [`${p}@${m.name}`, true])),
    extraKnownMarketplaces: { [m.name]: { source: { source: 'directory', path: m.marketplace() } } },
  };
}

export const jsonText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** A project whose `.claude/settings.json` is `settings` as Han writes it; HOME is a folder of its own. */
export function hanProject(settings: unknown): { root: string; file: string; env: Record<string, string> } {
  const root = pluginProject();
  const home = join(root, '.home');
  mkdirSync(join(root, '.claude'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const file = join(root, '.claude/settings.json');
  writeFileSync(file, jsonText(settings));
  return { root, file, env: { HOME: home } };
}

/** The text a top-level member has in a two-space JSON file. */
export const memberText = (key: string, value: unknown) =>
  `  ${JSON.stringify(key)}: ${JSON.stringify(value, null, 2).replaceAll('\n', '\n  ')}`;

export function installOverHanCases(m: HanProject): void {
  it("replaces Han's dispatch entries with hook dispatch on the plugins' events, and uninstall puts Han's back byte for byte", async () => {
    const before = hanSettings(m);
    const { root, file, env } = hanProject(before);
    const original = readFileSync(file, 'utf8');
    const run = (args: string[]) => runCli(root, args, { env, timeoutMs: 20_000 });

    const first = await run(['install', 'claude-code']);
    expect(first.code).toBe(0);
    const installed = readFileSync(file, 'utf8');
    expect(JSON.parse(installed)).toEqual({
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', HAN_DISABLE_HOOKS: '1' },
      hooks: {
        Stop: [before.hooks.Stop[0], dispatchGroup()],
        SubagentStop: [dispatchGroup()],
        UserPromptSubmit: [{ matcher: '', hooks: [{ type: 'command', command: `${BIN} hook user-prompt-submit` }] }],
        PreToolUse: [{ matcher: 'Skill', hooks: [{ type: 'command', command: `${BIN} hook pre-tool-use` }] }],
      },
      enabledPlugins: before.enabledPlugins,
      extraKnownMarketplaces: before.extraKnownMarketplaces,
      enabledMcpjsonServers: ['switchboard'],
      permissions: { allow: SCRIPT_PERMISSIONS },
    });
    // The members install does not touch keep their text.
    expect(installed).toContain(memberText('enabledPlugins', before.enabledPlugins));
    expect(installed).toContain(memberText('extraKnownMarketplaces', before.extraKnownMarketplaces));
    expect(first.stdout).toContain('  plugin hooks               hook dispatch on Stop, SubagentStop\n');
    expect(first.stdout).toContain(
      "  Han's entries replaced     han hook dispatch UserPromptSubmit, han hook dispatch SessionStart (recorded in ",
    );
    expect(first.stdout).toContain("Han's own hook runs off    env.HAN_DISABLE_HOOKS=1");

    // Twice: nothing changes, and it says Han's entries were replaced before.
    const second = await run(['install', 'claude-code']);
    expect(second.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(installed);
    expect(second.stdout).toContain("  Han's entries replaced     by an earlier install");

    const removed = await run(['uninstall', 'claude-code']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(
      `Han's entries put back in ${file}: han hook dispatch UserPromptSubmit, han hook dispatch SessionStart.`,
    );
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(existsSync(join(root, '.switchboard'))).toBe(false);
    expect(existsSync(join(root, '.mcp.json'))).toBe(false);
  });
}
