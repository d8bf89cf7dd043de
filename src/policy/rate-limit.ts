// Token-bucket rate limiting per (principal × capability). Pure and synchronous: the pipeline asks
// `take()` on the hot path and gets an answer without I/O.

export interface RateLimit {
  /** Calls allowed per window (the bucket size). */
  limit: number;
  windowMs: number;
}

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Buckets refill continuously at `limit / windowMs` tokens per ms up to `limit`, so a burst of `limit` calls
 * is allowed and the steady rate is `limit` per window. Idle buckets are dropped so memory stays bounded.
 *
 * @example
 * const limiter = new RateLimiter();
 * limiter.take('alice|task.create', { limit: 10, windowMs: 1000 }); // { ok: true, remaining: 9 }
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, limit: RateLimit, cost = 1): TakeResult {
    const t = this.now();
    this.sweep(t, limit.windowMs);
    const rate = limit.limit / limit.windowMs;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: limit.limit, updatedAt: t };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(limit.limit, b.tokens + (t - b.updatedAt) * rate);
      b.updatedAt = t;
    }
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil((cost - b.tokens) / rate)) };
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Drop buckets that have been idle long enough to be full again (they are equivalent to absent ones). */
  private sweep(t: number, windowMs: number): void {
    if (t - this.lastSweep < 60_000) return;
    this.lastSweep = t;
    for (const [k, b] of this.buckets) if (t - b.updatedAt > Math.max(windowMs, 60_000)) this.buckets.delete(k);
  }
}
