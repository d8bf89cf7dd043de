// Assembles one Switchboard: config, store, registry, pipeline, bus, metrics, and every source.
// Transports and the CLI get a Hub and nothing else.
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import { LiveConfig } from './config/live.ts';
import { loadConfig } from './config/load.ts';
import type { Config } from './config/schema.ts';
import { callerPaths } from './core/caller-paths.ts';
import type { EventBus, HealthRegistry, Services } from './core/context.ts';
import { Features, Health } from './core/health.ts';
import { LoadProblems } from './core/load-problems.ts';
import { Pipeline } from './core/pipeline.ts';
import { Registry } from './core/registry.ts';
import { ServerContributions } from './core/server-contributions.ts';
import { watchTargets } from './core/watch.ts';
import { AuditWriter } from './observe/audit.ts';
import { CallObservers } from './observe/call-observers.ts';
import { EventHistory } from './observe/event-history.ts';
import { InProcessBus } from './observe/events.ts';
import { createLogger } from './observe/logger.ts';
import { CallMetrics } from './observe/metrics.ts';
import { PromMetrics } from './observe/prometheus.ts';
import { readYourWrites } from './observe/read-your-writes.ts';
import { startTelemetry } from './observe/telemetry.ts';
import { PolicySteps } from './policy/steps/index.ts';
import { type ScaleOut, scaleOut } from './scale-out.ts';
import { registerBuiltins } from './sources/builtin/index.ts';
import { loadHandlerModules, type ModuleReport, moduleProblems } from './sources/handlers/load.ts';
import { watchHandlerModules } from './sources/handlers/watch.ts';
import { type RunningSource, SOURCES } from './sources/index.ts';
import type { Store } from './store/contract.ts';
import { SqliteStore } from './store/sqlite/index.ts';

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
  /**
   * Re-read the config files when they change (servers), and the handler modules (`[handlers] watch`); one-shot CLI
   * commands leave it off.
   */
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
  /**
   * Resolves when a list may be answered: every source has listed what it has at start, each upstream server within
   * its own `startup_timeout_ms` (or `[server] first_list_wait_ms`, when set, passed since the first list was asked
   * for). Settled once, it stays settled.
   */
  catalogReady(): Promise<void>;
  /** Rate limits, breakers and concurrency state (read by health and metrics). */
  policy: PolicySteps;
  /**
   * Present when the store offers shared state (Redis): what several instances behind one address share
   * (docs/scale-out.md).
   */
  scale?: ScaleOut;
  /** Prometheus metrics (GET /metrics). */
  metrics: PromMetrics;
  /**
   * Write queued events and audit records now (they are otherwise batched for up to BATCH_MS); with telemetry on,
   * send the queued spans too.
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every source's `listed`, each bounded by its own limits (an upstream server never listed before: its
 * `startup_timeout_ms`); `ms`, when given, bounds the whole wait. A source that takes longer is listed when it arrives.
 */
function firstListWait(sources: Map<string, RunningSource>, ms: number | undefined): Promise<void> {
  const all = Promise.all([...sources.values()].map((s) => s.listed)).then(
    () => undefined,
    () => undefined, // A source that failed to discover has nothing more to wait for; its error is its own to report.
  );
  if (ms === undefined) return all;
  if (ms === 0) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([all, bound]).finally(() => clearTimeout(timer));
}

/** Open the configured store of a project without starting a hub (for `token` and `audit` commands). */
export async function openProjectStore(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  const { config } = loadConfig(resolve(cwd), env);
  return openStore(resolve(cwd), config.store);
}

/** The configured store: the SQLite file (default), or Redis when `[store] kind = "redis"` or `--store redis://…`. */
async function openStore(cwd: string, cfg: Config['store'], url?: string): Promise<Store> {
  if (url !== undefined || cfg.kind === 'redis') {
    const { RedisStore } = await import('./store/redis/index.ts');
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

/**
 * The pipeline, in the order a call meets it. Lookup, validation and execution are the pipeline's own
 * (src/core/pipeline.ts): lookup before everything listed here, validate and execute after the last `use`.
 * SWITCHBOARD_POLICY=off measures the bare pipeline (benchmarks only): no limits, breakers, audit or metrics. The
 * result cache stays: it is a capability's feature, not a check, and a call it answers must not start running again.
 */
function assemblePipeline(services: Services, policy: PolicySteps, observers: CallObservers, policyOn: boolean) {
  const pipeline = new Pipeline(services);
  // With telemetry on, each call's span: started first (it is the call's trace from then on), ended with the outcome.
  if (services.tracer) pipeline.onStart(observers.spanStarted).observe(observers.spanEnded);
  if (!policyOn) return pipeline.use(policy.cache).observe(observers.published);
  return pipeline
    .onStart(observers.started) // in-flight gauges
    .use(policy.timeout) // the call's time limit (enforced by execute)
    .use(policy.concurrency) // calls in flight per principal
    .use(policy.rateLimit) // token bucket per principal × capability
    .use(policy.cache) // results of capabilities that declare a cache, per input × roles
    .use(policy.breaker) // circuit per capability
    .observe(observers.measured) // metrics
    .observe(observers.published) // one call event on the bus
    .observe(observers.audit.observe) // the audit record
    .observeRefusals(observers.audit.refused); // calls to unknown or hidden tools are audited too
}

/** What `system.health` reports besides the sources' own: the circuits and the store. */
function registerHealth(health: HealthRegistry, policy: PolicySteps, store: Store, scale: ScaleOut | undefined): void {
  health.register('breakers', () => {
    const open = Object.entries(policy.breakerViews()).filter(([, b]) => b.state !== 'closed');
    return open.length
      ? { status: 'degraded', detail: `circuit ${open.map(([n, b]) => `${n} ${b.state}`).join(', ')}` }
      : { status: 'healthy', detail: 'all circuits closed' };
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
}

export async function createHub(opts: HubOptions): Promise<Hub> {
  // 1. Configuration and state.
  const cwd = resolve(opts.cwd);
  const env = opts.env ?? process.env;
  const logger = opts.logger ?? createLogger();
  const config = new LiveConfig(loadConfig(cwd, env), env);
  if (opts.storeUrl !== undefined) {
    config.override('store.kind', 'redis', `serve --store ${opts.storeUrl}`);
    config.override('store.url', opts.storeUrl, `serve --store ${opts.storeUrl}`);
  }
  const cfg = config.get();
  const store: Store = opts.store ?? (await openStore(cwd, cfg.store, opts.storeUrl));
  const instanceId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  // Scale-out: with a store that offers shared state (Redis), the bus, the limits and the breakers are shared by every
  // instance on it.
  const scale = store.shared
    ? await scaleOut(store, store.shared, instanceId, logger, () => config.get().server.session_idle_timeout_ms)
    : undefined;
  const bus: EventBus & { close?: () => Promise<void> } = scale?.bus ?? new InProcessBus();
  // Spans over OTLP, when the OTEL_* variables or [telemetry] say so (the SDK is loaded only then).
  const telemetry = await startTelemetry(cfg.telemetry, env, logger);

  // 2. What is written about calls and events, in batches; reads through services see it (read your writes).
  const audit = new AuditWriter(store, logger, () => config.get().audit);
  const history = new EventHistory(store, bus, scale?.bus, cfg.events.retain, logger);
  const flushAll = async () => {
    await Promise.all([history.flush(), audit.flush()]);
  };
  const metrics = new CallMetrics();
  const services: Services = {
    registry: new Registry(),
    store: readYourWrites(store, flushAll, (n) => history.recent(n)),
    bus,
    logger,
    instanceId,
    projectDir: cwd,
    startedAt: new Date(),
    metrics,
    config,
    health: new Health(),
    features: new Features(),
    servers: new ServerContributions(),
    problems: new LoadProblems(callerPaths(cwd), () =>
      bus.publish({ type: 'problems.changed', at: new Date().toISOString() }),
    ),
    ...(telemetry ? { tracer: telemetry.tracer } : {}),
  };

  // 3. Policy and the pipeline.
  const policy = new PolicySteps(services, scale?.policy, store.shared?.results);
  const prom = new PromMetrics(() => policy.breakerViews());
  const policyOn = env.SWITCHBOARD_POLICY !== 'off';
  if (!policyOn)
    logger.warn(
      'SWITCHBOARD_POLICY=off: limits, breakers, audit and metrics are disabled (benchmarking only); the result cache still answers',
    );
  const observers = new CallObservers(metrics, prom, bus, audit, telemetry?.tracer, (name) =>
    policy.breakerState(name),
  );
  const pipeline = assemblePipeline(services, policy, observers, policyOn);
  services.callTool = (req) => pipeline.call(req);
  await audit.prune();
  registerHealth(services.health, policy, store, scale);

  // 4. Presence and capabilities: the built-ins, handler modules, then the run-time sources.
  const stopPresence = scale && opts.announce ? scale.presence(services) : async () => {};
  const registry = services.registry;
  registry.onChange((kind) => bus.publish({ type: 'registry.changed', kind, at: new Date().toISOString() }));
  const stopBuiltins = registerBuiltins(services);
  const paths = [...cfg.handlers.paths, ...(opts.handlerPaths ?? [])].map((p) => (isAbsolute(p) ? p : resolve(cwd, p)));
  const modules = await loadHandlerModules(paths, registry, logger);
  services.problems.set('handlers', await moduleProblems(modules, store.documents));
  services.health.register('handlers', () =>
    services.problems.health('handlers', `${modules.length} handler module(s) loaded`),
  );
  const stopWatching = opts.watchConfig ? await watchConfigFiles(config, logger) : () => {};
  // Started in the background, like the plugins' watcher: serving does not wait for it.
  const watchingHandlers =
    opts.watchConfig && cfg.handlers.watch
      ? watchHandlerModules(paths, services, modules).catch((err) => {
          logger.warn({ err }, 'handler folders cannot be watched; modules are loaded at start only');
          return async () => {};
        })
      : undefined;
  const sources = new Map<string, RunningSource>();
  for (const load of SOURCES) {
    const source = await load();
    sources.set(source.name, await source.start({ services, pipeline, env, sources }));
  }

  let catalogReady: Promise<void> | undefined;
  services.catalogReady = () => {
    catalogReady ??= firstListWait(sources, config.get().server.first_list_wait_ms);
    return catalogReady;
  };
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
    catalogReady: services.catalogReady,
    policy,
    scale,
    metrics: prom,
    flush: telemetry
      ? async () => {
          await flushAll();
          await telemetry.flush();
        }
      : flushAll,
    async close() {
      await stopWatching();
      await (await watchingHandlers)?.();
      for (const source of [...sources.values()].reverse()) await source.stop();
      await stopPresence();
      stopBuiltins();
      await audit.close();
      await history.close();
      await bus.close?.();
      await scale?.sessions.close();
      await store.close();
      // Last: the spans of everything above that ended are sent before the hub is gone.
      await telemetry?.shutdown();
    },
  };
}
