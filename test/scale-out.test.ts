// A hub on a Redis store, in process: it registers itself and heartbeats, a clean stop ends its lease at once,
// and while Redis is away store calls fail with UNAVAILABLE without opening breakers, health says degraded,
// and local limits apply — then everything works again when Redis is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubInstanceId } from '../src/scale-out.ts';
import { RedisStore } from '../src/store/redis/index.ts';
import { testHub } from './helpers/hub.ts';
import { PrivateRedis, testPrefix } from './helpers/redis.ts';
import { until } from './helpers/until.ts';

describe('a hub on Redis', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('does not register when not asked to (one-shot commands)', async () => {
    const prefix = testPrefix();
    const hub = await testHub({ store: await RedisStore.open({ url: redis.url, prefix }) });
    const id = hubInstanceId(hub.services.instanceId);
    // Checked after close, not after a pause: a hub that registered leaves its record behind (a 1 ms lease) when it
    // stops, and close waits for any registration under way.
    await hub.close();
    const probe = await RedisStore.open({ url: redis.url, prefix });
    try {
      expect(await probe.instances.get(id)).toBeUndefined();
    } finally {
      await probe.close();
    }
  });

  it('registers itself, is listed by system.get_state, and ends its lease when it stops', async () => {
    const prefix = testPrefix();
    const hub = await testHub({ store: await RedisStore.open({ url: redis.url, prefix }), announce: true });
    const id = hubInstanceId(hub.services.instanceId);
    const listed = async () =>
      ((await hub.value('system.get_state')).instances as { id: string; roles: string[] }[]).find((i) => i.id === id);
    expect(await until(listed, { what: 'this hub among the instances' })).toMatchObject({ id, roles: ['switchboard'] });
    await hub.close();
    const probe = await RedisStore.open({ url: redis.url, prefix });
    try {
      const after = await probe.instances.get(id);
      expect(after && after.expiresAt <= Date.now() + 1).toBe(true);
    } finally {
      await probe.close();
    }
  });

  it('while Redis is away: UNAVAILABLE fast, health degraded, no breaker opened; recovers when it returns', async () => {
    const hub = await testHub({ store: await RedisStore.open({ url: redis.url, prefix: testPrefix() }) });
    try {
      expect((await hub.call('task.create', { text: 'before', priority: 1 })).ok).toBe(true);
      await redis.stop();
      // More failures than the breaker threshold (5): none of them may open the circuit.
      for (let i = 0; i < 7; i++) {
        const out = await hub.call('task.create', { text: 'during', priority: 1 });
        expect(out).toMatchObject({
          ok: false,
          error: { code: 'UNAVAILABLE', message: expect.stringContaining('is unreachable') },
        });
      }
      const health = await hub.value('system.health');
      expect(health).toMatchObject({ status: 'degraded', services: { store: { status: 'degraded' } } });
      await redis.start();
      const out = await until(
        async () => {
          const made = await hub.call('task.create', { text: 'after', priority: 1 });
          return made.ok && made;
        },
        { timeoutMs: 5_000, everyMs: 100, what: 'task.create to work again' },
      );
      expect(out.ok).toBe(true);
      expect(hub.policy.breakerViews()['task.create']?.state ?? 'closed').toBe('closed');
      // Health answers are kept a second (policy.cache), so the degraded one may still be served for that long.
      await until(async () => (await hub.value('system.health')).services.store.status === 'healthy', {
        what: 'system.health to say the store is healthy again',
      });
      // The audit trail (written by the hub's pipelined sink) holds the call made after Redis came back (the
      // private server keeps no data across its restart, so the first call's record went with it).
      const audited = await hub.services.store.audit.query({ capability: 'task.create', outcome: 'ok' });
      expect(audited).toHaveLength(1);
      expect(audited[0]).toMatchObject({ capability: 'task.create', principal: 'test', transport: 'cli' });
    } finally {
      await hub.close();
    }
  });
});
