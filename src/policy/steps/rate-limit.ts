// The rate-limit step: a token bucket per principal × capability. Its strategy is chosen once: this instance's
// buckets (`RateLimiter`), or on Redis the buckets every instance shares, with this instance's own while Redis is away.
import type { CallState, Middleware } from '../../core/pipeline.ts';
import type { LimitsCache } from '../limits.ts';
import type { RateLimit, RateLimiter } from '../rate-limit.ts';
import { isPending, refuse } from './refusal.ts';
import type { SharedAdmissions } from './shared-admission.ts';

/** Admitted, or refused with how long to wait; `acrossInstances` when the shared bucket said no. */
export type RateVerdict = { ok: true } | { ok: false; retryAfterMs: number; acrossInstances?: true };

export interface RateStrategy {
  take(state: CallState, key: string, rate: RateLimit): RateVerdict | Promise<RateVerdict>;
}

export function rateLimitStep(limits: LimitsCache, strategy: RateStrategy): Middleware {
  return (state, next) => {
    const { limits: callLimits, rateKey } = limits.of(state);
    const rate = callLimits.rateLimit;
    if (!rate) return next();
    const verdict = strategy.take(state, rateKey, rate);
    if (isPending(verdict)) return verdict.then((v) => (v.ok ? next() : refuseRate(state, rate, v)));
    return verdict.ok ? next() : refuseRate(state, rate, verdict);
  };
}

function refuseRate(state: CallState, rate: RateLimit, verdict: Extract<RateVerdict, { ok: false }>) {
  const across = verdict.acrossInstances ? ' (across all instances)' : '';
  return refuse(
    'RATE_LIMITED',
    `Rate limit for ${state.entry.tool.name}: ${rate.limit} calls per ${rate.windowMs} ms${across}; retry in ${verdict.retryAfterMs} ms.`,
    verdict.retryAfterMs,
    { limit: rate.limit, windowMs: rate.windowMs, scope: 'rate' },
  );
}

/** This instance's buckets: synchronous, no I/O. */
export function localRate(limiter: RateLimiter): RateStrategy {
  return { take: (_state, key, rate) => limiter.take(key, rate) };
}

/** The buckets every instance on the Redis prefix shares; this instance's own while Redis is away. */
export function sharedRate(admissions: SharedAdmissions, limiter: RateLimiter): RateStrategy {
  return {
    take: async (state, key, rate) => {
      const shared = await admissions.of(state);
      if (!shared) return limiter.take(key, rate);
      // A breaker refusal is the breaker step's to give.
      if (shared.ok || shared.scope !== 'rate') return { ok: true };
      return { ok: false, retryAfterMs: shared.retryAfterMs, acrossInstances: true };
    },
  };
}
