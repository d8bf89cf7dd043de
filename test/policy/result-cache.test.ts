// The result cache (`policy.cache`, ClaudeBench's `@Instrumented(ttl)`), through the real hub: identical input from
// principals with the same roles is answered without running again, within the time given, on SQLite and — shared by
// two hubs — on a real Redis; different roles, errors and raw results are never shared; hits and misses show in the
// Prometheus metrics and the audit trail marks a cached call.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineCapability, rawResult } from '../../src/core/capability.ts';
import type { Principal } from '../../src/core/context.ts';
import { resultKey } from '../../src/policy/result-cache.ts';
import { HEALTH_CACHE_MS } from '../../src/sources/builtin/system/health.ts';
import { RedisStore } from '../../src/store/redis/index.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { openTestStore, PrivateRedis, REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

const hubs: TestHub[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const h of hubs.splice(0)) await h.close();
  for (const c of cleanups.splice(0)) await c();
});

function project(toml = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cache-'));
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), toml);
  return dir;
}

const alice: Principal = { id: 'alice', roles: ['dev', 'ops'], kind: 'token' };
const bob: Principal = { id: 'bob', roles: ['ops', 'dev', 'dev'], kind: 'token' };
const carol: Principal = { id: 'carol', roles: ['dev'], kind: 'token' };

/** Every key on a Redis server (a private one, in these tests). */
async function storeKeys(url: string): Promise<string[]> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await probe.connect();
    return await probe.keys('*');
  } finally {
    probe.disconnect();
  }
}

/** Capabilities that count their runs: `c.lookup` keeps results 60 s, `c.failing` fails, `c.raw` answers raw. */
function addFixtures(hub: TestHub) {
  const runs = { lookup: 0, failing: 0, raw: 0, plain: 0 };
  const cache = { ttlMs: 60_000 };
  hub.services.registry.add(
    defineCapability({
      name: 'c.lookup',
      description: 'a lookup worth keeping',
      input: z.object({
        q: z.string(),
        page: z.number().default(1),
        opts: z.record(z.string(), z.number()).optional(),
      }),
      policy: { cache },
      handle: ({ q, page }) => ({ answer: `${q}#${page}`, run: ++runs.lookup }),
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'c.failing',
      description: 'always fails',
      input: z.object({}),
      policy: { cache },
      handle: () => {
        runs.failing++;
        throw new Error('backend down');
      },
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'c.raw',
      description: 'answers content blocks',
      input: z.object({}),
      policy: { cache },
      handle: () => {
        runs.raw++;
        return rawResult([{ type: 'text', text: 'hi' }], { structuredContent: { n: runs.raw } });
      },
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'c.plain',
      description: 'declares no cache',
      input: z.object({}),
      handle: () => ({ run: ++runs.plain }),
    }),
  );
  return runs;
}

async function sqliteHub(toml = ''): Promise<TestHub> {
  const hub = await testHub({ cwd: project(toml) });
  hubs.push(hub);
  return hub;
}

describe('result cache on SQLite', () => {
  it('answers identical input from principals with the same roles once, and never across role sets', async () => {
    const hub = await sqliteHub();
    const runs = addFixtures(hub);
    const first = await hub.call('c.lookup', { q: 'x', opts: { a: 1, b: 2 } }, alice);
    expect(first).toEqual({ ok: true, value: { answer: 'x#1', run: 1 } });
    // Same roles in another order (and once each), keys in another order, a default spelled out: the same call.
    expect(await hub.call('c.lookup', { opts: { b: 2, a: 1 }, q: 'x', page: 1 }, bob)).toEqual(first);
    expect(runs.lookup).toBe(1);
    // Other roles run it again, and keep their own result.
    expect(await hub.call('c.lookup', { q: 'x', opts: { a: 1, b: 2 } }, carol)).toEqual({
      ok: true,
      value: { answer: 'x#1', run: 2 },
    });
    // Other input runs it again.
    expect(await hub.call('c.lookup', { q: 'y' }, alice)).toMatchObject({ value: { run: 3 } });
    expect(runs.lookup).toBe(3);
    // A capability without a cache runs every time.
    await hub.call('c.plain', {}, alice);
    expect(await hub.call('c.plain', {}, alice)).toMatchObject({ value: { run: 2 } });
  });

  it('keeps a result for its time only (the clock moved, not waited)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hub = await sqliteHub();
    const runs = addFixtures(hub);
    await hub.call('c.lookup', { q: 'x' }, alice);
    vi.setSystemTime(Date.now() + 59_999);
    expect(await hub.call('c.lookup', { q: 'x' }, alice)).toMatchObject({ value: { run: 1 } });
    vi.setSystemTime(Date.now() + 2);
    expect(await hub.call('c.lookup', { q: 'x' }, alice)).toMatchObject({ value: { run: 2 } });
    expect(runs.lookup).toBe(2);
  });

  it('never keeps an error, a raw result or invalid input', async () => {
    const hub = await sqliteHub();
    const runs = addFixtures(hub);
    for (let i = 0; i < 2; i++)
      expect(await hub.call('c.failing', {}, alice)).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(runs.failing).toBe(2);
    await hub.call('c.raw', {}, alice);
    expect(await hub.call('c.raw', {}, alice)).toMatchObject({ ok: true, value: { n: 2 } });
    const bad = await hub.call('c.lookup', { q: 1 }, alice);
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: expect.stringMatching(/q:/) } });
    expect(runs.lookup).toBe(0);
  });

  it('counts hits and misses in the Prometheus metrics and marks a cached call in the audit trail', async () => {
    const hub = await sqliteHub();
    addFixtures(hub);
    for (let i = 0; i < 3; i++) await hub.call('c.lookup', { q: 'x' }, alice);
    await hub.call('c.plain', {}, alice);
    const text = await hub.metrics.prometheus();
    expect(text).toContain('switchboard_cache_lookups_total{capability="c.lookup",result="miss"} 1');
    expect(text).toContain('switchboard_cache_lookups_total{capability="c.lookup",result="hit"} 2');
    expect(text).not.toMatch(/switchboard_cache_lookups_total\{capability="c\.plain"/);
    // Every call is still a call: three in the call counters.
    expect(text).toMatch(/switchboard_calls_total\{capability="c\.lookup",transport="cli",outcome="ok"\} 3/);
    const metrics = await hub.value('system.metrics', { scope: 'instance' });
    expect(metrics.capabilities['c.lookup']).toMatchObject({ calls: 3, cache: { hits: 2, misses: 1 } });
    expect(metrics.capabilities['c.plain'].cache).toBeUndefined();
    await hub.flush();
    const records = await hub.services.store.audit.query({ capability: 'c.lookup' });
    expect(records.map((r) => r.cached ?? false)).toEqual([true, true, false]);
    expect(records[0]).toMatchObject({ principal: 'alice', outcome: 'ok', errorCode: null });
  });

  it('answers a kept result while the circuit is open, and a hit tells the circuit nothing', async () => {
    const hub = await sqliteHub('[policy.breaker]\nthreshold = 2\nreset_ms = 60000\n');
    let healthy = true;
    hub.services.registry.add(
      defineCapability({
        name: 'c.backend',
        description: 'fails while its backend is down',
        input: z.object({ q: z.string() }),
        policy: { cache: { ttlMs: 60_000 } },
        handle: ({ q }) => {
          if (!healthy) throw new Error('backend down');
          return { q };
        },
      }),
    );
    expect(await hub.call('c.backend', { q: 'kept' }, alice)).toEqual({ ok: true, value: { q: 'kept' } });
    healthy = false;
    for (const q of ['a', 'b'])
      expect(await hub.call('c.backend', { q }, alice)).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(await hub.call('c.backend', { q: 'c' }, alice)).toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE', details: { breaker: 'open' } },
    });
    // The kept answer is still given, and does not close (or touch) the open circuit.
    expect(await hub.call('c.backend', { q: 'kept' }, alice)).toEqual({ ok: true, value: { q: 'kept' } });
    expect(hub.policy.breakerViews()['c.backend']).toMatchObject({ state: 'open' });
  });

  it('takes cache_ms from [policy.capabilities]: on for a capability that declares none, 0 turns one off', async () => {
    const hub = await sqliteHub(
      '[policy.capabilities."c.plain"]\ncache_ms = 60000\n[policy.capabilities."c.lookup"]\ncache_ms = 0\n',
    );
    const runs = addFixtures(hub);
    await hub.call('c.plain', {}, alice);
    expect(await hub.call('c.plain', {}, alice)).toMatchObject({ value: { run: 1 } });
    await hub.call('c.lookup', { q: 'x' }, alice);
    await hub.call('c.lookup', { q: 'x' }, alice);
    expect(runs.lookup).toBe(2);
  });

  it('refuses a cache_ms that is not a whole number of ms ≥ 0, naming the key', async () => {
    await expect(sqliteHub('[policy.capabilities."c.plain"]\ncache_ms = -5\n')).rejects.toThrow(
      /policy\.capabilities\.c\.plain\.cache_ms/,
    );
    await expect(sqliteHub('[policy.tokens.ci]\ncache_ms = 5\n')).rejects.toThrow(/cache_ms/);
  });

  it('keeps system.health for a second, so a flood of probes runs the checks once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hub = await sqliteHub();
    let checks = 0;
    hub.services.health.register('counted', () => {
      checks++;
      return { status: 'healthy', detail: `check ${checks}` };
    });
    const first = await hub.value('system.health');
    for (let i = 0; i < 20; i++) expect(await hub.value('system.health')).toEqual(first);
    expect(checks).toBe(1);
    vi.setSystemTime(Date.now() + HEALTH_CACHE_MS);
    expect((await hub.value('system.health')).services.counted.detail).toBe('check 2');
  });
});

describe('result cache with SWITCHBOARD_POLICY=off', () => {
  it('still answers identical calls from kept results (a feature, not a limit) while the limits are off', async () => {
    const hub = await testHub({
      cwd: project('[policy.rate_limit]\nlimit = 1\nwindow_ms = 60000\n'),
      env: { SWITCHBOARD_POLICY: 'off' },
    });
    hubs.push(hub);
    const runs = addFixtures(hub);
    expect(await hub.call('c.lookup', { q: 'x' }, alice)).toEqual({ ok: true, value: { answer: 'x#1', run: 1 } });
    expect(await hub.call('c.lookup', { q: 'x' }, bob)).toEqual({ ok: true, value: { answer: 'x#1', run: 1 } });
    expect(runs.lookup).toBe(1);
    // Other roles still keep their own result.
    expect(await hub.call('c.lookup', { q: 'x' }, carol)).toMatchObject({ value: { run: 2 } });
    // The rate limit (one call a minute) is off: a capability without a cache runs every time.
    await hub.call('c.plain', {}, alice);
    expect(await hub.call('c.plain', {}, alice)).toEqual({ ok: true, value: { run: 2 } });
  });
});

describe('result cache on Redis, two hubs on one prefix', () => {
  async function twoHubs() {
    const storeA = await openTestStore(REDIS_URL);
    cleanups.push(() => storeA.drop());
    const storeB = await RedisStore.open({ url: REDIS_URL, prefix: storeA.prefix });
    const a = await testHub({ cwd: project(), store: storeA });
    const b = await testHub({ cwd: project(), store: storeB });
    hubs.push(a, b);
    /**
     * A's result has reached Redis: the write is not awaited by the call (a kept result is a saving, and the answer
     * does not wait for it), so B asked at once could still miss it on a busy machine.
     */
    const landed = (name: string, input: unknown, principal: Principal) =>
      until(async () => (await storeB.shared?.results.get(resultKey(name, input, principal))) !== undefined, {
        what: `${name}'s result in Redis`,
      });
    return { a, b, runsA: addFixtures(a), runsB: addFixtures(b), landed };
  }

  it('answers a call on one hub with the result the other kept, for the same roles only', async () => {
    const { a, b, runsA, runsB, landed } = await twoHubs();
    const first = await a.call('c.lookup', { q: 'shared' }, alice);
    expect(first).toEqual({ ok: true, value: { answer: 'shared#1', run: 1 } });
    await landed('c.lookup', { q: 'shared', page: 1 }, alice); // the key is the parsed input, defaults applied
    expect(await b.call('c.lookup', { q: 'shared' }, bob)).toEqual(first);
    expect(runsB.lookup).toBe(0);
    expect(await b.call('c.lookup', { q: 'shared' }, carol)).toMatchObject({ value: { run: 1 } });
    expect(runsB.lookup).toBe(1);
    expect(runsA.lookup).toBe(1);
    // Errors stay unshared: each hub runs its failing call.
    await a.call('c.failing', {}, alice);
    await b.call('c.failing', {}, alice);
    expect(runsA.failing + runsB.failing).toBe(2);
    await b.flush();
    const audited = await b.services.store.audit.query({ capability: 'c.lookup', principal: 'bob' });
    expect(audited).toEqual([expect.objectContaining({ outcome: 'ok', cached: true, errorCode: null })]);
    expect(await b.metrics.prometheus()).toContain(
      'switchboard_cache_lookups_total{capability="c.lookup",result="hit"} 1',
    );
  });

  it('expires a shared result after its time', async () => {
    const { a, b, runsB, landed } = await twoHubs();
    a.services.registry.add(
      defineCapability({
        name: 'c.brief',
        description: 'kept 2 s',
        input: z.object({}),
        policy: { cache: { ttlMs: 2000 } },
        handle: () => ({ from: 'a' }),
      }),
    );
    b.services.registry.add(
      defineCapability({
        name: 'c.brief',
        description: 'kept 2 s',
        input: z.object({}),
        policy: { cache: { ttlMs: 2000 } },
        handle: () => {
          runsB.plain++;
          return { from: 'b' };
        },
      }),
    );
    // 2 s: long enough that B's first call comes while A's result is kept, on a busy machine too.
    const kept = Date.now();
    expect(await a.call('c.brief', {}, alice)).toEqual({ ok: true, value: { from: 'a' } });
    await landed('c.brief', {}, alice);
    expect(await b.call('c.brief', {}, alice)).toEqual({ ok: true, value: { from: 'a' } });
    // B answers A's result until Redis drops it, then runs its own.
    const own = await until(
      async () => {
        const out = await b.call('c.brief', {}, alice);
        return out.ok && (out.value as { from: string }).from === 'b' && out;
      },
      { what: "hub B running c.brief once A's result expired" },
    );
    expect(own).toEqual({ ok: true, value: { from: 'b' } });
    expect(Date.now() - kept).toBeGreaterThanOrEqual(1990);
    expect(runsB.plain).toBe(1);
  });

  it("keeps results on this instance while Redis is away, and the store's again once it is back", async () => {
    const redis = await PrivateRedis.start();
    cleanups.push(() => redis.stop());
    const hub = await testHub({
      cwd: project(),
      store: await RedisStore.open({ url: redis.url, prefix: testPrefix() }),
    });
    hubs.push(hub);
    const runs = addFixtures(hub);
    await hub.call('c.lookup', { q: 'x' }, alice);
    expect(await hub.call('c.lookup', { q: 'x' }, alice)).toMatchObject({ value: { run: 1 } });
    await redis.stop();
    // The shared result is out of reach: the call runs, and its result is kept here until Redis is back.
    expect(await hub.call('c.lookup', { q: 'x' }, alice)).toMatchObject({ ok: true, value: { run: 2 } });
    // The failed shared write hands the result to this instance's results (written after the answer).
    await until(() => hub.policy.results.size > 0, { what: 'the result kept on this instance' });
    expect(await hub.call('c.lookup', { q: 'x' }, alice)).toMatchObject({ ok: true, value: { run: 2 } });
    expect(runs.lookup).toBe(2);
    await redis.start();
    // A fresh Redis holds nothing: once it answers, a call runs and keeps its result there again.
    await until(() => hub.services.store.ping(), { what: 'the store to answer again' });
    const fresh = await hub.call('c.lookup', { q: 'y' }, alice);
    expect(fresh).toMatchObject({ ok: true, value: { run: 3 } });
    await until(async () => (await storeKeys(redis.url)).some((k) => k.includes('result:')), {
      what: 'the result kept in Redis',
    });
    expect(await hub.call('c.lookup', { q: 'y' }, alice)).toEqual(fresh);
    expect(runs.lookup).toBe(3);
  });

  it('keeps system.health per instance: each hub answers its own', async () => {
    const { a, b } = await twoHubs();
    const healthA = await a.value('system.health');
    const healthB = await b.value('system.health');
    expect(healthA.instanceId).toBe(a.services.instanceId);
    expect(healthB.instanceId).toBe(b.services.instanceId);
  });
});
