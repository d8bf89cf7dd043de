// Token buckets: a burst up to the limit, then refusals with a retry delay, refilling over time.
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/policy/rate-limit.ts';

describe('RateLimiter', () => {
  it('allows a burst of `limit`, then refuses with retryAfterMs until tokens refill', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(() => now);
    const policy = { limit: 3, windowMs: 3000 };
    expect([1, 2, 3].map(() => limiter.take('a', policy).ok)).toEqual([true, true, true]);
    const refused = limiter.take('a', policy);
    expect(refused).toEqual({ ok: false, retryAfterMs: 1000 });
    now += 999;
    expect(limiter.take('a', policy).ok).toBe(false);
    now += 1;
    expect(limiter.take('a', policy)).toEqual({ ok: true, remaining: 0 });
  });

  it('keeps separate buckets per key', () => {
    const limiter = new RateLimiter(() => 0);
    const policy = { limit: 1, windowMs: 1000 };
    expect(limiter.take('alice|x', policy).ok).toBe(true);
    expect(limiter.take('alice|x', policy).ok).toBe(false);
    expect(limiter.take('bob|x', policy).ok).toBe(true);
  });

  it('forgets idle buckets so memory stays bounded', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    for (let i = 0; i < 100; i++) limiter.take(`k${i}`, { limit: 5, windowMs: 1000 });
    expect(limiter.size).toBe(100);
    now += 10 * 60_000;
    limiter.take('fresh', { limit: 5, windowMs: 1000 });
    expect(limiter.size).toBe(1);
  });
});
