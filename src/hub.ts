// Assembles one Switchboard: config, store, registry, pipeline, bus, metrics, and every source.
// Transports and the CLI get a Hub and nothing else.
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import { LiveConfig } from './config/live.ts';
import { type LoadedConfig, loadConfig } from './config/load.ts';
import type { Config } from './config/schema.ts';
import type { BusEvent, EventBus, Services } from './core/context.ts';
import { Features, Health } from './core/health.ts';
import { isoTime } from './core/iso-time.ts';
import { Pipeline } from './core/pipeline.ts';
import { Registry } from './core/registry.ts';
import { ServerContributions } from './core/server-contributions.ts';
import { watchTargets } from './core/watch.ts';
import { AuditWriter } from './observe/audit.ts';
import { BatchQueue } from './observe/batch.ts';
import { InProcessBus, Ring } from './observe/events.ts';
import { createLogger } from './observe/logger.ts';
import { CallMetrics } from './observe/metrics.ts';
import { PromMetrics } from './observe/prometheus.ts';
import { outwardEvent } from './observe/redact.ts';
import { PolicySteps } from './policy/steps/index.ts';
import { type ScaleOut, scaleOut } from './scale-out.ts';
import { registerBuiltins } from './sources/builtin/index.ts';
import { loadHandlerModules, type ModuleReport } from './sources/handlers/load.ts';
import { type RunningSource, SOURCES } from './sources/index.ts';
import type { Store } from './store/contract.ts';
import { SqliteStore } from './store/sqlite.ts';

export interface HubOptions {
  /** Project directory (where `.switchboard/` lives). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Use this store instead of the configured one (tests). */
  store?: Store;
  /** A Redis URL that overrides `[store]` (`serve --store redis://…`); the prefix still comes from `[store]`. */
  storeUrl?: string;
  /** Extra handler module folders (absolute or relative to cwd). */
  handlerPaths?: string[];
  /** Re-read the config files when they change (servers); one-shot CLI commands leave it off. */
  watchConfig?: boolean;
  /**
   * On a Redis store, register this process in the shared instance list and keep its lease alive (`serve` does;
   * a one-shot CLI command does not, so it does not come and go in everyone's `system.get_state`).
   */
  announce?: boolean;
}

export interface Hub {
  cwd: string;
  services: Services;
  pipeline: Pipeline;
  config: LiveConfig;
  /** Handler modules loaded at start, with their errors. */
  modules: ModuleReport[];
  /** Run-time sources (upstream servers, plugins, scripts, agents) by name. */
  sources: Map<string, RunningSource>;
  /** Resolves once every source's first discovery settled. */
  ready(): Promise<void>;
  /** Rate limits, breakers and concurrency state (read by health and metrics). */
  policy: PolicySteps;
  /** Present when the store is Redis: what several instances behind one address share (docs/scale-out.md). */
  scale?: ScaleOut;
  /** Prometheus metrics (GET /metrics). */
  metrics: PromMetrics;
  /** Write queued events and audit records now (they are otherwise batched for up to BATCH_MS). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Open the configured store of a project without starting a hub (for `token` and `audit` commands). */
export async function openProjectStore(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  const { config } = loadConfig(resolve(cwd), env);
  return openStore(resolve(cwd), config.store);
}

/** The configured store: the SQLite file (default), or Redis when `[store] kind = "redis"` or `--store redis://…`. */
async function openStore(cwd: string, cfg: Config['store'], url?: string): Promise<Store> {
  if (url !== undefined || cfg.kind === 'redis') {
    const { RedisStore } = await import('./store/redis.ts');
    return RedisStore.open({ url: url ?? cfg.url, prefix: cfg.prefix });
  }
  const file = isAbsolute(cfg.path) ? cfg.path : resolve(cwd, cfg.path);
  mkdirSync(dirname(file), { recursive: true });
  // Created owner-only (the WAL and shared-memory files take the database file's mode): it holds token hashes,
  // the task board and the audit trail.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  return SqliteStore.open(file);
}

/**
 * Watch the user and project config files; an edit applies at once (servers come and go), an invalid edit is
 * logged and changes nothing.
 */
async function watchConfigFiles(config: LiveConfig, logger: Logger): Promise<() => Promise<void>> {
  return watchTargets([config.files.project, config.files.user], {
    depthBelow: 0,
    onChange: (file) => {
      try {
        config.reload();
        logger.info({ file }, 'configuration reloaded');
      } catch (err) {
        logger.error({ file, err: (err as Error).message }, 'configuration edit ignored: it is invalid');
      }
    },
  });
}

export async function createHub(opts: HubOptions): Promise<Hub> {
  const cwd = resolve(opts.cwd);
  const env = opts.env ?? process.env;
  const logger = opts.logger ?? createLogger();
  const loaded: LoadedConfig = loadConfig(cwd, env);
  const config = new LiveConfig(loaded, env);
  const cfg = config.get();
  const store: Store = opts.store ?? (await openStore(cwd, cfg.store, opts.storeUrl));
  const registry = new Registry();
  const instanceId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  // Scale-out: with a Redis store the bus, the limits and the breakers are shared by every instance on the prefix.
  const scale = store.kind === 'redis' ? await scaleOut(store, instanceId, logger) : undefined;
  const bus: EventBus & { close?: () => Promise<void> } = scale?.bus ?? new InProcessBus();
  const metrics = new CallMetrics();
  const health = new Health();
  const features = new Features();
  // Reads of the event log and the audit trail first write what this process still holds in its batches,
  // so a caller always sees its own calls.
  let flushAll = async () => {};
  const readYourWrites: Store = Object.create(store, {
    events: {
      value: Object.assign(Object.create(store.events), {
        recent: async (n: number) => {
          await flushAll();
          // Merge stored hub events with in-memory calls by time; calls carry seq 0 (they are not stored).
          const stored = await store.events.recent(n);
          // On Redis every instance's recent calls are in the bus stream; otherwise in this process's ring.
          const calls = scale
            ? (await scale.bus.recentCalls(n)).map((event) => ({ seq: 0, event }))
            : recentCalls.last(n).map((event) => ({ seq: 0, event: outwardEvent(event) }));
          return [...stored, ...calls].sort((a, b) => String(a.event.at).localeCompare(String(b.event.at))).slice(-n);
        },
      }),
    },
    audit: {
      value: Object.assign(Object.create(store.audit), {
        query: async (q?: object) => {
          await flushAll();
          return store.audit.query(q);
        },
      }),
    },
  });
  const services: Services = {
    registry,
    store: readYourWrites,
    bus,
    logger,
    instanceId,
    projectDir: cwd,
    startedAt: new Date(),
    metrics,
    config,
    health,
    features,
    servers: new ServerContributions(),
  };
  const pipeline = new Pipeline(services);
  // SWITCHBOARD_POLICY=off measures the bare pipeline (benchmarks only): no limits, breakers, audit or metrics.
  const policyOn = env.SWITCHBOARD_POLICY !== 'off';
  if (!policyOn)
    logger.warn('SWITCHBOARD_POLICY=off: limits, breakers, audit and metrics are disabled (benchmarking only)');
  pipeline.observe((state, outcome) => {
    const ms = state.durationMs;
    if (policyOn) {
      metrics.finished(state.entry.capability.name, ms, !outcome.ok, state.req.transport);
      prom.finished(
        state.entry.capability.name,
        state.req.transport,
        ms / 1000,
        outcome.ok ? undefined : outcome.error.code,
      );
    }
    // Events are stored and streamed: secret-looking keys are masked and large values capped.
    bus.publish({
      type: 'call',
      name: state.entry.capability.name,
      // Raw on the in-process bus; outwardEvent() redacts wherever an event leaves the process.
      input: state.req.input,
      ...(outcome.ok ? { output: outcome.raw ? outcome.raw.content : outcome.value } : { error: outcome.error }),
      principal: state.req.principal.id,
      transport: state.req.transport,
      requestId: state.ctx.requestId,
      durationMs: Math.round(ms * 1000) / 1000,
      at: isoTime(Date.now()),
    });
  });
  const policy = new PolicySteps(services, scale?.policy);
  const prom = new PromMetrics(() => policy.breakerViews());
  const audit = new AuditWriter(store, logger, () => config.get().audit);
  flushAll = async () => {
    await Promise.all([flushEvents(), audit.flush()]);
  };
  if (policyOn) {
    pipeline.onStart((state) => {
      metrics.started(state.entry.capability.name);
      prom.started(state.entry.capability.name, state.req.transport);
    });
    pipeline.use(policy.timeout).use(policy.concurrency).use(policy.rateLimit).use(policy.breaker);
    pipeline.observe(audit.observe);
    pipeline.observeRefusals(audit.refused);
  }
  await audit.prune();
  health.register('breakers', () => {
    const open = Object.entries(policy.breakerViews()).filter(([, b]) => b.state !== 'closed');
    return open.length
      ? { status: 'degraded', detail: `circuit ${open.map(([n, b]) => `${n} ${b.state}`).join(', ')}` }
      : { status: 'healthy', detail: 'all circuits closed' };
  });
  // Recent events for switchboard://events, system.get_state and late subscribers. Hub events (tasks, instances,
  // config, registry) are kept in the store, written in batches; call events stay in memory only, because the
  // durable record of every call is its audit record — writing each call twice would double the cost per call.
  const retain = cfg.events.retain;
  const recentCalls = new Ring<BusEvent>(retain);
  let appended = 0;
  const eventQueue = new BatchQueue<BusEvent>(async (batch) => {
    appended += batch.length;
    // Trimming deletes through an index scan; once per thousand events is plenty.
    const trim = appended >= 1000;
    if (trim) appended = 0;
    try {
      await store.events.appendMany(batch);
      if (trim) await store.events.trim(retain);
    } catch (err) {
      logger.warn({ err }, 'event log append failed');
    }
  });
  const flushEvents = () => eventQueue.flush();
  // The log hears this instance's events only: each instance stores what it published (on Redis, other
  // instances' events are in the shared log and stream already).
  const unsubscribeLog = (scale ? scale.bus.subscribeLocal.bind(scale.bus) : bus.subscribe.bind(bus))((event) => {
    if (retain === 0) return;
    if (event.type === 'call') {
      if (!scale) recentCalls.push(event);
      return;
    }
    eventQueue.push(event);
  });
  health.register('store', async () => {
    if (await store.ping()) return { status: 'healthy', detail: store.kind };
    // Several instances on Redis: an instance without Redis still answers what needs no shared state.
    return scale
      ? {
          status: 'degraded',
          detail: 'redis store does not answer: calls that need shared state fail with UNAVAILABLE until it is back',
        }
      : { status: 'unhealthy', detail: `${store.kind} store does not answer` };
  });
  const stopPresence = scale && opts.announce ? scale.presence(services) : async () => {};
  registry.onChange((kind) => bus.publish({ type: 'registry.changed', kind, at: new Date().toISOString() }));

  const stopBuiltins = registerBuiltins(services);
  const paths = [...cfg.handlers.paths, ...(opts.handlerPaths ?? [])].map((p) => (isAbsolute(p) ? p : resolve(cwd, p)));
  const modules = await loadHandlerModules(paths, registry, logger);
  const stopWatching = opts.watchConfig ? await watchConfigFiles(config, logger) : () => {};
  const sources = new Map<string, RunningSource>();
  for (const load of SOURCES) {
    const source = await load();
    sources.set(source.name, await source.start({ services, pipeline, env }));
  }

  return {
    cwd,
    services,
    pipeline,
    config,
    modules,
    sources,
    ready: async () => {
      await Promise.all([...sources.values()].map((s) => s.ready));
    },
    policy,
    scale,
    metrics: prom,
    flush: () => flushAll(),
    async close() {
      await stopWatching();
      for (const source of [...sources.values()].reverse()) await source.stop();
      await stopPresence();
      stopBuiltins();
      unsubscribeLog();
      await audit.close();
      await flushEvents();
      await bus.close?.();
      await scale?.sessions.close();
      await store.close();
    },
  };
}
