// When Redis stops answering (SIGSTOP: its connections stay open, it reads nothing, and when it resumes it runs
// everything it was sent meanwhile): a write answers within the documented bound and says honestly whether it may
// have happened, a write held back is certainly not carried out, and a retry with the same idempotency key never
// duplicates. Each test stalls a redis-server of its own; the shared one on 6379 is never touched.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/core/pipeline.ts';
import type { IdempotencyClaim } from '../../src/store/contract.ts';
import { REDIS_COMMAND_TIMEOUT_MS, RedisStore } from '../../src/store/redis/index.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { PrivateRedis, testPrefix } from '../helpers/redis.ts';

/**
 * The documented bound (docs/scale-out.md): one command timeout "plus the time to answer" — 1 s of slack for a
 * loaded 2-core machine, still well short of the two timeouts an operation queued behind another once waited.
 */
const BOUND_MS = REDIS_COMMAND_TIMEOUT_MS + 1_000;

const timed = async <T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
};

/** Bounded: the store answers again within a few probe intervals of Redis resuming. */
async function untilAnswering(store: RedisStore): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (
      await store.tasks.list().then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the store did not answer again after Redis resumed');
}

describe('a Redis store when Redis stops answering (SIGSTOP)', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
  });
  afterEach(() => {
    redis.resume();
  });
  afterAll(async () => {
    redis.resume();
    await redis.stop();
  });

  it('answers a sent write as outcome unknown within the bound, holds back the next one, and a keyed retry creates once', async () => {
    const store = await RedisStore.open({ url: redis.url, prefix: testPrefix() });
    const claim: IdempotencyClaim = {
      principal: 'alice',
      capability: 'task.create',
      key: 'deploy-1',
      fingerprint: 'c'.repeat(64),
      ttlMs: 60_000,
    };
    try {
      redis.pause();
      const sent = await timed(() =>
        store.tasks.createOnce({ text: 'during the stall', priority: 1 }, claim).catch((e) => e),
      );
      expect(sent.value).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(
          /^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \(Command timed out\) after the request was sent, so it may or may not have been carried out/,
        ),
        details: { store: 'unreachable', outcome: 'unknown' },
      });
      expect(sent.ms).toBeLessThan(BOUND_MS);

      // Redis is known to be stalled now: the next write is not sent at all, so it certainly did not happen.
      const held = await timed(() => store.tasks.create({ text: 'held back', priority: 1 }).catch((e) => e));
      expect(held.value).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('the request was not carried out. Retry when Redis is back.'),
        details: { store: 'unreachable', outcome: 'not_carried_out' },
      });
      expect(held.ms).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS);

      redis.resume();
      await untilAnswering(store);
      // Both answers were true: the sent write ran when Redis resumed, the held-back one never did.
      const { tasks } = await store.tasks.list();
      expect(tasks.map((t) => t.text)).toEqual(['during the stall']);
      const retry = await store.tasks.createOnce({ text: 'during the stall', priority: 1 }, claim);
      expect(retry).toEqual({ value: tasks[0], replayed: true });
      expect((await store.tasks.list()).tasks).toHaveLength(1);
    } finally {
      await store.close();
    }
  }, 20_000);

  it('answers every operation in flight within the bound, one queued behind another batch too (auto-pipelining)', async () => {
    const store = await RedisStore.open({ url: redis.url, prefix: testPrefix() });
    try {
      redis.pause();
      // The first read goes out at once; the write, a turn later, waits in ioredis's auto-pipeline until the batch
      // before it is answered (it never is), so only the store's own deadline bounds it.
      const first = timed(() => store.tasks.get('t-none').catch((e) => e));
      await new Promise((r) => setImmediate(r));
      const queued = timed(() => store.tasks.create({ text: 'queued in the stall', priority: 1 }).catch((e) => e));
      for (const { value, ms } of await Promise.all([first, queued])) {
        expect(value).toMatchObject({ code: 'UNAVAILABLE', details: { store: 'unreachable', outcome: 'unknown' } });
        expect(ms).toBeLessThan(BOUND_MS);
      }
      redis.resume();
      await untilAnswering(store);
      // "Unknown" was honest: the queued write went out behind the first batch, and Redis ran it when it resumed.
      expect((await store.tasks.list()).tasks.map((t) => t.text)).toEqual(['queued in the stall']);
    } finally {
      await store.close();
    }
  }, 20_000);

  it('answers a read whose pipelined round trip meets the stall as UNAVAILABLE, like a single command', async () => {
    const store = await RedisStore.open({ url: redis.url, prefix: testPrefix() });
    try {
      await store.tasks.create({ text: 'listed', priority: 1 });
      // Stall Redis between task.list's two round trips: the index read is answered, the pipelined rows are not.
      const indexRead = store.client.zrangebylex.bind(store.client);
      store.client.zrangebylex = (async (...args: Parameters<typeof indexRead>) => {
        const members = await indexRead(...args);
        redis.pause();
        return members;
      }) as typeof store.client.zrangebylex;
      const listed = await timed(() => store.tasks.list().catch((e) => e));
      expect(listed.value).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('is unreachable (Command timed out) after the request was sent'),
        details: { store: 'unreachable', outcome: 'unknown' },
      });
      expect(listed.ms).toBeLessThan(BOUND_MS);
    } finally {
      redis.resume();
      await store.close();
    }
  }, 20_000);

  describe('through the hub (real pipeline, shared limits, task.create)', () => {
    let hub: TestHub;
    beforeAll(async () => {
      hub = await testHub({ store: await RedisStore.open({ url: redis.url, prefix: testPrefix() }) });
    });
    afterAll(async () => {
      redis.resume();
      await hub.close();
    });
    afterEach(async () => {
      await untilAnswering(hub.services.store as RedisStore);
    });

    const create = (key: string): Promise<Outcome> =>
      hub.call('task.create', { text: `deploy ${key}`, priority: 1, idempotencyKey: key });
    const tasksFor = async (key: string) =>
      (await hub.services.store.tasks.list({ limit: 500 })).tasks.filter((t) => t.text === `deploy ${key}`);

    it('a stall that begins after the call was admitted: unknown outcome with the safe retry, then exactly one task', async () => {
      // Stall Redis between the shared admission and the create, as an outage that starts mid-call would.
      let stallNext = true;
      hub.pipeline.use((_state, next) => {
        if (stallNext) {
          stallNext = false;
          redis.pause();
        }
        return next();
      });
      const first = await timed(() => create('k-unknown'));
      expect(first.value).toMatchObject({
        ok: false,
        error: {
          code: 'UNAVAILABLE',
          message: expect.stringMatching(
            /may or may not have been carried out.*Retrying task\.create with the same idempotency key 'k-unknown' is safe/,
          ),
          details: { outcome: 'unknown' },
        },
      });
      expect(first.ms).toBeLessThan(BOUND_MS);

      redis.resume();
      await untilAnswering(hub.services.store as RedisStore);
      const retried = await create('k-unknown');
      const again = await create('k-unknown');
      expect(retried).toMatchObject({ ok: true, value: { text: 'deploy k-unknown', status: 'pending' } });
      expect(again).toEqual(retried);
      expect(await tasksFor('k-unknown')).toHaveLength(1);
    }, 20_000);

    it('a stall before the call: answered within the bound, not carried out, and the retry creates the one task', async () => {
      redis.pause();
      const first = await timed(() => create('k-held'));
      // The shared admission waits out the one command timeout; the create is then not sent at all.
      expect(first.value).toMatchObject({
        ok: false,
        error: {
          code: 'UNAVAILABLE',
          message: expect.stringContaining('the request was not carried out'),
          details: { outcome: 'not_carried_out' },
        },
      });
      expect(first.ms).toBeLessThan(BOUND_MS);

      redis.resume();
      await untilAnswering(hub.services.store as RedisStore);
      expect(await tasksFor('k-held')).toHaveLength(0);
      const retried = await create('k-held');
      expect(retried).toMatchObject({ ok: true, value: { text: 'deploy k-held' } });
      expect(await create('k-held')).toEqual(retried);
      expect(await tasksFor('k-held')).toHaveLength(1);
    }, 20_000);
  });
});
