// The plugins Claude Code has enabled: `enabledPlugins` (`name@marketplace`) in its settings files, found where
// Claude Code installed them (`installed_plugins.json` → the plugin cache) or in the marketplace's folder. Han users
// enable its plugins this way, so Switchboard loads them without a `[plugins] paths` entry per folder.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { ManifestIssue } from './manifest.ts';

/** A plugin Claude Code enables, and the folder it was found in. */
export interface ClaudeCodePlugin {
  /** `relay@han`, as the settings file wrote it. */
  id: string;
  name: string;
  marketplace: string;
  dir: string;
  /** The settings file that enabled it last (the one that decides). */
  settingsFile: string;
}

/** A file Switchboard could not (fully) use, with the key at fault and what to do. */
export interface FileIssues {
  file: string;
  issues: ManifestIssue[];
}

export interface ClaudeCodeDiscovery {
  plugins: ClaudeCodePlugin[];
  issues: FileIssues[];
}

/** Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CLAUDE_CONFIG_DIR) return env.CLAUDE_CONFIG_DIR;
  return env.HOME ? join(env.HOME, '.claude') : undefined;
}

/** Claude Code's settings files, lowest precedence first: user, project, local. */
export function claudeSettingsFiles(projectDir: string, env: NodeJS.ProcessEnv): string[] {
  const config = claudeConfigDir(env);
  return [
    ...(config ? [join(config, 'settings.json')] : []),
    join(projectDir, '.claude', 'settings.json'),
    join(projectDir, '.claude', 'settings.local.json'),
  ];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Read a JSON object file; undefined when absent, an issue when unreadable or not an object. */
function readJson(file: string, issues: FileIssues[], what: string): Json | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (isObject(value)) return value;
    issues.push({ file, issues: [{ field: '(root)', message: `expected a JSON object; ${what}` }] });
  } catch (err) {
    issues.push({ file, issues: [{ field: '(root)', message: `${(err as Error).message}; ${what}` }] });
  }
  return undefined;
}

/** The folder `installed_plugins.json` records for a plugin id: this project's install first, then the user's. */
function installedDir(installed: Json | undefined, id: string, projectDir: string): string | undefined {
  const raw = isObject(installed?.plugins) ? installed.plugins[id] : undefined;
  // Version 2 keeps a list of installs per plugin (one per scope); version 1 kept one.
  const entries = (Array.isArray(raw) ? raw : [raw]).filter(isObject);
  const ranked = [
    ...entries.filter((e) => e.projectPath === projectDir),
    ...entries.filter((e) => e.scope === 'user' || e.scope === undefined),
    ...entries,
  ];
  for (const e of ranked) if (typeof e.installPath === 'string' && isDir(e.installPath)) return e.installPath;
  return undefined;
}

/** Where a marketplace's files are: `known_marketplaces.json`, a directory source in settings, or the default. */
function marketplaceRoots(
  config: string,
  marketplace: string,
  known: Json | undefined,
  extra: Json,
  projectDir: string,
) {
  const roots: string[] = [];
  const entry = known?.[marketplace];
  if (isObject(entry) && typeof entry.installLocation === 'string') roots.push(entry.installLocation);
  const declared = extra[marketplace];
  const source = isObject(declared) && isObject(declared.source) ? declared.source : undefined;
  if (source?.source === 'directory' && typeof source.path === 'string') roots.push(resolve(projectDir, source.path));
  roots.push(join(config, 'plugins', 'marketplaces', marketplace));
  return roots.filter(isDir);
}

/** A plugin's folder inside a marketplace: its `marketplace.json` entry, else a folder with its `han-plugin.yml`. */
function findInMarketplace(root: string, name: string): string | undefined {
  const manifest = join(root, '.claude-plugin', 'marketplace.json');
  try {
    const data = JSON.parse(readFileSync(manifest, 'utf8')) as Json;
    const prefix =
      isObject(data.metadata) && typeof data.metadata.pluginRoot === 'string' ? data.metadata.pluginRoot : '';
    for (const entry of Array.isArray(data.plugins) ? data.plugins.filter(isObject) : []) {
      if (typeof entry.name !== 'string' || entry.name.toLowerCase() !== name.toLowerCase()) continue;
      const src = entry.source;
      const rel =
        typeof src === 'string'
          ? prefix && !src.startsWith('.') && !isAbsolute(src)
            ? join(prefix, src)
            : src
          : isObject(src) && src.source === 'directory' && typeof src.path === 'string'
            ? src.path
            : undefined;
      if (!rel) continue;
      const dir = resolve(root, rel);
      // A marketplace is third-party content: a source outside its own folder is not followed.
      if ((dir === root || dir.startsWith(root + sep)) && isDir(dir)) return dir;
    }
  } catch {
    // No or unreadable marketplace.json: the scan below still finds plugins with a han-plugin.yml.
  }
  const scan = (dir: string, depth: number): string | undefined => {
    if (depth > 3) return undefined;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const sub = join(dir, e.name);
      if (existsSync(join(sub, 'han-plugin.yml'))) {
        let declared = e.name;
        try {
          const json = JSON.parse(readFileSync(join(sub, '.claude-plugin', 'plugin.json'), 'utf8')) as Json;
          if (typeof json.name === 'string') declared = json.name;
        } catch {
          // No plugin.json: the folder name is the plugin's name.
        }
        if (declared.toLowerCase() === name.toLowerCase()) return sub;
      }
      const found = scan(sub, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return scan(root, 0);
}

/**
 * The plugins Claude Code enables for this project, merged as Claude Code does (user < project < local; `false`
 * removes), each with its folder. Every entry that cannot be used is an issue naming the file and the key.
 *
 * @example
 * const { plugins, issues } = claudeCodePlugins('/repo', process.env);
 * plugins[0] // { id: 'relay@han', name: 'relay', marketplace: 'han', dir: '~/.claude/plugins/cache/han/relay/1.3.0', … }
 */
export function claudeCodePlugins(projectDir: string, env: NodeJS.ProcessEnv): ClaudeCodeDiscovery {
  const issues: FileIssues[] = [];
  const config = claudeConfigDir(env);
  const enabled = new Map<string, string>();
  const extra: Json = {};
  for (const file of claudeSettingsFiles(projectDir, env)) {
    const settings = readJson(file, issues, 'the plugins it enables are not loaded. Fix the JSON');
    if (!settings) continue;
    if (isObject(settings.extraKnownMarketplaces)) Object.assign(extra, settings.extraKnownMarketplaces);
    if (settings.enabledPlugins === undefined) continue;
    if (!isObject(settings.enabledPlugins)) {
      issues.push({
        file,
        issues: [{ field: 'enabledPlugins', message: 'expected an object of "plugin@marketplace": true|false' }],
      });
      continue;
    }
    const bad: ManifestIssue[] = [];
    for (const [id, on] of Object.entries(settings.enabledPlugins)) {
      if (!/^[^@]+@[^@]+$/.test(id))
        bad.push({
          field: `enabledPlugins.${id}`,
          message: `expected a "plugin@marketplace" key (e.g. "relay@han"); this entry is ignored`,
        });
      else if (typeof on !== 'boolean')
        bad.push({ field: `enabledPlugins.${id}`, message: 'expected true or false; this entry is ignored' });
      else if (on) enabled.set(id, file);
      else enabled.delete(id);
    }
    if (bad.length) issues.push({ file, issues: bad });
  }
  const plugins: ClaudeCodePlugin[] = [];
  if (enabled.size === 0) return { plugins, issues };
  const installed = config
    ? readJson(
        join(config, 'plugins', 'installed_plugins.json'),
        issues,
        'installed plugins are looked up in their marketplace folders instead',
      )
    : undefined;
  const known = config
    ? readJson(
        join(config, 'plugins', 'known_marketplaces.json'),
        issues,
        'marketplaces are looked up in settings and ~/.claude/plugins/marketplaces instead',
      )
    : undefined;
  for (const [id, settingsFile] of enabled) {
    const [name, marketplace] = id.split('@');
    const dir =
      installedDir(installed, id, projectDir) ??
      (config
        ? marketplaceRoots(config, marketplace, known, extra, projectDir)
            .map((root) => findInMarketplace(root, name))
            .find(Boolean)
        : undefined);
    if (dir) plugins.push({ id, name, marketplace, dir, settingsFile });
    else
      issues.push({
        file: settingsFile,
        issues: [
          {
            field: `enabledPlugins.${id}`,
            message: `Claude Code enables ${id}, but its folder was not found (not in ${config ?? '~/.claude'}/plugins/installed_plugins.json, nor in marketplace '${marketplace}'). Run \`claude plugin install ${id}\`, or add the plugin's folder to [plugins] paths`,
          },
        ],
      });
  }
  return { plugins, issues };
}
