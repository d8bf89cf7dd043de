// Plugin discovery: project `.switchboard/plugins/*/`, the folders in `[plugins] paths`, the plugins Claude Code
// enables (`[plugins] claude_code`), then the user scope `~/.switchboard/plugins/*/`; `enabled` / `disabled` filter;
// names that collide are renamed and reported.
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { toSegment } from '../../core/names.ts';
import { claudeCodePlugins, type FileIssues } from './claude-code.ts';
import {
  formatOf,
  type HookSpec,
  type ManifestFormat,
  type ManifestIssue,
  type McpServerSpec,
  manifestFileIn,
  readManifest,
} from './manifest.ts';
import {
  BUILTIN_DOMAINS,
  hanPluginAliases,
  hanToolName,
  hookCapabilityName,
  hookToolName,
  rewriteHanToolNames,
} from './naming.ts';

export type PluginScope = 'project' | 'config' | 'claude-code' | 'user';

export interface PluginHook {
  /** The hook's name in its manifest (`lint`). */
  name: string;
  spec: HookSpec;
  /** Capability name (`jutsu_typescript.lint`) and tool name (`jutsu_typescript__lint`). */
  capability: string;
  tool: string;
}

/** An upstream MCP server a plugin brings, with `${SWITCHBOARD_PLUGIN_ROOT}` already expanded. */
export interface PluginMcpServer {
  /** `<plugin segment>_<server segment>`: unique across plugins, a valid upstream server name. */
  name: string;
  /** The name as the manifest wrote it. */
  declaredName: string;
  plugin: string;
  spec: McpServerSpec;
}

export interface Plugin {
  /** The plugin's name: the manifest's `name`, else its folder name. */
  name: string;
  /** The capability domain its hooks live under: the name as a segment, renamed when it collided. */
  domain: string;
  dir: string;
  manifestFile: string;
  /** `han` for `han-plugin.yml`: its `dirs_with` markers are alternatives (any one), not all required. */
  format: ManifestFormat;
  scope: PluginScope;
  version?: string;
  description?: string;
  keywords: string[];
  hooks: PluginHook[];
  mcpServers: PluginMcpServer[];
  warnings: ManifestIssue[];
}

export interface Rename {
  plugin: string;
  /** What was renamed: the plugin's domain, or one hook's capability. */
  from: string;
  to: string;
  reason: string;
}

export interface Discovery {
  plugins: Plugin[];
  /** Manifests that could not be used, with the field at fault. */
  /** Manifests that cannot be used; `domain`: the one the plugin's folder name would give its tools. */
  problems: { file: string; issues: ManifestIssue[]; domain?: string }[];
  renames: Rename[];
  /** Plugins found but not loaded (disabled, not enabled, shadowed duplicates of one folder). */
  skipped: { plugin: string; dir: string; reason: string }[];
  /** Files read beside the manifests (Claude Code settings) with keys that could not be used, and why. */
  notices: FileIssues[];
}

export interface DiscoverOptions {
  projectDir: string;
  /** The hub's environment: `SWITCHBOARD_HOME` (else `HOME/.switchboard`) locates the user scope. */
  env: NodeJS.ProcessEnv;
  /** `[plugins] paths`: plugin folders or folders of plugins, relative to the project. */
  paths: string[];
  enabled: string[];
  disabled: string[];
  /** Domains already taken by other sources (handler modules, upstream servers), besides the built-in ones. */
  taken?: Iterable<string>;
  /** `[plugins] claude_code`: also load the plugins Claude Code enables (default false here, true in config). */
  claudeCode?: boolean;
}

/**
 * Discovery as the project's `[plugins]` section sets it: what `hook dispatch` runs and what `install` writes hook
 * entries for.
 */
export function discoverConfigured(
  projectDir: string,
  env: NodeJS.ProcessEnv,
  cfg: Pick<Config['plugins'], 'paths' | 'enabled' | 'disabled' | 'claude_code'>,
): Discovery {
  const { paths, enabled, disabled, claude_code: claudeCode } = cfg;
  return discoverPlugins({ projectDir, env, paths, enabled, disabled, claudeCode });
}

/** A folder discovery reads: a folder of plugins, or (`single`) one plugin folder with the name it goes by. */
export interface PluginRoot {
  dir: string;
  scope: PluginScope;
  single?: { name: string; aliases: string[] };
}

/** The user-scope plugin folder for an environment. */
export function userPluginDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.SWITCHBOARD_HOME) return join(env.SWITCHBOARD_HOME, 'plugins');
  return env.HOME ? join(env.HOME, '.switchboard', 'plugins') : undefined;
}

/**
 * A Han plugin's name from its folder, as Han derives it (`getPluginNameFromRoot`): the folder's name, or its
 * parent's when the folder is a version (`~/.claude/plugins/cache/han/jutsu-relay/1.3.0` → `jutsu-relay`).
 */
export function pluginNameFromDir(dir: string): string {
  const last = basename(dir);
  return /^\d+\.\d+\.\d+/.test(last) && basename(dirname(dir)) ? basename(dirname(dir)) : last;
}

/** The folders discovery reads, in precedence order (also what the watcher watches), and what reading them said. */
export function pluginRoots(opts: DiscoverOptions): PluginRoot[] {
  return rootsAndNotices(opts).roots;
}

function rootsAndNotices(opts: DiscoverOptions): { roots: PluginRoot[]; notices: FileIssues[] } {
  const roots: PluginRoot[] = [{ dir: join(opts.projectDir, '.switchboard', 'plugins'), scope: 'project' }];
  for (const p of opts.paths) roots.push({ dir: isAbsolute(p) ? p : resolve(opts.projectDir, p), scope: 'config' });
  const notices: FileIssues[] = [];
  if (opts.claudeCode) {
    const cc = claudeCodePlugins(opts.projectDir, opts.env);
    notices.push(...cc.issues);
    for (const p of cc.plugins)
      roots.push({ dir: p.dir, scope: 'claude-code', single: { name: p.name, aliases: [p.name, p.id] } });
  }
  const user = userPluginDir(opts.env);
  if (user) roots.push({ dir: user, scope: 'user' });
  return { roots, notices };
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Plugin folders of one root: the root itself when it holds a manifest, else its sub-folders by name. */
function pluginDirsOf(root: string): string[] {
  if (!isDir(root)) return [];
  if (manifestFileIn(root, existsSync)) return [root];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((d) => d.isDirectory() || (d.isSymbolicLink() && isDir(join(root, d.name))))
    .map((d) => join(root, d.name))
    .sort();
}

/** Replace the plugin-root variables; everything else (`${HOME}`…) is left for whoever runs it. */
export function expandPluginRoot(text: string, root: string): string {
  return text.replace(/\$\{(SWITCHBOARD_PLUGIN_ROOT|CLAUDE_PLUGIN_ROOT)\}/g, root);
}

function expandServer(spec: McpServerSpec, root: string): McpServerSpec {
  const x = (s: string) => expandPluginRoot(s, root);
  const map = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, x(v)]));
  if ('command' in spec)
    return {
      ...spec,
      command: x(spec.command),
      args: spec.args.map(x),
      env: map(spec.env),
      ...(spec.cwd ? { cwd: x(spec.cwd) } : {}),
    };
  return { ...spec, url: x(spec.url), headers: map(spec.headers) };
}

/** The first of `base`, `base_2`, `base_3`… that is not taken. */
function freeName(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
}

/**
 * Find every plugin, in precedence order (project, config paths, user). Broken manifests become `problems`;
 * a plugin whose domain is a built-in one (`task`) becomes `task_plugin`; a later plugin whose domain an earlier
 * one already has becomes `name_2`. Every rename is listed.
 *
 * @example
 * const d = discoverPlugins({ projectDir, env: process.env, paths: [], enabled: [], disabled: [] });
 * d.plugins[0].hooks[0].tool // 'jutsu_typescript__lint'
 */
export function discoverPlugins(opts: DiscoverOptions): Discovery {
  const { roots, notices } = rootsAndNotices(opts);
  const out: Discovery = { plugins: [], problems: [], renames: [], skipped: [], notices };
  /** Han tool names (`jutsu_relay_compile`) → Switchboard's, for the tips. */
  const hanNames = new Map<string, string>();
  const seen = new Set<string>();
  const reserved = new Set<string>([...BUILTIN_DOMAINS, ...(opts.taken ?? [])]);
  const domains = new Set<string>();
  const enabled = new Set(opts.enabled);
  const disabled = new Set(opts.disabled);
  for (const root of roots) {
    for (const dir of root.single ? [root.dir] : pluginDirsOf(root.dir)) {
      const file = manifestFileIn(dir, existsSync);
      if (!file) {
        // A Claude Code plugin of skills or agents only: nothing for Switchboard, and said so.
        if (root.single)
          out.skipped.push({
            plugin: root.single.name,
            dir,
            reason: 'enabled in Claude Code, but it has no han-plugin.yml: no hooks to serve',
          });
        continue;
      }
      let real: string;
      try {
        real = realpathSync(dir);
      } catch (err) {
        // Removed or made unreadable while we looked (a checkout in progress): report it, keep the rest.
        out.problems.push({ file, issues: [{ field: '(root)', message: `cannot read: ${(err as Error).message}` }] });
        continue;
      }
      const result = readManifest(file);
      const name = result.ok && result.manifest.name ? result.manifest.name : pluginNameFromDir(dir);
      if (seen.has(real)) {
        out.skipped.push({ plugin: name, dir, reason: 'the same folder was already loaded from an earlier root' });
        continue;
      }
      seen.add(real);
      if (disabled.has(name)) {
        out.skipped.push({ plugin: name, dir, reason: 'listed in [plugins] disabled' });
        continue;
      }
      if (enabled.size && !enabled.has(name)) {
        out.skipped.push({ plugin: name, dir, reason: 'not listed in [plugins] enabled' });
        continue;
      }
      if (!result.ok) {
        out.problems.push({ file: result.file, issues: result.issues, domain: toSegment(name) });
        continue;
      }
      const segment = toSegment(name);
      let domain = segment;
      if (reserved.has(domain)) {
        domain = freeName(`${segment}_plugin`, new Set([...reserved, ...domains]));
        out.renames.push({
          plugin: name,
          from: segment,
          to: domain,
          reason: `'${segment}' is a built-in or already-used domain`,
        });
      } else if (domains.has(domain)) {
        domain = freeName(segment, new Set([...reserved, ...domains]));
        out.renames.push({
          plugin: name,
          from: segment,
          to: domain,
          reason: `another plugin already uses '${segment}'`,
        });
      }
      domains.add(domain);
      const hooks: PluginHook[] = [];
      const hookSegments = new Set<string>();
      for (const hookName of Object.keys(result.manifest.hooks).sort()) {
        let segmentOfHook = toSegment(hookName);
        if (hookSegments.has(segmentOfHook)) {
          const to = freeName(segmentOfHook, hookSegments);
          out.renames.push({
            plugin: name,
            from: `${domain}.${segmentOfHook}`,
            to: `${domain}.${to}`,
            reason: `hook '${hookName}' has the same tool name as another hook of this plugin`,
          });
          segmentOfHook = to;
        }
        hookSegments.add(segmentOfHook);
        const tool = hookToolName(domain, segmentOfHook);
        for (const alias of hanPluginAliases([name, ...(root.single?.aliases.map((a) => a.split('@')[0]) ?? [])]))
          hanNames.set(hanToolName(alias, hookName), tool);
        hooks.push({
          name: hookName,
          spec: result.manifest.hooks[hookName],
          capability: hookCapabilityName(domain, segmentOfHook),
          tool,
        });
      }
      out.plugins.push({
        name,
        domain,
        dir: real,
        manifestFile: file,
        format: formatOf(file),
        scope: root.scope,
        version: result.manifest.version,
        description: result.manifest.description,
        keywords: result.manifest.keywords,
        hooks,
        mcpServers: Object.entries(result.manifest.mcp_servers).map(([server, spec]) => ({
          name: `${domain}_${toSegment(server)}`,
          declaredName: server,
          plugin: name,
          spec: expandServer(spec, real),
        })),
        warnings: result.warnings,
      });
    }
  }
  // Han's tips name Han's tools; shown as they are, they would send a model to tools that do not exist here.
  for (const plugin of out.plugins)
    for (const hook of plugin.hooks)
      if (hook.spec.tip) hook.spec = { ...hook.spec, tip: rewriteHanToolNames(hook.spec.tip, hanNames) };
  return out;
}
