// Scale-out assembly: what a hub on a store with shared state (Redis) adds — the shared event bus, shared limits and
// breakers, the MCP session directory, and this instance's own presence (a registered, heartbeating instance that
// others see and expire when it dies). Each is built on the store's `shared` parts, never on a backend.
import type { Logger } from 'pino';
import type { Services } from './core/context.ts';
import { HUB_ROLE, hubInstanceId } from './core/hub-instance.ts';
import type { SharedBus } from './observe/shared-bus.ts';
import { INSTANCE_METRICS, publishMetrics } from './observe/shared-metrics.ts';
import type { SharedPolicy } from './policy/shared-policy.ts';
import type { SessionDirectory } from './serve/session-directory.ts';
import { leaseTtlMs } from './sources/builtin/system/lease.ts';
import type { SharedState, Store } from './store/contract.ts';

export interface ScaleOut {
  bus: SharedBus;
  policy: SharedPolicy;
  /** 2025-era MCP session records and the routing of client answers between instances. */
  sessions: SessionDirectory;
  /** The key that seals `requestState`, the same on every instance (and across restarts). */
  requestStateKey: Uint8Array;
  /** Register this instance and keep its lease alive; returns a stop function. */
  presence(services: Services): () => Promise<void>;
}

export { HUB_ROLE, hubInstanceId };

/**
 * Build the shared parts for a hub whose store offers shared state (`store.shared`). Loaded lazily: a single-instance
 * hub never loads them.
 *
 * @example
 * const scale = store.shared ? await scaleOut(store, store.shared, instanceId, logger, () => 3_600_000) : undefined;
 */
export async function scaleOut(
  store: Store,
  shared: SharedState,
  instanceId: string,
  logger: Logger,
  /** `[server] session_idle_timeout_ms`, read at each write: a session record expires after it. */
  sessionIdleMs: () => number,
): Promise<ScaleOut> {
  const [{ SharedBus }, { SharedPolicy }, { SessionDirectory }] = await Promise.all([
    import('./observe/shared-bus.ts'),
    import('./policy/shared-policy.ts'),
    import('./serve/session-directory.ts'),
  ]);
  return {
    bus: new SharedBus(shared.bus, instanceId, logger),
    policy: new SharedPolicy(shared.limits),
    sessions: new SessionDirectory(shared.sessions, instanceId, sessionIdleMs),
    requestStateKey: await shared.secret('request-state'),
    presence(services) {
      const id = hubInstanceId(instanceId);
      let stopped = false;
      let beating: Promise<unknown> = Promise.resolve();
      const register = async () => {
        await store.instances.register(id, [HUB_ROLE], leaseTtlMs(services));
        services.bus.publish({ type: 'instance.registered', id, roles: [HUB_ROLE], at: new Date().toISOString() });
      };
      // A lease that ended while Redis was away (or a fresh Redis) is renewed by registering again.
      // Each beat also publishes this instance's call metrics, which system.metrics merges across instances.
      const beat = async () => {
        const alive = await store.instances.heartbeat(id, leaseTtlMs(services));
        if (!alive) await register();
        await publishMetrics(store, id, services.metrics);
      };
      beating = register().catch((err) => logger.warn({ err: err.message }, 'instance registration failed'));
      const tick = () => {
        if (stopped) return;
        beating = beat().catch((err) => logger.debug({ err: err.message }, 'instance heartbeat failed'));
      };
      // Three beats per lease: one lost beat (a slow Redis, a GC pause) does not expire a live instance.
      const timer = setInterval(tick, Math.max(50, Math.floor(leaseTtlMs(services) / 3)));
      timer.unref();
      return async () => {
        stopped = true;
        clearInterval(timer);
        await beating;
        // Leaving: end the lease now (1 ms), so the next sweep anywhere hands this instance's work back at once
        // instead of after a whole lease.
        await store.instances.register(id, [HUB_ROLE], 1).catch(() => {});
        await store.documents.delete(INSTANCE_METRICS, id).catch(() => false);
      };
    },
  };
}
