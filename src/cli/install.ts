// `switchboard install|uninstall claude-code [--scope project|user]`: the MCP server entry, both script hooks,
// the plugin hooks' `hook dispatch` entries in place of Han's (install-hooks.ts), the `.claude/commands` link to the
// NL scripts and permissions for the script tools — merged into what is there, idempotent, and removed again
// exactly by `uninstall` (files and folders left empty go too; Han's replaced entries come back).
// Codex and Gemini CLI get their one entry from install-clients.ts.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { commandLine, type LaunchForm, runsSwitchboard, serveEntry } from '../config/agent-launch.ts';
import { loadConfig } from '../config/load.ts';
import { toolNameOf } from '../core/names.ts';
import { effectiveProfile, knownProfiles } from '../core/profile.ts';
import { discoverConfigured } from '../sources/plugins/discover.ts';
import { scriptRoots } from '../sources/scripts/resolve.ts';
import { removeEmptyDirs, saveOrDelete, writeText } from './agent-files.ts';
import { FILE_AGENTS, type FileAgent, installFileAgent, uninstallFileAgent } from './install-clients.ts';
import { HAN_OFF, installPluginHooks, recordFile, uninstallPluginHooks, withoutEntries } from './install-hooks.ts';
import { CliError } from './output.ts';

/** The script tools an agent calls during a run, as Claude Code names them. */
export const SCRIPT_PERMISSIONS = [
  'script.start',
  'script.continue_compiled_script',
  'script.finish_nl_script',
  'script.status',
  'script.list',
].map((name) => `mcp__switchboard__${toolNameOf(name)}`);

/** The script hooks install writes: `switchboard hook <words>` on Claude Code's event. */
const HOOKS = [
  { event: 'UserPromptSubmit', matcher: '', words: ['hook', 'user-prompt-submit'] },
  { event: 'PreToolUse', matcher: 'Skill', words: ['hook', 'pre-tool-use'] },
];

/**
 * The hook groups without the commands install wrote for `h` in any form (an absolute launcher, `npx -y
 * switchboard-mcp`, the older `npx switchboard`); groups left empty go.
 */
function withoutHook(groups: Json[], h: (typeof HOOKS)[number]): Json[] {
  return withoutEntries(groups, (command) => runsSwitchboard(command, h.words));
}

type Json = Record<string, any>;

/** Whether a command is one of the script hooks install writes (any form). */
const isScriptHook = (command: unknown) => HOOKS.some((h) => runsSwitchboard(command, h.words));

interface Paths {
  /** Where the MCP server entry goes (`.mcp.json` or `~/.claude.json`). */
  mcpFile: string;
  settingsFile: string;
  commandsLink: string;
  nlDir: string;
  scope: 'project' | 'user';
}

function pathsFor(scope: string, cwd: string): Paths {
  if (scope === 'user') {
    const home = process.env.HOME ?? homedir();
    return {
      scope,
      mcpFile: join(home, '.claude.json'),
      settingsFile: join(home, '.claude', 'settings.json'),
      commandsLink: join(home, '.claude', 'commands'),
      nlDir: join(scriptRoots(cwd).user, 'nl'),
    };
  }
  if (scope !== 'project') throw new CliError(`--scope must be project or user, got '${scope}'.`, 2);
  return {
    scope: 'project',
    mcpFile: join(cwd, '.mcp.json'),
    settingsFile: join(cwd, '.claude', 'settings.json'),
    commandsLink: join(cwd, '.claude', 'commands'),
    nlDir: join(cwd, '.switchboard', 'scripts', 'nl'),
  };
}

function readJson(file: string): Json {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (!text.trim()) return {};
  try {
    const value = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value;
  } catch (err) {
    throw new CliError(
      `${file} is not valid JSON (${(err as Error).message}); fix or move it, then run this again.`,
      1,
    );
  }
}

function writeJson(file: string, value: Json): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export const AGENTS = ['claude-code', ...FILE_AGENTS] as const;

/** True for Codex and Gemini CLI (one entry in their own file); an unknown agent is a usage error. */
function isFileAgent(agent: string): agent is FileAgent {
  if (!(AGENTS as readonly string[]).includes(agent))
    throw new CliError(`Unknown agent '${agent}'; supported: ${AGENTS.join(', ')}.`, 2);
  return agent !== 'claude-code';
}

/**
 * Save what uninstall left of a JSON file: untouched when it removed nothing; deleted (with a folder this empties,
 * up to `stopAt`) when nothing is left — install created it, or it held only what install added.
 */
function saveJsonOrDelete(file: string, value: Json, stopAt: string): void {
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const text = (v: Json) => (Object.keys(v).length ? `${JSON.stringify(v, null, 2)}\n` : '');
  const after = text(value) === text(readJson(file)) ? before : text(value);
  saveOrDelete(file, before, after, (t) => t === '', stopAt);
}

/** Whether the link points at our NL folder (relative or absolute). */
function linksTo(link: string, target: string): boolean {
  try {
    return lstatSync(link).isSymbolicLink() && resolve(dirname(link), readlinkSync(link)) === resolve(target);
  } catch {
    return false;
  }
}

/**
 * Options of `switchboard install`: `profile` makes the agent start `serve --profile NAME`; `npx` writes the
 * package-name form (`npx -y switchboard-mcp`) instead of this install's absolute path.
 */
export interface InstallOptions {
  cwd: string;
  scope: string;
  profile?: string;
  npx?: boolean;
}

const formOf = (opts: { npx?: boolean }): LaunchForm => (opts.npx ? 'npx' : 'installed');

/**
 * An install names only a profile the configuration defines: a typo would start a server that refuses to serve.
 * The configuration is the project's merged with the user's, the one `serve` reads.
 */
function checkProfile(cwd: string, profile: string | undefined): void {
  if (profile === undefined) return;
  const { config } = loadConfig(resolve(cwd));
  if (!effectiveProfile(config, profile))
    throw new CliError(
      `--profile '${profile}': the configuration defines no [profiles.${profile}]. ${knownProfiles(config)}`,
      2,
    );
}

export async function install(agent: string, opts: InstallOptions): Promise<void> {
  checkProfile(opts.cwd, opts.profile);
  if (isFileAgent(agent)) return installFileAgent(agent, opts);
  const p = pathsFor(opts.scope, opts.cwd);
  // Read everything first: a malformed file stops the install before anything is written.
  const mcp = readJson(p.mcpFile);
  const settings = readJson(p.settingsFile);
  const notes: string[] = [];

  const entry = serveEntry(opts.profile, formOf(opts));
  mcp.mcpServers = { ...(mcp.mcpServers ?? {}), switchboard: { type: 'stdio', ...entry } };

  if (p.scope === 'project') {
    const enabled: string[] = Array.isArray(settings.enabledMcpjsonServers) ? settings.enabledMcpjsonServers : [];
    if (!enabled.includes('switchboard')) settings.enabledMcpjsonServers = [...enabled, 'switchboard'];
  }
  settings.hooks = settings.hooks ?? {};
  // Plugin hooks first: Han's entries are taken out before anything of ours is added to their events.
  const { config } = loadConfig(resolve(opts.cwd));
  const discovery = discoverConfigured(resolve(opts.cwd), process.env, config.plugins);
  const plugin = installPluginHooks({
    settings,
    settingsFile: p.settingsFile,
    discovery,
    form: formOf(opts),
    ours: isScriptHook,
    recordPath: recordFile(p.scope, opts.cwd, process.env),
    env: process.env,
    cwd: opts.cwd,
  });
  notes.push(...plugin.notes);
  for (const problem of discovery.problems)
    notes.push(
      `${problem.file} cannot be used (${problem.issues.map((i) => `${i.field}: ${i.message}`).join('; ')}): its hooks do not run.`,
    );
  for (const h of HOOKS) {
    const groups: Json[] = Array.isArray(settings.hooks[h.event]) ? settings.hooks[h.event] : [];
    const command = commandLine(h.words, formOf(opts));
    const present = groups.some((g) => Array.isArray(g.hooks) && g.hooks.some((x: Json) => x?.command === command));
    settings.hooks[h.event] = present
      ? groups
      : [...withoutHook(groups, h), { matcher: h.matcher, hooks: [{ type: 'command', command }] }];
  }
  settings.permissions = settings.permissions ?? {};
  const allow: string[] = Array.isArray(settings.permissions.allow) ? settings.permissions.allow : [];
  settings.permissions.allow = [...allow, ...SCRIPT_PERMISSIONS.filter((t) => !allow.includes(t))];

  mkdirSync(p.nlDir, { recursive: true });
  if (!linksTo(p.commandsLink, p.nlDir)) {
    let exists = false;
    try {
      lstatSync(p.commandsLink);
      exists = true;
    } catch {
      // free
    }
    if (exists)
      notes.push(
        `${p.commandsLink} already exists and is not a link to ${p.nlDir}; left as it is (the NL scripts are still served as MCP prompts).`,
      );
    else {
      mkdirSync(dirname(p.commandsLink), { recursive: true });
      symlinkSync(relative(dirname(p.commandsLink), p.nlDir) || '.', p.commandsLink);
    }
  }
  writeJson(p.mcpFile, mcp);
  writeJson(p.settingsFile, settings);
  const record = recordFile(p.scope, opts.cwd, process.env);
  if (plugin.record) writeText(record, '', plugin.record);
  process.stdout.write(
    `Installed Switchboard for Claude Code (${p.scope} scope):\n` +
      `  MCP server 'switchboard'   ${p.mcpFile}${opts.profile ? ` (profile ${opts.profile})` : ''}\n` +
      `  it runs                    ${[entry.command, ...entry.args].join(' ')}\n` +
      `  hooks and permissions      ${p.settingsFile}\n` +
      `  plugin hooks               ${plugin.events.length ? `hook dispatch on ${plugin.events.join(', ')}` : 'none found in this project: no hook dispatch entry (install again after adding a plugin)'}\n` +
      (plugin.replaced.length
        ? `  Han's entries replaced     ${plugin.replaced.join(', ')} (recorded in ${record}; uninstall claude-code puts them back)\n`
        : plugin.replacedBefore
          ? `  Han's entries replaced     by an earlier install (recorded in ${record}; uninstall claude-code puts them back)\n`
          : '') +
      (plugin.hanOff
        ? `  Han's own hook runs off    env.${HAN_OFF}=1: the \`han hook run …\` of Han's plugins' hooks.json exit at once; Switchboard runs those checks\n`
        : '') +
      plugin.kept.map((k) => `  note: left in place: ${k}\n`).join('') +
      notes.map((n) => `  note: ${n}\n`).join(''),
  );
}

export async function uninstall(agent: string, opts: { cwd: string; scope: string }): Promise<void> {
  if (isFileAgent(agent)) return uninstallFileAgent(agent, opts);
  const p = pathsFor(opts.scope, opts.cwd);
  const mcp = readJson(p.mcpFile);
  const settings = readJson(p.settingsFile);
  if (mcp.mcpServers?.switchboard) {
    delete mcp.mcpServers.switchboard;
    if (Object.keys(mcp.mcpServers).length === 0) delete mcp.mcpServers;
  }
  if (Array.isArray(settings.enabledMcpjsonServers)) {
    settings.enabledMcpjsonServers = settings.enabledMcpjsonServers.filter((s: string) => s !== 'switchboard');
    if (settings.enabledMcpjsonServers.length === 0) delete settings.enabledMcpjsonServers;
  }
  for (const h of HOOKS) {
    const groups = settings.hooks?.[h.event];
    if (!Array.isArray(groups)) continue;
    const kept = withoutHook(groups, h);
    if (kept.length) settings.hooks[h.event] = kept;
    else delete settings.hooks[h.event];
  }
  const restored = uninstallPluginHooks(
    settings,
    p.settingsFile,
    recordFile(p.scope, opts.cwd, process.env),
    isScriptHook,
  );
  if (settings.hooks && Object.keys(settings.hooks).length === 0) delete settings.hooks;
  if (Array.isArray(settings.permissions?.allow)) {
    settings.permissions.allow = settings.permissions.allow.filter((t: string) => !SCRIPT_PERMISSIONS.includes(t));
    if (settings.permissions.allow.length === 0) delete settings.permissions.allow;
    if (Object.keys(settings.permissions).length === 0) delete settings.permissions;
  }
  if (linksTo(p.commandsLink, p.nlDir)) {
    unlinkSync(p.commandsLink);
    removeEmptyDirs(dirname(p.commandsLink), dirname(dirname(p.commandsLink)));
  }
  saveJsonOrDelete(p.mcpFile, mcp, dirname(p.mcpFile));
  saveJsonOrDelete(p.settingsFile, settings, dirname(dirname(p.settingsFile)));
  // The scripts folder install made for the link goes when nothing was put in it.
  removeEmptyDirs(p.nlDir, dirname(dirname(dirname(p.nlDir))));
  process.stdout.write(
    `Removed Switchboard from Claude Code (${p.scope} scope).\n${restored.map((n) => `  note: ${n}\n`).join('')}`,
  );
}
