// Assembles one Switchboard: config, store, registry, pipeline, bus, metrics, and every source.
// Transports and the CLI get a Hub and nothing else.
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import { LiveConfig } from './config/live.ts';
import { type LoadedConfig, loadConfig } from './config/load.ts';
import type { Config } from './config/schema.ts';
import type { BusEvent, Services } from './core/context.ts';
import { Features, Health } from './core/health.ts';
import { Pipeline } from './core/pipeline.ts';
import { Registry } from './core/registry.ts';
import { AuditWriter } from './observe/audit.ts';
import { BatchQueue } from './observe/batch.ts';
import { InProcessBus, Ring } from './observe/events.ts';
import { createLogger } from './observe/logger.ts';
import { CallMetrics } from './observe/metrics.ts';
import { PromMetrics } from './observe/prometheus.ts';
import { outwardEvent } from './observe/redact.ts';
import { PolicyEngine } from './policy/middleware.ts';
import { registerBuiltins } from './sources/builtin/index.ts';
import { loadHandlerModules, type ModuleReport } from './sources/handlers/load.ts';
import type { Store } from './store/contract.ts';
import { SqliteStore } from './store/sqlite.ts';

export interface HubOptions {
  /** Project directory (where `.switchboard/` lives). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Use this store instead of the configured one (tests). */
  store?: Store;
  /** Extra handler module folders (absolute or relative to cwd). */
  handlerPaths?: string[];
}

export interface Hub {
  cwd: string;
  services: Services;
  pipeline: Pipeline;
  config: LiveConfig;
  /** Handler modules loaded at start, with their errors. */
  modules: ModuleReport[];
  /** Rate limits, breakers and concurrency state (read by health and metrics). */
  policy: PolicyEngine;
  /** Prometheus metrics (GET /metrics). */
  metrics: PromMetrics;
  /** Write queued events and audit records now (they are otherwise batched for up to BATCH_MS). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Open the configured store of a project without starting a hub (for `token` and `audit` commands). */
export function openProjectStore(cwd: string, env: NodeJS.ProcessEnv = process.env): Store {
  const { config } = loadConfig(resolve(cwd), env);
  return openStore(resolve(cwd), config.store.path);
}

function openStore(cwd: string, path: string): Store {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  mkdirSync(dirname(file), { recursive: true });
  // Created owner-only (the WAL and shared-memory files take the database file's mode): it holds token hashes,
  // the task board and the audit trail.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  return SqliteStore.open(file);
}

export async function createHub(opts: HubOptions): Promise<Hub> {
  const cwd = resolve(opts.cwd);
  const env = opts.env ?? process.env;
  const logger = opts.logger ?? createLogger();
  const loaded: LoadedConfig = loadConfig(cwd, env);
  const config = new LiveConfig(loaded, env);
  const cfg = config.get();
  const store: Store = opts.store ?? openStore(cwd, cfg.store.path);
  const registry = new Registry();
  const bus = new InProcessBus();
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
          const calls = recentCalls.last(n).map((event) => ({ seq: 0, event: outwardEvent(event) }));
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
    instanceId: `${process.pid}-${randomUUID().slice(0, 8)}`,
    projectDir: cwd,
    startedAt: new Date(),
    metrics,
    config,
    health,
    features,
  };
  const pipeline = new Pipeline(services);
  // SWITCHBOARD_POLICY=off measures the bare pipeline (benchmarks only): no limits, breakers, audit or metrics.
  const policyOn = env.SWITCHBOARD_POLICY !== 'off';
  if (!policyOn)
    logger.warn('SWITCHBOARD_POLICY=off: limits, breakers, audit and metrics are disabled (benchmarking only)');
  pipeline.observe((state, outcome) => {
    const ms = performance.now() - state.startedAt;
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
      at: new Date().toISOString(),
    });
  });
  const policy = new PolicyEngine(services);
  const prom = new PromMetrics(() => policy.breakers.all());
  const audit = new AuditWriter(store, logger, () => (config.get() as Config).audit);
  flushAll = async () => {
    await Promise.all([flushEvents(), audit.flush()]);
  };
  if (policyOn) {
    pipeline.onStart((state) => {
      metrics.started(state.entry.capability.name);
      prom.started(state.entry.capability.name, state.req.transport);
    });
    pipeline.use(policy.middleware);
    pipeline.observe(audit.observe);
    pipeline.observeRefusals(audit.refused);
  }
  await audit.prune();
  health.register('breakers', () => {
    const open = Object.entries(policy.breakers.all()).filter(([, b]) => b.state !== 'closed');
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
  const unsubscribeLog = bus.subscribe((event) => {
    if (retain === 0) return;
    if (event.type === 'call') {
      recentCalls.push(event);
      return;
    }
    eventQueue.push(event);
  });
  health.register('store', async () =>
    (await store.ping())
      ? { status: 'healthy', detail: store.kind }
      : { status: 'unhealthy', detail: `${store.kind} store does not answer` },
  );
  registry.onChange((kind) => bus.publish({ type: 'registry.changed', kind, at: new Date().toISOString() }));

  const stopBuiltins = registerBuiltins(services);
  const paths = [...cfg.handlers.paths, ...(opts.handlerPaths ?? [])].map((p) => (isAbsolute(p) ? p : resolve(cwd, p)));
  const modules = await loadHandlerModules(paths, registry, logger);

  return {
    cwd,
    services,
    pipeline,
    config,
    modules,
    policy,
    metrics: prom,
    flush: () => flushAll(),
    async close() {
      stopBuiltins();
      unsubscribeLog();
      await audit.close();
      await flushEvents();
      await store.close();
    },
  };
}
