// Shared rate limits and breakers: two SharedPolicy objects on two connections to one Redis prefix stand for two
// instances — the bucket is one bucket, a circuit opened by one is open for the other, and a probe is shared.
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerPolicy } from '../../src/policy/breaker.ts';
import { SharedPolicy } from '../../src/policy/shared-policy.ts';
import { openTestStore, twoTestStores } from '../helpers/redis.ts';

const BREAKER: BreakerPolicy = { threshold: 3, resetMs: 300, halfOpenProbes: 1 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SharedPolicy', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function twoInstances() {
    const [a, b] = await twoTestStores(cleanup);
    return { a: new SharedPolicy(a.shared.limits), b: new SharedPolicy(b.shared.limits) };
  }

  it('allows exactly 10 calls per window in total across two instances', async () => {
    const { a, b } = await twoInstances();
    const rate = { limit: 10, windowMs: 60_000 };
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).admit('alice', 'task.create', rate, BREAKER)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.filter((r) => !r.ok);
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r).toMatchObject({ ok: false, scope: 'rate', retryAfterMs: expect.any(Number) });
    // Another principal and another capability have buckets of their own.
    expect(await a.admit('bob', 'task.create', rate, BREAKER)).toMatchObject({ ok: true });
    expect(await b.admit('alice', 'task.list', rate, BREAKER)).toMatchObject({ ok: true });
  });

  it('refills the shared bucket with time', async () => {
    const { a, b } = await twoInstances();
    const rate = { limit: 2, windowMs: 200 };
    expect((await a.admit('p', 'c', rate, BREAKER)).ok).toBe(true);
    expect((await b.admit('p', 'c', rate, BREAKER)).ok).toBe(true);
    const refused = await a.admit('p', 'c', rate, BREAKER);
    expect(refused).toMatchObject({ ok: false, scope: 'rate' });
    // Time is the behaviour (a refill): at least 150 ms; a slower machine only refills more, never less.
    await sleep(150);
    expect((await b.admit('p', 'c', rate, BREAKER)).ok).toBe(true);
  });

  it('opens a circuit for every instance after failures recorded on both, and lets one shared probe through', async () => {
    const { a, b } = await twoInstances();
    const clean = { probe: false, clean: true };
    await a.record('demo.flaky', BREAKER, true, clean);
    await b.record('demo.flaky', BREAKER, true, clean);
    expect((await a.admit('p', 'demo.flaky', undefined, BREAKER)).ok).toBe(true);
    await a.record('demo.flaky', BREAKER, true, clean);
    // Open on both, although b recorded only one of the three failures.
    expect(await b.admit('p', 'demo.flaky', undefined, BREAKER)).toMatchObject({ ok: false, scope: 'breaker' });
    expect(b.all()['demo.flaky'].state).toBe('open');
    expect(a.all()['demo.flaky']).toMatchObject({ state: 'open', failures: 3, opens: 1 });
    // Time is the behaviour (the circuit's reset): a longer pause on a busy machine still finds it half-open.
    await sleep(BREAKER.resetMs + 50);
    // Half-open: one probe in total, whichever instance asks first.
    const first = await a.admit('p', 'demo.flaky', undefined, BREAKER);
    expect(first).toMatchObject({ ok: true, probe: true });
    expect(await b.admit('p', 'demo.flaky', undefined, BREAKER)).toMatchObject({ ok: false, scope: 'breaker' });
    await a.record('demo.flaky', BREAKER, false, { probe: true, clean: false });
    expect(await b.admit('p', 'demo.flaky', undefined, BREAKER)).toMatchObject({ ok: true, probe: false });
  });

  it('resets the failure count on a success recorded by the other instance', async () => {
    const { a, b } = await twoInstances();
    await a.record('x', BREAKER, true, { probe: false, clean: true });
    await a.record('x', BREAKER, true, { probe: false, clean: true });
    const admitted = await b.admit('p', 'x', undefined, BREAKER);
    expect(admitted).toMatchObject({ ok: true, clean: false });
    if (admitted.ok) await b.record('x', BREAKER, false, admitted);
    await a.record('x', BREAKER, true, { probe: false, clean: true });
    // Two failures, a success, one failure: below the threshold of 3, still closed.
    expect(await a.admit('p', 'x', undefined, BREAKER)).toMatchObject({ ok: true });
  });

  it('answers UNAVAILABLE when Redis is gone, so the caller can fall back to local limits', async () => {
    const store = await openTestStore();
    const policy = new SharedPolicy(store.shared.limits);
    await store.close();
    await expect(policy.admit('p', 'c', { limit: 1, windowMs: 1000 }, BREAKER)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    cleanup.push(() => store.drop());
  });
});
