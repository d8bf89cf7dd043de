// The upstream source: every MCP server in `[[servers]]` aggregated as `server__tool`, kept in step with the
// configuration while the hub runs, with one health entry summarising them.
import { type Config, ServerSchema } from '../../config/schema.ts';
import type { Capability } from '../../core/capability.ts';
import type { RunningSource, Source, SourceContext } from '../index.ts';
import type { UpstreamManager } from './manager.ts';
import { watchRkatServers } from './rkat-watch.ts';
import { systemServers } from './servers-tool.ts';
import type { UpstreamView } from './views.ts';

export interface RunningUpstream extends RunningSource {
  /** Present once a server was configured (the MCP client is loaded only then). */
  manager(): UpstreamManager | undefined;
}

export const upstreamSource: Source = {
  name: 'upstream',
  async start(ctx: SourceContext): Promise<RunningUpstream> {
    const { config, health, logger } = ctx.services;
    let manager: UpstreamManager | undefined;
    /** Servers an operator disabled with system.servers, until enabled again (not written to the configuration). */
    const disabled = new Set<string>();
    // A hub without upstream servers never loads the MCP client: stdio start-up stays lean.
    const apply = async (servers: Config['servers']) => {
      if (!manager && servers.length === 0) return;
      manager ??= new (await import('./manager.ts')).UpstreamManager(ctx);
      await manager.apply(servers);
    };
    // A project's .rkat/mcp.toml, read now (a file that cannot be served stops the start, as a config file does)
    // and again whenever it changes.
    const rkat = await watchRkatServers(ctx, () => reapply());
    // The config files' servers, then the project's .rkat/mcp.toml, then those other sources bring (a plugin's
    // mcp_servers); the first wins on a name.
    const wanted = (): Config['servers'] => {
      const own = config.get().servers;
      const names = new Set(own.map((s) => s.name));
      const extra: Config['servers'] = [];
      for (const entry of [...rkat.servers(), ...ctx.services.servers.all()]) {
        if (names.has(entry.name)) continue;
        names.add(entry.name);
        const parsed = ServerSchema.safeParse(entry);
        if (parsed.success) extra.push(parsed.data);
        else logger.error({ server: entry.name, issues: parsed.error.issues }, 'a contributed MCP server is invalid');
      }
      return [...own, ...extra].map((s) => (disabled.has(s.name) ? { ...s, enabled: false } : s));
    };
    rkat.shadowed();
    await apply(wanted());
    // Hot reload: each change re-applies the server list; unchanged servers keep their connections.
    let applying = Promise.resolve();
    const reapply = () => {
      applying = applying
        .then(() => apply(wanted()))
        .catch((err) => logger.error({ err }, 'applying the upstream server configuration failed'));
    };
    const unsubscribeConfig = config.onChange(() => {
      rkat.shadowed();
      reapply();
    });
    const tool = systemServers({
      views: () => manager?.views() ?? [],
      restart: async (name) => {
        await applying;
        if (!(await manager?.forget(name))) return false;
        reapply();
        await applying;
        return true;
      },
      setEnabled: async (name, enabled) => {
        if (!wanted().some((s) => s.name === name) && !disabled.has(name)) return false;
        if (enabled) disabled.delete(name);
        else disabled.add(name);
        reapply();
        await applying;
        return true;
      },
      pending: (name) => manager?.pending(name) ?? [],
      approve: async (name, tools, by) => {
        await applying;
        return manager?.approve(name, tools, by);
      },
    });
    const added = ctx.services.registry.add({ ...(tool as Capability), source: 'upstream' });
    if (!added.ok) logger.error(added.message);
    const unsubscribeContributions = ctx.services.servers.onChange(reapply);
    const unsubscribe = () => {
      unsubscribeConfig();
      unsubscribeContributions();
    };
    health.register('upstream', () => summarise(manager?.views() ?? []));
    ctx.services.withheld = (name, principal) => manager?.withheldTool(name, principal);
    const report = () => {
      const count = wanted().length;
      ctx.services.features.set({
        name: 'upstream',
        status: count ? 'Available' : 'NotConfigured',
        contractVersion: '1.0',
        description: 'Tools, resources and prompts of other MCP servers, aggregated behind this endpoint.',
        ...(count ? {} : { reason: "no upstream servers configured ([[servers]] or a plugin's mcp_servers)" }),
      });
    };
    report();
    const unsubscribeReport = [config.onChange(report), ctx.services.servers.onChange(report)];
    return {
      manager: () => manager,
      get ready() {
        return manager?.ready() ?? Promise.resolve();
      },
      get listed() {
        return manager?.listed() ?? Promise.resolve();
      },
      async stop() {
        unsubscribe();
        await rkat.stop();
        for (const u of unsubscribeReport) u();
        ctx.services.registry.remove(tool.name);
        ctx.services.withheld = undefined;
        await applying;
        await manager?.stop();
      },
    };
  },
};

function summarise(views: UpstreamView[]) {
  const active = views.filter((v) => v.status !== 'disabled');
  if (active.length === 0) return { status: 'healthy' as const, detail: 'no upstream servers configured' };
  // An idle server was stopped on purpose (idle_timeout_ms) and starts on the next call.
  const down = active.filter((v) => v.status !== 'connected' && v.status !== 'idle');
  const idle = active.filter((v) => v.status === 'idle').length;
  if (down.length === 0)
    return {
      status: 'healthy' as const,
      detail: `${active.length - idle} connected${idle ? `, ${idle} idle` : ''}`,
    };
  return {
    status: 'degraded' as const,
    detail: down.map((v) => `${v.name} ${v.status}${v.error ? ` (${v.error})` : ''}`).join('; '),
  };
}
