// Scale-out assembly: what a hub on a Redis store adds — the shared event bus, shared limits and breakers, and
// this instance's own presence (a registered, heartbeating instance that others see and expire when it dies).
import type { Logger } from 'pino';
import type { Services } from './core/context.ts';
import { HUB_ROLE, hubInstanceId } from './core/hub-instance.ts';
import type { RedisBus } from './observe/redis-bus.ts';
import { INSTANCE_METRICS, publishMetrics } from './observe/shared-metrics.ts';
import type { SharedPolicy } from './policy/shared-policy.ts';
import type { SessionDirectory } from './serve/session-directory.ts';
import { leaseTtlMs } from './sources/builtin/system/lease.ts';
import type { Store } from './store/contract.ts';
import type { RedisStore } from './store/redis/index.ts';

export interface ScaleOut {
  bus: RedisBus;
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
 * A 32-byte secret every instance on the prefix shares: the first instance to start creates it (SET NX), the
 * rest read it. It lives as long as the Redis data, so a restart of every instance keeps what it sealed valid.
 */
async function sharedSecret(store: RedisStore, name: string): Promise<Uint8Array> {
  const key = `${store.prefix}secret:${name}`;
  const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
  await store.io(() => store.client.set(key, fresh, 'NX'));
  const hex = await store.io(() => store.client.get(key));
  return new Uint8Array(Buffer.from(hex ?? fresh, 'hex'));
}

/**
 * Build the shared parts for a hub whose store is Redis. Loaded lazily: a SQLite hub never loads the Redis client.
 *
 * @example
 * const scale = store.kind === 'redis' ? await scaleOut(store, instanceId, logger) : undefined;
 */
export async function scaleOut(store: Store, instanceId: string, logger: Logger): Promise<ScaleOut> {
  const [{ RedisBus }, { SharedPolicy }, { SessionDirectory }, { SESSION_IDLE_MS }, { RedisStore }] = await Promise.all(
    [
      import('./observe/redis-bus.ts'),
      import('./policy/shared-policy.ts'),
      import('./serve/session-directory.ts'),
      import('./serve/mcp-http.ts'),
      import('./store/redis/index.ts'),
    ],
  );
  const redis = store as RedisStore;
  return {
    bus: new RedisBus(redis, instanceId, logger),
    policy: new SharedPolicy(redis),
    sessions: new SessionDirectory(redis, instanceId, SESSION_IDLE_MS, RedisStore.connect),
    requestStateKey: await sharedSecret(redis, 'request-state'),
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
        await publishMetrics(store, id, services.metrics.snapshot());
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
