// RedisStore: the shared Store contract against the real Redis server, each test on its own key prefix (deleted
// afterwards), plus what only Redis has — atomic scripts under concurrency, prefixes that never meet, fail-fast
// UNAVAILABLE while the server is away and recovery when it returns.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/index.ts';
import { openTestStore, PrivateRedis, REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';
import { agentSessionContract, sessionMeta } from './agent-sessions-contract.ts';
import { storeContract } from './contract.ts';

const opened: Awaited<ReturnType<typeof openTestStore>>[] = [];
afterAll(async () => {
  for (const s of opened.splice(0)) await s.drop();
});

storeContract('redis', async (clock) => {
  const store = await openTestStore(REDIS_URL, clock);
  opened.push(store);
  // The suite closes the store; dropping its keys needs a connection of its own.
  return store;
});

agentSessionContract('redis', async () => {
  const store = await openTestStore();
  return {
    sessions: store.agentSessions,
    // A lease of 1 ms, run out: what an instance that died mid-turn leaves.
    async staleLock(name, owner) {
      const current = await store.agentSessions.lockOwner(name);
      if (current) await store.agentSessions.unlock(name, current.owner);
      await store.agentSessions.lock(name, owner, 1);
      await until(async () => (await store.agentSessions.lockOwner(name))?.alive === false, {
        what: 'the 1 ms turn lock to run out',
      });
    },
    close: () => store.drop(),
  };
});

describe('RedisStore', () => {
  const mine: Awaited<ReturnType<typeof openTestStore>>[] = [];
  afterEach(async () => {
    for (const s of mine.splice(0)) await s.drop();
  });
  const open = async () => {
    const s = await openTestStore();
    mine.push(s);
    return s;
  };

  it('keeps two prefixes apart on one server', async () => {
    const a = await open();
    const b = await open();
    await a.tasks.create({ text: 'only in a', priority: 1 });
    await a.tokens.create({ name: 'ci', hash: 'a'.repeat(64), roles: [], expiresAt: null });
    expect((await b.tasks.list()).tasks).toEqual([]);
    expect(await b.tokens.count()).toBe(0);
    expect((await a.tasks.list()).tasks).toHaveLength(1);
  });

  it('shares state between two connections on one prefix (two instances)', async () => {
    const a = await open();
    const b = await RedisStore.open({ url: REDIS_URL, prefix: a.prefix });
    try {
      const task = await a.tasks.create({ text: 'shared', priority: 5 });
      const won = await b.tasks.update(task.id, { status: 'assigned', assignedTo: 'w2' }, { from: ['pending'] });
      expect(won.ok).toBe(true);
      const lost = await a.tasks.update(task.id, { status: 'assigned', assignedTo: 'w1' }, { from: ['pending'] });
      expect(lost).toMatchObject({ ok: false, reason: 'conflict', task: { assignedTo: 'w2' } });
      const v = await a.tokens.version();
      await b.tokens.create({ name: 'x', hash: 'b'.repeat(64), roles: [], expiresAt: null });
      expect(await a.tokens.version()).not.toBe(v);
    } finally {
      await b.close();
    }
  });

  it('keeps the list indexes exact under 40 concurrent transitions from two connections', async () => {
    const a = await open();
    const b = await RedisStore.open({ url: REDIS_URL, prefix: a.prefix });
    try {
      const tasks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => a.tasks.create({ text: `t${i}`, priority: i % 3 })),
      );
      const results = await Promise.all(
        tasks.flatMap((t) => [
          a.tasks.update(t.id, { status: 'assigned', assignedTo: 'wa' }, { from: ['pending'] }),
          b.tasks.update(t.id, { status: 'assigned', assignedTo: 'wb' }, { from: ['pending'] }),
        ]),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(20);
      const wa = (await a.tasks.list({ assignedTo: 'wa', limit: 500 })).tasks.length;
      const wb = (await a.tasks.list({ assignedTo: 'wb', limit: 500 })).tasks.length;
      expect(wa + wb).toBe(20);
      expect((await a.tasks.list({ status: ['pending'] })).tasks).toEqual([]);
      expect((await a.tasks.list({ status: ['assigned'], limit: 500 })).tasks).toHaveLength(20);
    } finally {
      await b.close();
    }
  });

  it('keeps a script run journal whole and in order under concurrent appends from two connections', async () => {
    const a = await open();
    const b = await RedisStore.open({ url: REDIS_URL, prefix: a.prefix });
    try {
      await a.scriptRuns.create({ id: 'r-c', clientKey: 'session:s', principal: 'p', name: 'test:x' });
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 ? a : b).scriptRuns.append('r-c', [
            { n: i, part: 0 },
            { n: i, part: 1 },
          ]),
        ),
      );
      const journal = await b.scriptRuns.journal('r-c');
      expect(journal).toHaveLength(60);
      // Each batch lands as one block: entry 2k and 2k+1 always come from the same append.
      for (let k = 0; k < 30; k++) expect(journal[2 * k + 1]).toEqual({ n: journal[2 * k].n, part: 1 });
      expect((await a.scriptRuns.get('r-c'))?.entries).toBe(60);
      // Adopted by another client on the other connection: both see it.
      await b.scriptRuns.update('r-c', { clientKey: 'run:r-c' });
      expect((await a.scriptRuns.list({ clientKey: 'run:r-c' })).map((r) => r.id)).toEqual(['r-c']);
    } finally {
      await b.close();
    }
  });

  it('moves a finished task in the outcome index when its completion time changes, and drops it when reopened', async () => {
    const s = await open();
    const t = await s.tasks.create({ text: 't', priority: 1 });
    await s.tasks.update(t.id, { status: 'completed', completedAt: '2030-01-01T00:00:00.000Z' });
    await s.tasks.update(t.id, { completedAt: '2030-01-02T00:00:00.000Z' });
    expect((await s.tasks.finished({ since: '2030-01-01T12:00:00.000Z' })).map((x) => x.id)).toEqual([t.id]);
    await s.tasks.update(t.id, { status: 'pending', completedAt: null });
    expect(await s.tasks.finished({ since: '2000-01-01T00:00:00.000Z' })).toEqual([]);
  });

  it('moves a task within the order when its priority changes', async () => {
    const s = await open();
    const low = await s.tasks.create({ text: 'low', priority: 1 });
    const high = await s.tasks.create({ text: 'high', priority: 9 });
    await s.tasks.update(low.id, { priority: 99 });
    expect((await s.tasks.list()).tasks.map((t) => t.id)).toEqual([low.id, high.id]);
    expect((await s.tasks.list({ status: ['pending'] })).tasks.map((t) => t.id)).toEqual([low.id, high.id]);
  });

  it('holds an agent turn lock as a lease: renewed it stays, left alone it runs out and another instance takes it', async () => {
    const a = await open();
    const b = await RedisStore.open({ url: REDIS_URL, prefix: a.prefix });
    try {
      await a.agentSessions.create(sessionMeta('lease'));
      await a.agentSessions.lock('lease', 'inst-a', 1500);
      // Renewed every 300 ms (a fifth of the lease, so a slow machine does not let it lapse), past the first lease.
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 300));
        expect(await a.agentSessions.renew('lease', 'inst-a', 1500)).toBe(true);
        // The other instance sees a live turn and cannot take it.
        expect(await b.agentSessions.lockOwner('lease')).toMatchObject({ owner: 'inst-a', alive: true });
        await expect(b.agentSessions.lock('lease', 'inst-b', 1500)).rejects.toMatchObject({ code: 'CONFLICT' });
      }
      // inst-a stops renewing (it died): after the lease the lock is stale, and inst-b takes it over.
      await new Promise((r) => setTimeout(r, 1700));
      expect(await b.agentSessions.lockOwner('lease')).toMatchObject({ owner: 'inst-a', alive: false });
      await b.agentSessions.lock('lease', 'inst-b', 30_000);
      expect(await a.agentSessions.renew('lease', 'inst-a', 1500)).toBe(false);
      await expect(a.agentSessions.put(sessionMeta('lease', 'completed'), { holder: 'inst-a' })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      // The transcript both instances read is the same list.
      await b.agentSessions.append('lease', [{ type: 'turn_start' }], { holder: 'inst-b' });
      expect((await a.agentSessions.transcript('lease')).events.map((e) => e.type)).toEqual(['turn_start']);
    } finally {
      await b.close();
    }
  });

  it('refuses an empty prefix with INVALID_INPUT', async () => {
    await expect(RedisStore.open({ url: REDIS_URL, prefix: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('answers UNAVAILABLE naming the server when Redis cannot be reached at open', async () => {
    const err = await RedisStore.open({ url: 'redis://127.0.0.1:1', prefix: testPrefix() }).catch((e) => e);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('redis://127.0.0.1:1') });
  });

  describe('when the server goes away', () => {
    let redis: PrivateRedis;
    beforeAll(async () => {
      redis = await PrivateRedis.start();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it('fails fast with UNAVAILABLE, writes nothing half-way, and recovers when it returns', async () => {
      const store = await RedisStore.open({ url: redis.url, prefix: testPrefix() });
      try {
        const task = await store.tasks.create({ text: 'before', priority: 1 });
        await redis.stop();
        const started = Date.now();
        await expect(store.tasks.create({ text: 'during', priority: 1 })).rejects.toMatchObject({
          code: 'UNAVAILABLE',
          message: expect.stringMatching(/Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/),
        });
        await expect(store.tasks.update(task.id, { status: 'completed' })).rejects.toMatchObject({
          code: 'UNAVAILABLE',
        });
        expect(Date.now() - started).toBeLessThan(3_000);
        expect(await store.ping()).toBe(false);
        await redis.start();
        // The client reconnects on its own (retry at most every second); bounded wait.
        for (let i = 0; i < 50 && !(await store.ping()); i++) await new Promise((r) => setTimeout(r, 100));
        expect(await store.ping()).toBe(true);
        // A fresh server (no persistence): the store works again from empty, nothing half-written survives.
        const after = await store.tasks.create({ text: 'after', priority: 2 });
        expect((await store.tasks.list()).tasks.map((t) => t.id)).toEqual([after.id]);
      } finally {
        await store.close();
      }
    });
  });
});

describe('RedisStore when Redis refuses a write', () => {
  it('answers UNAVAILABLE saying Redis refused it (out of memory under noeviction), and writes nothing', async () => {
    const redis = await PrivateRedis.start();
    const store = await RedisStore.open({ url: redis.url, prefix: testPrefix() });
    try {
      await store.tasks.create({ text: 'fits', priority: 1 });
      // A limit far below what is in use: every write is refused, reads still work.
      await store.client.config('SET', 'maxmemory-policy', 'noeviction');
      await store.client.config('SET', 'maxmemory', '1');
      const err = await store.tasks.create({ text: 'too much', priority: 1 }).catch((e) => e);
      expect(err).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ refused the request \(OOM/),
        details: { store: 'refused' },
      });
      await store.client.config('SET', 'maxmemory', '0');
      expect((await store.tasks.list()).tasks.map((t) => t.text)).toEqual(['fits']);
    } finally {
      await store.close();
      await redis.stop();
    }
  });
});
