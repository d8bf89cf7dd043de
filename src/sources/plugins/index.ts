import type { Services } from '../../core/context.ts';
import type { LoadProblem } from '../../core/load-problems.ts';
import type { ServerEntry } from '../../core/server-contributions.ts';
import { watchTargets } from '../../core/watch.ts';
import type { RunningSource, Source, SourceContext } from '../index.ts';
import { hookCapability } from './capability.ts';
import { type Discovery, discoverPlugins, type Plugin, type PluginHook, pluginRoots } from './discover.ts';
import { type DispatchResult, dispatchEvent, type HookEvent } from './dispatch.ts';
import { HanSettings, logFileIssues } from './han-settings.ts';
import type { HookHost } from './run.ts';

/** The running plugin source, as `hub.sources.get('plugins')` returns it. */
export interface PluginsSource extends RunningSource {
  /** The latest discovery: plugins (with `mcpServers`), renames, problems, skipped plugins. */
  discovery(): Discovery;
  /** Discover again now (the watcher does this by itself when a manifest changes). */
  refresh(): Promise<Discovery>;
  /** Run the plugin hooks an agent hook event matches and answer as `switchboard hook dispatch` does. */
  dispatch(event: HookEvent, signal: AbortSignal, mayRun?: (capability: string) => boolean): Promise<DispatchResult>;
}

const WATCH_DEBOUNCE_MS = 100;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** A plugin's server in the `[[servers]]` shape. */
function serverEntry(name: string, spec: Plugin['mcpServers'][number]['spec']): ServerEntry {
  if ('command' in spec)
    return { name, command: spec.command, args: spec.args, env: spec.env, ...(spec.cwd ? { cwd: spec.cwd } : {}) };
  return { name, url: spec.url, headers: spec.headers, ...(spec.type === 'sse' ? { transport: 'sse' } : {}) };
}

/** A manifest that cannot be used, as a problem at its first issue's place, naming the tools of its domain. */
function manifestProblem(p: Discovery['problems'][number]): LoadProblem {
  const first = p.issues.find((i) => i.line !== undefined);
  return {
    source: 'plugins',
    file: p.file,
    ...(first ? { line: first.line, column: first.column } : {}),
    message: p.issues.map((i) => (i.field === '(root)' ? i.message : `${i.field}: ${i.message}`)).join('; '),
    ...(p.domain ? { names: [`${p.domain}.*`] } : {}),
  };
}

/** Find a hook by the plugin's declared name or its domain, for depends_on and dispatch. */
export function findHook(
  discovery: Discovery,
  plugin: string,
  hook: string,
): { plugin: Plugin; hook: PluginHook } | undefined {
  const p = discovery.plugins.find((x) => x.name === plugin) ?? discovery.plugins.find((x) => x.domain === plugin);
  const h = p?.hooks.find((x) => x.name === hook);
  return p && h ? { plugin: p, hook: h } : undefined;
}

/** Discovery options from the configuration and the services. */
export function discoverFor(services: Services, env: NodeJS.ProcessEnv, taken: Iterable<string> = []): Discovery {
  const cfg = services.config.get().plugins;
  return discoverPlugins({
    projectDir: services.projectDir,
    env,
    paths: cfg.paths,
    enabled: cfg.enabled,
    disabled: cfg.disabled,
    taken,
    claudeCode: cfg.claude_code,
  });
}

/** Domains other sources hold (handler modules, upstream servers): plugins must not take them. */
function takenDomains(services: Services): Set<string> {
  const taken = new Set<string>();
  for (const e of services.registry.entries()) {
    if (!e.capability.source?.startsWith('plugin:')) taken.add(e.capability.name.split('.')[0]);
  }
  return taken;
}

function start(ctx: SourceContext): PluginsSource {
  const { services, env } = ctx;
  const { registry, logger, bus, health, features } = services;
  let current: Discovery = { plugins: [], problems: [], renames: [], skipped: [], notices: [] };
  let registered: string[] = [];
  const han = new HanSettings(services.projectDir, env);
  const host: HookHost = {
    projectDir: services.projectDir,
    store: services.store,
    env,
    logger,
    find: (plugin, hook) => findHook(current, plugin, hook),
    han,
  };

  const apply = (next: Discovery) => {
    current = next;
    const failed: string[] = [];
    registry.batch(() => {
      for (const name of registered) registry.remove(name);
      registered = [];
      for (const plugin of next.plugins) {
        for (const hook of plugin.hooks) {
          if (!hook.spec.mcp) continue;
          const added = registry.add(hookCapability(() => host, plugin, hook));
          if (added.ok) registered.push(hook.capability);
          else failed.push(added.message);
        }
      }
    });
    services.problems.set('plugins', next.problems.map(manifestProblem));
    for (const p of next.problems)
      logger.warn(
        { file: p.file, issues: p.issues },
        `plugin manifest ${p.file} is invalid; that plugin is not loaded`,
      );
    for (const r of next.renames) logger.warn(r, `plugin ${r.plugin}: ${r.from} renamed to ${r.to} (${r.reason})`);
    // Claude Code settings and the project-wide han.yml files are read now, so their problems show at start.
    han.switches();
    logFileIssues(logger, [...next.notices, ...han.takeIssues()]);
    for (const f of failed) logger.warn(f);
    features.set({
      name: 'plugins',
      status: next.plugins.length ? 'Available' : 'NotConfigured',
      contractVersion: '1.0',
      description: 'Project lint / test / build hooks declared in plugin manifests, as tools and coding-agent hooks.',
      ...(next.plugins.length ? {} : { reason: 'no plugin manifests found' }),
    });
    // The MCP servers plugins bring run in the upstream layer, beside the config file's `[[servers]]`.
    services.servers.set(
      'plugins',
      next.plugins.flatMap((p) => p.mcpServers.map((m) => serverEntry(m.name, m.spec))),
    );
    bus.publish({
      type: 'plugins.discovered',
      plugins: next.plugins.map((p) => ({ name: p.name, domain: p.domain, hooks: p.hooks.map((h) => h.tool) })),
      renames: next.renames,
      problems: next.problems,
      notices: next.notices,
      at: new Date().toISOString(),
    });
  };

  const refresh = async () => {
    apply(discoverFor(services, env, takenDomains(services)));
    return current;
  };

  health.register('plugins', () =>
    services.problems.health('plugins', `${current.plugins.length} plugin(s), ${registered.length} hook tool(s)`),
  );

  // Manifests are small and few: reading them at start keeps tools/list complete from the first request.
  apply(discoverFor(services, env, takenDomains(services)));
  // A live configuration change ([plugins] enabled / disabled / paths) applies at once; folders added to `paths`
  // are read now but watched only after a restart.
  const unsubscribeConfig = services.config.onChange(() => {
    if (!stopped) refresh().catch((err) => logger.warn({ err }, 'plugin rediscovery failed'));
  });

  // Retention of hook run records: at start and once an hour (unref'd: it never keeps a process alive).
  const prune = async () => {
    const days = services.config.get().plugins.retention_days;
    if (days <= 0) return;
    try {
      const removed = await services.store.hooks.prune(new Date(Date.now() - days * 86_400_000).toISOString());
      if (removed) logger.info({ removed, days }, 'pruned old hook run records');
    } catch (err) {
      logger.warn({ err }, 'could not prune hook run records');
    }
  };
  const pruneTimer = setInterval(() => void prune(), PRUNE_EVERY_MS);
  pruneTimer.unref();

  let stopWatcher: (() => Promise<void>) | undefined;
  let stopped = false;
  const cfg = services.config.get().plugins;
  const ready = (async () => {
    await prune();
    if (!cfg.watch) return;
    const roots = pluginRoots({
      projectDir: services.projectDir,
      env,
      paths: cfg.paths,
      enabled: [],
      disabled: [],
      claudeCode: cfg.claude_code,
    }).map((r) => r.dir);
    if (roots.length === 0 || stopped) return;
    // Roots that do not exist yet are watched too (a first `.switchboard/plugins/`); a change anywhere down to a
    // plugin's files re-discovers — manifests are few and small.
    stopWatcher = await watchTargets(roots, {
      depthBelow: 2,
      debounceMs: WATCH_DEBOUNCE_MS,
      onChange: () => {
        if (!stopped) refresh().catch((err) => logger.warn({ err }, 'plugin rediscovery failed'));
      },
    });
  })().catch((err) => logger.warn({ err }, 'plugin watcher failed to start; manifests are read at start only'));

  return {
    ready,
    discovery: () => current,
    refresh,
    dispatch: (event, signal, mayRun) => dispatchEvent(host, current, event, signal, mayRun),
    async stop() {
      stopped = true;
      unsubscribeConfig();
      clearInterval(pruneTimer);
      await stopWatcher?.();
      registry.batch(() => {
        for (const name of registered) registry.remove(name);
      });
      services.servers.set('plugins', []);
      registered = [];
    },
  };
}

/** The `plugins` source for `SOURCES`. */
export const pluginsSource: Source = {
  name: 'plugins',
  start: async (ctx) => start(ctx),
};
